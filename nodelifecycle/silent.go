package nodelifecycle

import (
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/taints"
)

// Schedule is upstream's monitor loop (wait.Until over monitorNodeHealth): a pass at Start,
// then one every Period, each pass taking no time. A Period ≤ 0 means the controller looks
// continuously (upstream then loops without pause). Times are exact within ±292 years of
// Start.
type Schedule struct {
	Start  time.Time
	Period time.Duration
}

// Schedule returns the monitor loop of a controller started at start, with period
// c.MonitorPeriod.
func (c Config) Schedule(start time.Time) Schedule {
	return Schedule{Start: start, Period: c.MonitorPeriod}
}

// AtOrAfter returns the first pass at or after t (Start when t is before Start).
func (s Schedule) AtOrAfter(t time.Time) time.Time {
	if t.Before(s.Start) {
		return s.Start
	}
	if s.Period <= 0 {
		return t
	}
	if rem := t.Sub(s.Start) % s.Period; rem != 0 {
		return t.Add(s.Period - rem)
	}
	return t
}

// After returns the first pass strictly after t (Start when t is before Start).
func (s Schedule) After(t time.Time) time.Time {
	if t.Before(s.Start) {
		return s.Start
	}
	if s.Period <= 0 {
		return t.Add(time.Nanosecond)
	}
	return t.Add(s.Period - t.Sub(s.Start)%s.Period)
}

// Silence is the timeline of a node that stops heartbeating, as [SilentNode] computes it.
type Silence struct {
	// Observed is the pass that saw the last sign of life: the node's ProbeTime.
	Observed time.Time
	// Unknown is the first pass that finds the grace period over (strictly after Observed +
	// MonitorGracePeriod) and writes Ready, MemoryPressure, DiskPressure and PIDPressure
	// Unknown. v1.37 queues the node for its NoExecute taint in the same pass.
	Unknown time.Time
	// Taint is the NoExecute taint the node is queued for at Unknown (unreachable, TimeAdded
	// unset), added as soon as its zone's rate limiter hands out a token: at once when the
	// zone's bucket is full, as it is in a quiet Normal zone ([HandleDisruption] gives the
	// zone's rate). Zero in the legacy mode.
	Taint v1.Taint
	// PodEvictionDue is, in the legacy mode (TaintBasedEviction false, v1.26 semantics),
	// the first pass that finds the pods due for deletion: strictly after both Unknown
	// (that pass itself still sees Ready True) and Observed + PodEvictionTimeout. The node
	// is then queued; its pods are deleted when the zone's token allows. Zero in taint mode.
	PodEvictionDue time.Time
}

// SilentNode answers "the node's last heartbeat reached the API server at lastBeat, then
// nothing": when the controller running on schedule s marks it Unknown, which NoExecute
// taint it gets and, in the legacy mode, when its pods become due for deletion. The node is
// assumed to have posted a Ready condition (MonitorGracePeriod applies), to be known to the
// controller, and its zone not to be in the all-zones-down mode.
//
// The grace period counts from the pass that observed the heartbeat, not from the heartbeat
// itself, because upstream stamps ProbeTime with its own clock: with the defaults (5 s
// period, 50 s grace) a node is marked 55 s after that pass. The timeline assumes that pass
// saw a Lease renewal (the kubelet renews every 10 s); had it seen only a new status
// heartbeat, upstream drops the saved Lease and re-saves it in the next pass, which moves
// ProbeTime one period later.
func SilentNode(lastBeat time.Time, s Schedule, cfg Config) Silence {
	var out Silence
	out.Observed = s.AtOrAfter(lastBeat)
	out.Unknown = s.After(out.Observed.Add(cfg.MonitorGracePeriod))
	if cfg.TaintBasedEviction {
		out.Taint = taints.UnreachableNoExecute()
		return out
	}
	due := out.Observed.Add(cfg.PodEvictionTimeout)
	out.PodEvictionDue = s.After(laterOf(due, out.Unknown))
	return out
}

func laterOf(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
