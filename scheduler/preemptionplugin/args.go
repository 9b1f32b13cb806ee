package preemptionplugin

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/evictkit/eviction/preemption"
)

// Args configures the plugin: [preemption.Args], whose JSON form is what a
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
// DefaultPreemption. StrictPDB never preempts on a node where the victims
// would violate a PodDisruptionBudget: when every candidate does, the
// preemptor stays pending (status Unschedulable) instead. EvictionAPI
// evicts victims through the pods/eviction subresource instead of deleting
// them, so that the API server checks the PodDisruptionBudgets once more at
// the time of the eviction; see [Plugin] for what happens when an eviction
// is refused.
//
// The fields, their defaults and their checks are defined once, in the
// preemption package, so that whatif reads the same configuration.
type Args preemption.Args

// DefaultArgs returns the defaults: DefaultPreemptionArgs' 10% and 100 nodes,
// both options off.
func DefaultArgs() Args { return Args(preemption.DefaultArgs()) }

// ErrInvalidArgs reports plugin arguments that do not decode or do not
// validate.
var ErrInvalidArgs = errors.New("invalid plugin args")

// DecodeArgs reads the plugin's arguments as the scheduler framework hands
// them to a plugin factory: nil (all defaults), a *runtime.Unknown holding
// the JSON or YAML of the pluginConfig entry ([preemption.ParseArgs]), or an
// *Args. Absent fields take their defaults; unknown fields are an error, so
// that a misspelt option is not silently ignored. The result is validated
// as upstream validates DefaultPreemptionArgs. Every error wraps
// [ErrInvalidArgs] and names the field at fault.
func DecodeArgs(obj runtime.Object) (Args, error) {
	args := DefaultArgs()
	switch o := obj.(type) {
	case nil:
	case *Args:
		if o != nil {
			args = *o
		}
	case *runtime.Unknown:
		if o != nil {
			a, err := preemption.ParseArgs(o.Raw, preemption.DefaultArgs())
			if err != nil {
				return Args{}, fmt.Errorf("preemptionplugin: %w: %w", ErrInvalidArgs, err)
			}
			args = Args(a)
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
	if err := preemption.Args(a).Validate(); err != nil {
		return fmt.Errorf("preemptionplugin: %w: %w", ErrInvalidArgs, err)
	}
	return nil
}

func (a Args) sampling() preemption.Sampling { return preemption.Args(a).Sampling() }

// GetObjectKind implements runtime.Object, so that an *Args can be passed to
// [New] directly; it has no kind.
func (a *Args) GetObjectKind() schema.ObjectKind { return schema.EmptyObjectKind }

// DeepCopyObject implements runtime.Object.
func (a *Args) DeepCopyObject() runtime.Object {
	c := *a
	return &c
}
