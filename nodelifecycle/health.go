package nodelifecycle

import (
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/resourceversion"
)

// Reasons and messages the controller writes into conditions it marks Unknown.
const (
	// ReasonStatusUnknown is the reason of a condition the kubelet used to post and stopped.
	ReasonStatusUnknown = "NodeStatusUnknown"
	// MessageStatusUnknown goes with [ReasonStatusUnknown].
	MessageStatusUnknown = "Kubelet stopped posting node status."
	// ReasonStatusNeverUpdated is the reason of a condition the kubelet never posted.
	ReasonStatusNeverUpdated = "NodeStatusNeverUpdated"
	// MessageStatusNeverUpdated goes with [ReasonStatusNeverUpdated].
	MessageStatusNeverUpdated = "Kubelet never posted node status."
)

// SavedLease is the part of a node's Lease that the controller remembers: its renew time (nil
// when the Lease had none) and its resourceVersion.
type SavedLease struct {
	RenewTime       *metav1.MicroTime
	ResourceVersion string
}

// Probe is what the controller remembers about one node between two judgements (upstream
// nodeHealthData). Both times are on the controller's clock, never the kubelet's. A nil
// *Probe means "never seen". Values returned by this package may share Ready and Lease with
// the Probe they were derived from: treat them as immutable.
type Probe struct {
	// ProbeTime is when the controller last saw a sign of life: a new heartbeat in the Ready
	// condition or a renewed Lease.
	ProbeTime time.Time
	// ReadyTransitionTime is when the controller last saw the Ready condition change.
	ReadyTransitionTime time.Time
	// Ready is the saved Ready condition (nil: the saved status had none).
	Ready *v1.NodeCondition
	// Lease is the saved Lease (nil: none saved).
	Lease *SavedLease
}

// ResetProbe returns p with both times set to now, as upstream does to every node when the
// cluster leaves the all-zones-down mode ([Disruption.Exited]). A nil p gives a fresh Probe
// with both times now (upstream dereferences nil there and crashes).
func ResetProbe(p *Probe, now time.Time) Probe {
	if p == nil {
		return Probe{ProbeTime: now, ReadyTransitionTime: now}
	}
	return Probe{ProbeTime: now, ReadyTransitionTime: now, Ready: p.Ready, Lease: p.Lease}
}

// Verdict is the outcome of one health judgement.
type Verdict int

const (
	// Fresh: the node showed a sign of life within its grace period; nothing is written.
	Fresh Verdict = iota
	// Expired: the grace period is over. [Health.Status] holds the status to write unless
	// Ready was already Unknown.
	Expired
	// NeedsLeaseCheck: the grace period is over and the lease circuit breaker is on. GET the
	// node's Lease from the API server and call [EvaluateWithLiveLease]; if the GET fails
	// with anything but NotFound, skip the node this pass (save [Health.Probe]).
	NeedsLeaseCheck
	// Skipped: the live Lease differs from the saved one, so the lease cache is stale. Save
	// [Health.Probe], record [Health.LiveLeaseRV] (see [LeaseCacheBehind]) and leave the
	// node out of this pass: not counted in its zone, no taint or pod action.
	Skipped
)

// String returns the verdict's name.
func (v Verdict) String() string {
	switch v {
	case Fresh:
		return "Fresh"
	case Expired:
		return "Expired"
	case NeedsLeaseCheck:
		return "NeedsLeaseCheck"
	case Skipped:
		return "Skipped"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// LiveLease is the answer of a live GET of a node's Lease, asked for by [NeedsLeaseCheck].
type LiveLease struct {
	// Found is false when the GET answered NotFound.
	Found bool
	// ResourceVersion of the live Lease when Found.
	ResourceVersion string
}

// Health is the result of judging one node (upstream tryUpdateNodeHealth).
type Health struct {
	// Verdict says what happened.
	Verdict Verdict
	// Grace is the grace period that applied: StartupGracePeriod for a node without a Ready
	// condition, MonitorGracePeriod otherwise.
	Grace time.Duration
	// Observed is the node's Ready condition as read, before this judgement changed anything;
	// a node without one gets a synthetic {Ready, Unknown} stamped with its creation time.
	// Upstream v1.26 takes taint and legacy eviction decisions on Observed.
	Observed v1.NodeCondition
	// Current is the Ready condition after this judgement (nil when the node has none and is
	// still within its startup grace, or when Verdict is NeedsLeaseCheck or Skipped).
	// Upstream v1.37 takes taint decisions on Current; a nil Current counts as not ready in
	// its zone and calls for no taint or pod action.
	Current *v1.NodeCondition
	// Status is the node status to write (UpdateStatus), or nil when nothing is written: a
	// copy of the node's status with Ready, MemoryPressure, DiskPressure and PIDPressure
	// turned Unknown.
	Status *v1.NodeStatus
	// Probe is the state to save for the node when nothing is written, or when writing
	// Status failed (upstream then re-reads the node and judges it again).
	Probe Probe
	// Written is the state to save once Status has been written. Zero when Status is nil.
	Written Probe
	// LiveLeaseRV is the live Lease's resourceVersion when Verdict is Skipped.
	LiveLeaseRV string
}

// BecameNotReady reports whether this judgement itself turned a Ready=True node not ready.
// Upstream then records the node event NodeNotReady and marks every pod on the node
// NotReady ([MarkPodNotReady]); a kubelet posting Ready=False itself triggers neither.
func (h Health) BecameNotReady() bool {
	return h.Observed.Status == v1.ConditionTrue && h.Current != nil && h.Current.Status != v1.ConditionTrue
}

// Saved returns the state to remember for the node once the judgement is carried out: Written
// when there is a Status to write (and it was written), Probe otherwise. When writing Status
// failed, remember Probe instead.
func (h Health) Saved() Probe {
	if h.Status != nil {
		return h.Written
	}
	return h.Probe
}

// Evaluate judges a node's health from its status, its cached Lease (nil if none) and the
// state saved by the previous judgement (nil if never seen), at time now. It never modifies
// its arguments. With the lease circuit breaker on (the default), an expired node yields [NeedsLeaseCheck];
// answer it with [EvaluateWithLiveLease].
//
// The rules, in upstream's order: a node without a Ready condition gets the startup grace
// period counted from its creation; a Ready condition whose LastHeartbeatTime differs from
// the saved one (Go struct inequality: the same instant in another Location differs) moves
// ProbeTime to now, and ReadyTransitionTime too if LastTransitionTime differs; a Lease whose
// RenewTime is after the saved one moves ProbeTime to now; the node is expired iff now is
// strictly after ProbeTime + grace. As upstream, a new status heartbeat replaces the saved
// record without its Lease, so the next judgement counts an unchanged Lease as renewed once.
func Evaluate(node *v1.Node, lease *coordinationv1.Lease, saved *Probe, now time.Time, cfg Config) Health {
	return evaluate(node, lease, saved, nil, now, cfg.Effective())
}

// EvaluateWithLiveLease is [Evaluate] once the live Lease has been fetched after a
// [NeedsLeaseCheck]; pass the same node, cached Lease and saved Probe as to Evaluate (not the
// Probe it returned). A live Lease that is NotFound or has the saved resourceVersion lets the
// node be marked Unknown; any other resourceVersion yields [Skipped]. With the breaker off it
// is Evaluate.
func EvaluateWithLiveLease(node *v1.Node, lease *coordinationv1.Lease, saved *Probe, live LiveLease, now time.Time, cfg Config) Health {
	return evaluate(node, lease, saved, &live, now, cfg.Effective())
}

// evaluate is Evaluate on an effective cfg.
func evaluate(node *v1.Node, lease *coordinationv1.Lease, saved *Probe, live *LiveLease, now time.Time, cfg Config) Health {
	var h Health
	if node == nil {
		node = &v1.Node{}
	}
	created := node.CreationTimestamp
	ready := findCondition(node.Status.Conditions, v1.NodeReady)

	var p Probe
	known := saved != nil
	if known {
		p = *saved
	}
	if ready == nil {
		h.Observed = v1.NodeCondition{
			Type:               v1.NodeReady,
			Status:             v1.ConditionUnknown,
			LastHeartbeatTime:  created,
			LastTransitionTime: created,
		}
		h.Grace = cfg.StartupGracePeriod
		if known {
			p.Ready = nil // the saved status is replaced by the current one, which has no Ready
		} else {
			p = Probe{ProbeTime: created.Time, ReadyTransitionTime: created.Time}
			known = true
		}
	} else {
		h.Observed = *ready
		h.Grace = cfg.MonitorGracePeriod
	}

	// Refresh from the status. Every branch that replaces the saved status drops the saved
	// Lease (upstream builds a new record without it); the Lease step below may restore it.
	savedLease := p.Lease
	switch {
	case !known, p.Ready == nil && ready != nil:
		p = Probe{ProbeTime: now, ReadyTransitionTime: now, Ready: copyCondition(ready)}
	case p.Ready != nil && ready != nil && p.Ready.LastHeartbeatTime != ready.LastHeartbeatTime:
		tr := p.ReadyTransitionTime
		if p.Ready.LastTransitionTime != ready.LastTransitionTime {
			tr = now
		}
		p = Probe{ProbeTime: now, ReadyTransitionTime: tr, Ready: copyCondition(ready)}
	}

	// Refresh from the Lease.
	if lease != nil && (savedLease == nil || savedLease.RenewTime.Before(lease.Spec.RenewTime)) {
		p.Lease = saveLease(lease)
		p.ProbeTime = now
	}
	h.Probe = p

	if !now.After(p.ProbeTime.Add(h.Grace)) {
		h.Verdict = Fresh
		h.Current = copyCondition(ready)
		return h
	}

	if !cfg.DisableLeaseCircuitBreaker {
		if live == nil {
			h.Verdict = NeedsLeaseCheck
			return h
		}
		savedRV := ""
		if p.Lease != nil {
			savedRV = p.Lease.ResourceVersion
		}
		if live.Found && live.ResourceVersion != savedRV {
			h.Verdict = Skipped
			h.LiveLeaseRV = live.ResourceVersion
			return h
		}
	}

	h.Verdict = Expired
	status := node.Status.DeepCopy()
	markUnknown(status, created, metav1.NewTime(now))
	cur := findCondition(status.Conditions, v1.NodeReady)
	h.Current = cur
	if sameCondition(cur, &h.Observed) {
		return h // Ready was already Unknown: nothing is written, pressure changes are dropped
	}
	h.Status = status
	h.Written = Probe{
		ProbeTime:           p.ProbeTime,
		ReadyTransitionTime: now,
		Ready:               copyCondition(cur),
		Lease:               saveLease(lease),
	}
	return h
}

// markUnknown turns Ready and the pressure conditions of status Unknown in place, appending
// the ones the kubelet never posted, in upstream's order. NetworkUnavailable is managed by the
// control plane and never touched.
func markUnknown(status *v1.NodeStatus, created, now metav1.Time) {
	for _, t := range [...]v1.NodeConditionType{v1.NodeReady, v1.NodeMemoryPressure, v1.NodeDiskPressure, v1.NodePIDPressure} {
		c := findCondition(status.Conditions, t)
		switch {
		case c == nil:
			status.Conditions = append(status.Conditions, v1.NodeCondition{
				Type:               t,
				Status:             v1.ConditionUnknown,
				Reason:             ReasonStatusNeverUpdated,
				Message:            MessageStatusNeverUpdated,
				LastHeartbeatTime:  created,
				LastTransitionTime: now,
			})
		case c.Status != v1.ConditionUnknown:
			c.Status = v1.ConditionUnknown
			c.Reason = ReasonStatusUnknown
			c.Message = MessageStatusUnknown
			c.LastTransitionTime = now
		}
	}
}

// findCondition returns the first condition of type t, or nil.
func findCondition(conds []v1.NodeCondition, t v1.NodeConditionType) *v1.NodeCondition {
	for i := range conds {
		if conds[i].Type == t {
			return &conds[i]
		}
	}
	return nil
}

// sameCondition is apimachinery's semantic equality for node conditions: times compare as
// instants.
func sameCondition(a, b *v1.NodeCondition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message &&
		a.LastHeartbeatTime.Time.Equal(b.LastHeartbeatTime.Time) &&
		a.LastTransitionTime.Time.Equal(b.LastTransitionTime.Time)
}

func copyCondition(c *v1.NodeCondition) *v1.NodeCondition {
	if c == nil {
		return nil
	}
	cp := *c
	return &cp
}

func saveLease(l *coordinationv1.Lease) *SavedLease {
	if l == nil {
		return nil
	}
	s := &SavedLease{ResourceVersion: l.ResourceVersion}
	if l.Spec.RenewTime != nil {
		rt := *l.Spec.RenewTime
		s.RenewTime = &rt
	}
	return s
}

// LeaseCacheBehind reports whether the lease cache, synced up to resourceVersion synced, has
// not yet caught up with recorded, the newest live Lease resourceVersion a [Skipped] verdict
// reported (upstream's controller-wide consistency check, step 1 of the circuit breaker).
// While it is behind, upstream skips every node. Once it is not, forget recorded. Empty or
// malformed versions never count as behind. To keep the newest of several recorded versions,
// use [NewerResourceVersion].
func LeaseCacheBehind(recorded, synced string) bool {
	if recorded == "" || synced == "" {
		return false
	}
	c, err := resourceversion.CompareResourceVersion(recorded, synced)
	return err == nil && c > 0
}

// NewerResourceVersion returns which of the recorded and the newly seen resourceVersion the
// circuit breaker keeps: seen, unless recorded is known to be at least as new (upstream
// ownerRecord.WroteAt; a malformed pair keeps seen).
func NewerResourceVersion(recorded, seen string) string {
	if recorded == "" {
		return seen
	}
	if c, err := resourceversion.CompareResourceVersion(recorded, seen); err == nil && c >= 0 {
		return recorded
	}
	return seen
}
