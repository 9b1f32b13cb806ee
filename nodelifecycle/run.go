package nodelifecycle

import (
	"context"
	"errors"
	"fmt"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
)

// Op is the kind of an API [Call].
type Op int

const (
	// GetLease is the lease circuit breaker's live GET of a node's Lease in kube-node-lease:
	// reply with [Reply.Lease] (Found false for NotFound, which is not an error).
	GetLease Op = iota + 1
	// GetNode reads a node again after a failed status write: reply with [Reply.Node].
	GetNode
	// UpdateNodeStatus writes [Call.Status].Status (UpdateStatus).
	UpdateNodeStatus
	// SwapTaints writes [Call.Swap] to the node as upstream's SwapNodeControllerTaint does:
	// read the node, add Swap.Add stamped with the current time, remove Swap.Remove and,
	// unless that changes nothing, write the taints with the resourceVersion read, retrying
	// conflicts. [Swap.Apply] computes the result.
	SwapTaints
	// UpdatePodStatus writes [Call.Pod].Status (UpdateStatus). A NotFound error (as
	// k8s.io/apimachinery's errors.IsNotFound sees it) tells the Monitor the pod is gone: it
	// is neither counted as marked nor given an event.
	UpdatePodStatus
)

// String returns the operation's name.
func (o Op) String() string {
	switch o {
	case GetLease:
		return "GetLease"
	case GetNode:
		return "GetNode"
	case UpdateNodeStatus:
		return "UpdateNodeStatus"
	case SwapTaints:
		return "SwapTaints"
	case UpdatePodStatus:
		return "UpdatePodStatus"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// Call is one API call a [Run] needs made, as a value: the run performs no I/O itself.
type Call struct {
	// Op is what to do; the fields below it that the Op names carry its arguments.
	Op Op
	// Node is the name of the node the call is about (for UpdatePodStatus, the pod's node).
	Node string
	// Lease is the node's Lease in the lease cache (GetLease; nil when there is none): what a
	// caller without an API server answers with ([Call.Do] with a nil API).
	Lease *coordinationv1.Lease
	// Status is the node to write, its new status in place (UpdateNodeStatus).
	Status *v1.Node
	// Swap is the taint change to write (SwapTaints).
	Swap Swap
	// Pod is the pod to write, its new status in place (UpdatePodStatus).
	Pod *v1.Pod
}

// Reply is the outcome of a [Call].
type Reply struct {
	// Err is the call's error, the API's unchanged (NotFound included, but for GetLease).
	Err error
	// Lease answers GetLease.
	Lease LiveLease
	// Node answers GetNode.
	Node *v1.Node
}

// API performs a [Run]'s calls: a controller implements it with a clientset, a simulation
// with its own objects. Every method returns the API error unchanged; the Monitor wraps it,
// carries on and retries as upstream does. [Run.Do] drives a run through an API.
type API interface {
	// GetLease answers a [GetLease] call. NotFound is not an error: return
	// LiveLease{Found: false}.
	GetLease(ctx context.Context, nodeName string) (LiveLease, error)
	// GetNode answers a [GetNode] call.
	GetNode(ctx context.Context, name string) (*v1.Node, error)
	// UpdateNodeStatus performs an [UpdateNodeStatus] call.
	UpdateNodeStatus(ctx context.Context, node *v1.Node) error
	// SwapTaints performs a [SwapTaints] call.
	SwapTaints(ctx context.Context, nodeName string, s Swap) error
	// UpdatePodStatus performs an [UpdatePodStatus] call.
	UpdatePodStatus(ctx context.Context, pod *v1.Pod) error
}

// Do performs c through api and returns its reply. With a nil api every call succeeds
// without doing anything, and the live Lease is the cached one ([Call.Lease]).
func (c Call) Do(ctx context.Context, api API) Reply {
	if api == nil {
		if c.Op == GetLease && c.Lease != nil {
			return Reply{Lease: LiveLease{Found: true, ResourceVersion: c.Lease.ResourceVersion}}
		}
		return Reply{}
	}
	switch c.Op {
	case GetLease:
		l, err := api.GetLease(ctx, c.Node)
		return Reply{Lease: l, Err: err}
	case GetNode:
		n, err := api.GetNode(ctx, c.Node)
		return Reply{Node: n, Err: err}
	case UpdateNodeStatus:
		return Reply{Err: api.UpdateNodeStatus(ctx, c.Status)}
	case SwapTaints:
		return Reply{Err: api.SwapTaints(ctx, c.Node, c.Swap)}
	case UpdatePodStatus:
		return Reply{Err: api.UpdatePodStatus(ctx, c.Pod)}
	}
	return Reply{Err: fmt.Errorf("nodelifecycle: unknown call %v", c.Op)}
}

// ErrRunNotOver is what [Run.Result] returns before [Run.Next] has reported the run's end.
var ErrRunNotOver = errors.New("nodelifecycle: the run is not over: call Next until it reports false")

// Run is one step of a [Monitor] (a pass, a drain, a bound pod) as a sequence of API calls
// handed to the caller, who performs each and replies, then reads the result:
//
//	run := m.Pass(now, in)
//	for call, ok := run.Next(); ok; call, ok = run.Next() {
//		run.Reply(call.Do(ctx, api)) // or perform it any other way
//	}
//	res, err := run.Result()
//
// [Run.Do] is that loop. The run decides exactly what upstream's controller decides with
// the same answers from its API server, in the same order: a call's reply is known before
// the next call is made, as upstream makes them one after another. A run holds the part of
// the Monitor it changes (the Monitor for a pass or a bound pod, its zone queues for a
// drain) from its creation to its end, as upstream holds its locks across its API calls:
// drive every run to its end (reply with an error to cut it short); until then, the
// Monitor's methods that need that part wait.
type Run[R any] struct {
	s       stepper[R]
	pending Call
	waiting bool
	over    bool
}

// stepper is what a Run drives: next returns the next call (false: the run is over, and end
// releases what the run held), reply takes the answer of the call next returned.
type stepper[R any] interface {
	next() (Call, bool)
	reply(Reply)
	result() (R, error)
	end()
}

func newRun[R any](s stepper[R]) *Run[R] { return &Run[R]{s: s} }

// Next returns the call to perform next and true, or false once the run is over. Until the
// call is answered with [Run.Reply], Next returns it again.
func (r *Run[R]) Next() (Call, bool) {
	if r.over {
		return Call{}, false
	}
	if r.waiting {
		return r.pending, true
	}
	c, ok := r.s.next()
	if !ok {
		r.over = true
		r.s.end()
		return Call{}, false
	}
	r.pending, r.waiting = c, true
	return c, true
}

// Reply answers the call [Run.Next] returned. A reply with no call waiting is ignored.
func (r *Run[R]) Reply(rep Reply) {
	if !r.waiting {
		return
	}
	r.waiting, r.pending = false, Call{}
	r.s.reply(rep)
}

// Result returns what the run did, once [Run.Next] has reported its end; before, it returns
// [ErrRunNotOver].
func (r *Run[R]) Result() (R, error) {
	if !r.over {
		var zero R
		return zero, ErrRunNotOver
	}
	return r.s.result()
}

// Do drives the run to its end, performing every call through api ([Call.Do]; nil: every
// call succeeds), and returns its result. A cancelled ctx does not stop the run: its calls
// fail, as the API's calls do, and it ends.
func (r *Run[R]) Do(ctx context.Context, api API) (R, error) {
	for {
		c, ok := r.Next()
		if !ok {
			return r.Result()
		}
		r.Reply(c.Do(ctx, api))
	}
}
