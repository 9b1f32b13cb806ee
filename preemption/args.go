package preemption

import (
	"bytes"
	"fmt"

	"sigs.k8s.io/yaml"
)

// Args is the configuration of the EvictkitPreemption scheduler plugin: the
// args of its entry in a KubeSchedulerConfiguration profile's pluginConfig,
// defined here once so that the plugin and the programs that predict what
// it does (whatif) read the same fields with the same defaults and checks.
//
//	pluginConfig:
//	- name: EvictkitPreemption
//	  args:
//	    minCandidateNodesPercentage: 10
//	    minCandidateNodesAbsolute: 100
//	    strictPDB: true
//	    evictionAPI: true
//
// The first two fields are DefaultPreemptionArgs, with its defaults; the
// other two are off by default, so that the default configuration decides
// as DefaultPreemption does.
type Args struct {
	// MinCandidateNodesPercentage is the share of the potential nodes, 0 to
	// 100, the dry run collects candidates from (default 10).
	MinCandidateNodesPercentage int32 `json:"minCandidateNodesPercentage"`
	// MinCandidateNodesAbsolute is a lower bound on that count (default
	// 100). It may not be 0 together with MinCandidateNodesPercentage.
	MinCandidateNodesAbsolute int32 `json:"minCandidateNodesAbsolute"`
	// StrictPDB never preempts on a node where the victims would violate a
	// PodDisruptionBudget ([Options.StrictPDB]).
	StrictPDB bool `json:"strictPDB"`
	// EvictionAPI evicts the victims through the pods/eviction subresource
	// instead of deleting them, so that the API server checks their
	// PodDisruptionBudgets once more. It does not change the decision,
	// only how the plugin carries it out.
	EvictionAPI bool `json:"evictionAPI"`
}

// DefaultArgs returns the defaults: DefaultPreemptionArgs' 10% and 100
// nodes, StrictPDB and EvictionAPI off.
func DefaultArgs() Args {
	s := DefaultSampling()
	return Args{MinCandidateNodesPercentage: s.MinCandidateNodesPercentage, MinCandidateNodesAbsolute: s.MinCandidateNodesAbsolute}
}

// Sampling returns the dry run's sampling the args set.
func (a Args) Sampling() Sampling {
	return Sampling{MinCandidateNodesPercentage: a.MinCandidateNodesPercentage, MinCandidateNodesAbsolute: a.MinCandidateNodesAbsolute}
}

// Validate reports the checks upstream makes on DefaultPreemptionArgs,
// naming the field, wrapped in [ErrInvalidOptions].
func (a Args) Validate() error { return a.Sampling().Validate() }

// argsJSON is Args with pointers, so that an absent field keeps its
// default.
type argsJSON struct {
	MinCandidateNodesPercentage *int32 `json:"minCandidateNodesPercentage,omitempty"`
	MinCandidateNodesAbsolute   *int32 `json:"minCandidateNodesAbsolute,omitempty"`
	StrictPDB                   *bool  `json:"strictPDB,omitempty"`
	EvictionAPI                 *bool  `json:"evictionAPI,omitempty"`
}

// ParseArgs reads args in JSON or YAML, as a pluginConfig entry gives them,
// over base: a field that is absent keeps base's value (pass [DefaultArgs]
// for the plugin's defaults). Empty input (or null) is base. Unknown fields
// are an error, so that a misspelt option is not silently ignored (names
// match without regard to case, as encoding/json matches them), and the
// result is validated. Every error wraps [ErrInvalidOptions] and names the
// field at fault.
func ParseArgs(data []byte, base Args) (Args, error) {
	if t := bytes.TrimSpace(data); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return base, base.Validate()
	}
	var j argsJSON
	if err := yaml.UnmarshalStrict(data, &j); err != nil {
		return Args{}, fmt.Errorf("preemption: args: %w: %w", ErrInvalidOptions, err)
	}
	a := base
	if j.MinCandidateNodesPercentage != nil {
		a.MinCandidateNodesPercentage = *j.MinCandidateNodesPercentage
	}
	if j.MinCandidateNodesAbsolute != nil {
		a.MinCandidateNodesAbsolute = *j.MinCandidateNodesAbsolute
	}
	if j.StrictPDB != nil {
		a.StrictPDB = *j.StrictPDB
	}
	if j.EvictionAPI != nil {
		a.EvictionAPI = *j.EvictionAPI
	}
	if err := a.Validate(); err != nil {
		return Args{}, err
	}
	return a, nil
}
