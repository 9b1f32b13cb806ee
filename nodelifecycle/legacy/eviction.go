package legacy

import (
	"errors"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/nodelifecycle"
)

// DefaultPodEvictionTimeout is --pod-eviction-timeout's default: what a zero
// [Config.PodEvictionTimeout] means.
const DefaultPodEvictionTimeout = 5 * time.Minute

// Config holds the legacy mode's one setting of its own.
type Config struct {
	// PodEvictionTimeout is --pod-eviction-timeout (removed in v1.27): how long a node may
	// be not ready before its pods are deleted (0: 5 m).
	PodEvictionTimeout time.Duration
}

func (c Config) timeout() time.Duration {
	if c.PodEvictionTimeout == 0 {
		return DefaultPodEvictionTimeout
	}
	return c.PodEvictionTimeout
}

// NodeConfig126 returns kube-controller-manager v1.26.15's node lifecycle settings, the last
// release with the legacy mode: a 40 s monitor grace period and no lease circuit breaker (the
// gate did not exist); the others are v1.37's.
func NodeConfig126() nodelifecycle.Config {
	return nodelifecycle.Config{MonitorGracePeriod: 40 * time.Second, DisableLeaseCircuitBreaker: true}
}

// ErrNoProbe reports a legacy eviction decision asked for a node the controller has no saved
// [nodelifecycle.Probe] for (upstream: "health data doesn't exist for node").
var ErrNoProbe = errors.New("no saved probe")

// PodEviction is the legacy mode's per-pass decision for one node (upstream v1.26.15
// processNoTaintBaseEviction).
type PodEviction int

const (
	// EvictionWait: nothing to do this pass.
	EvictionWait PodEviction = iota
	// EvictionDue: the node has been not ready for longer than PodEvictionTimeout; its pods
	// must go.
	EvictionDue
	// EvictionCancel: the node is ready; cancel any pending eviction.
	EvictionCancel
)

// String returns the decision's name.
func (e PodEviction) String() string {
	switch e {
	case EvictionWait:
		return "Wait"
	case EvictionDue:
		return "Due"
	case EvictionCancel:
		return "Cancel"
	}
	return fmt.Sprintf("PodEviction(%d)", int(e))
}

// Decide decides, in the legacy mode (--enable-taint-manager=false, v1.26), whether a node's
// pods are due for deletion at time now. ready is the Ready status the decision is taken on:
// [nodelifecycle.Health.Observed] in the per-node pass (v1.26 reads it before its own Unknown
// write, so the pass that marks a node Unknown still sees True and cancels), the saved Ready
// when a pod is bound to the node later ([nodelifecycle.PodBoundToNode]). saved is the node's
// state after this pass's judgement.
//
//	False:   due iff now is strictly after saved.ReadyTransitionTime + PodEvictionTimeout
//	         (when the controller observed the transition, not the kubelet's time)
//	Unknown: due iff now is strictly after saved.ProbeTime + PodEvictionTimeout (the last
//	         sign of life, not the moment the controller wrote Unknown)
//	True:    cancel
//	other:   wait
//
// A nil saved yields an error wrapping [ErrNoProbe].
func Decide(ready v1.ConditionStatus, saved *nodelifecycle.Probe, now time.Time, cfg Config) (PodEviction, error) {
	if saved == nil {
		return EvictionWait, fmt.Errorf("legacy: pod eviction for Ready %q: %w", ready, ErrNoProbe)
	}
	switch ready {
	case v1.ConditionFalse:
		if now.After(saved.ReadyTransitionTime.Add(cfg.timeout())) {
			return EvictionDue, nil
		}
	case v1.ConditionUnknown:
		if now.After(saved.ProbeTime.Add(cfg.timeout())) {
			return EvictionDue, nil
		}
	case v1.ConditionTrue:
		return EvictionCancel, nil
	}
	return EvictionWait, nil
}

// EvictionState is a node's place in the legacy mode's eviction state machine (upstream
// nodeEvictionMap). A node is registered Unmarked when the node informer adds it and
// forgotten when it is deleted; the zero value is Unmarked.
type EvictionState int

const (
	// Unmarked: no eviction pending.
	Unmarked EvictionState = iota
	// ToBeEvicted: queued in its zone's rate-limited queue.
	ToBeEvicted
	// Evicted: the queue deleted its pods; pods that land on it later go at once.
	Evicted
)

// String returns the state's name.
func (s EvictionState) String() string {
	switch s {
	case Unmarked:
		return "Unmarked"
	case ToBeEvicted:
		return "ToBeEvicted"
	case Evicted:
		return "Evicted"
	}
	return fmt.Sprintf("EvictionState(%d)", int(s))
}

// EvictionOp is what the controller does to carry out a [PodEviction] decision.
type EvictionOp int

const (
	// OpNone: nothing.
	OpNone EvictionOp = iota
	// OpEnqueue: Add the node (name and UID) to its zone's queue; a no-op while it is queued
	// or tombstoned. When its token comes, list its pods, [PlanPodDeletion] them and set the
	// state to Evicted (list or delete errors: retry).
	OpEnqueue
	// OpDeleteNow: the node was already evicted; delete the given pods at once, without a
	// token ([PlanPodDeletion]).
	OpDeleteNow
	// OpDequeue: Remove the node from its zone's queue, tombstone included.
	OpDequeue
)

// String returns the operation's name.
func (o EvictionOp) String() string {
	switch o {
	case OpNone:
		return "None"
	case OpEnqueue:
		return "Enqueue"
	case OpDeleteNow:
		return "DeleteNow"
	case OpDequeue:
		return "Dequeue"
	}
	return fmt.Sprintf("EvictionOp(%d)", int(o))
}

// Next returns the state after decision e and the operation that carries it out (upstream
// evictPods and cancelPodEviction): Due on an Evicted node → OpDeleteNow, state kept; Due
// otherwise → ToBeEvicted and OpEnqueue; Cancel → Unmarked and OpDequeue; Wait → unchanged.
// Upstream cancels the same way for every node it sees for the first time and for every node
// when the cluster enters the all-zones-down mode.
func (s EvictionState) Next(e PodEviction) (EvictionState, EvictionOp) {
	switch e {
	case EvictionDue:
		if s == Evicted {
			return Evicted, OpDeleteNow
		}
		return ToBeEvicted, OpEnqueue
	case EvictionCancel:
		return Unmarked, OpDequeue
	}
	return s, OpNone
}
