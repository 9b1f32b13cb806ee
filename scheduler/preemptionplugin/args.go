package preemptionplugin

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"

	"github.com/evictkit/eviction/preemption"
)

// Args configures the plugin. Its JSON form is what a
// KubeSchedulerConfiguration's pluginConfig gives under args:
//
//	pluginConfig:
//	- name: EvictkitPreemption
//	  args:
//	    minCandidateNodesPercentage: 10
//	    minCandidateNodesAbsolute: 100
//	    strictPDB: true
//	    evictionAPI: true
//
// The first two fields are DefaultPreemptionArgs, with their defaults; the
// other two are off by default, so that the zero configuration behaves as
// DefaultPreemption.
type Args struct {
	// MinCandidateNodesPercentage is the share of the potential nodes, 0 to
	// 100, the dry run collects candidates from (default 10).
	MinCandidateNodesPercentage int32 `json:"minCandidateNodesPercentage"`
	// MinCandidateNodesAbsolute is a lower bound on that count (default
	// 100). It may not be 0 together with MinCandidateNodesPercentage.
	MinCandidateNodesAbsolute int32 `json:"minCandidateNodesAbsolute"`
	// StrictPDB never preempts on a node where the victims would violate a
	// PodDisruptionBudget: when every candidate does, the preemptor stays
	// pending (status Unschedulable) instead.
	StrictPDB bool `json:"strictPDB"`
	// EvictionAPI evicts victims through the pods/eviction subresource
	// instead of deleting them, so that the API server checks the
	// PodDisruptionBudgets once more at the time of the eviction. See
	// [Plugin] for what happens when an eviction is refused.
	EvictionAPI bool `json:"evictionAPI"`
}

// DefaultArgs returns the defaults: DefaultPreemptionArgs' 10% and 100 nodes,
// both options off.
func DefaultArgs() Args {
	s := preemption.DefaultSampling()
	return Args{MinCandidateNodesPercentage: s.MinCandidateNodesPercentage, MinCandidateNodesAbsolute: s.MinCandidateNodesAbsolute}
}

// ErrInvalidArgs reports plugin arguments that do not decode or do not
// validate.
var ErrInvalidArgs = errors.New("invalid plugin args")

// jsonArgs is Args with pointers, so that an absent field takes its default.
type jsonArgs struct {
	MinCandidateNodesPercentage *int32 `json:"minCandidateNodesPercentage,omitempty"`
	MinCandidateNodesAbsolute   *int32 `json:"minCandidateNodesAbsolute,omitempty"`
	StrictPDB                   bool   `json:"strictPDB,omitempty"`
	EvictionAPI                 bool   `json:"evictionAPI,omitempty"`
}

// DecodeArgs reads the plugin's arguments as the scheduler framework hands
// them to a plugin factory: nil (all defaults), a *runtime.Unknown holding
// the JSON or YAML of the pluginConfig entry, or an *Args. Absent fields take
// their defaults; unknown fields are an error, so that a misspelt option is
// not silently ignored. The result is validated as upstream validates
// DefaultPreemptionArgs. Every error wraps [ErrInvalidArgs].
func DecodeArgs(obj runtime.Object) (Args, error) {
	args := DefaultArgs()
	switch o := obj.(type) {
	case nil:
	case *Args:
		if o != nil {
			args = *o
		}
	case *runtime.Unknown:
		if o != nil && len(o.Raw) > 0 {
			var j jsonArgs
			if err := yaml.UnmarshalStrict(o.Raw, &j); err != nil {
				return Args{}, fmt.Errorf("preemptionplugin: args %s: %w: %w", o.Raw, ErrInvalidArgs, err)
			}
			if j.MinCandidateNodesPercentage != nil {
				args.MinCandidateNodesPercentage = *j.MinCandidateNodesPercentage
			}
			if j.MinCandidateNodesAbsolute != nil {
				args.MinCandidateNodesAbsolute = *j.MinCandidateNodesAbsolute
			}
			args.StrictPDB = j.StrictPDB
			args.EvictionAPI = j.EvictionAPI
		}
	default:
		return Args{}, fmt.Errorf("preemptionplugin: args of type %T, want *runtime.Unknown or *Args: %w", obj, ErrInvalidArgs)
	}
	if err := args.Validate(); err != nil {
		return Args{}, err
	}
	return args, nil
}

// Validate reports the checks upstream makes on DefaultPreemptionArgs,
// wrapped in [ErrInvalidArgs].
func (a Args) Validate() error {
	if err := a.sampling().Validate(); err != nil {
		return fmt.Errorf("preemptionplugin: %w: %w", ErrInvalidArgs, err)
	}
	return nil
}

func (a Args) sampling() preemption.Sampling {
	return preemption.Sampling{MinCandidateNodesPercentage: a.MinCandidateNodesPercentage, MinCandidateNodesAbsolute: a.MinCandidateNodesAbsolute}
}

// GetObjectKind implements runtime.Object, so that an *Args can be passed to
// [New] directly; it has no kind.
func (a *Args) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject implements runtime.Object.
func (a *Args) DeepCopyObject() runtime.Object {
	c := *a
	return &c
}
