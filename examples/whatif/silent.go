package main

import (
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/nodelifecycle"
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

// scheduleOf returns the monitor loop of a controller started at start, with the period of
// cfg.
func scheduleOf(cfg nodelifecycle.Config, start time.Time) Schedule {
	return Schedule{Start: start, Period: cfg.Effective().MonitorPeriod}
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
	// Unknown; v1.37 queues the node for its NoExecute taint in the same pass.
	Unknown time.Time
	// Taint is the NoExecute taint the node is queued for at Unknown (unreachable, TimeAdded
	// unset), added as soon as its zone's rate limiter hands out a token.
	Taint v1.Taint
}

// SilentNode answers "the node's last heartbeat reached the API server at lastBeat, then
// nothing": when the controller running on schedule s marks it Unknown and which NoExecute
// taint it gets. The node is assumed to have posted a Ready condition (MonitorGracePeriod
// applies), to be known to the controller, and its zone not to be in the all-zones-down mode.
//
// The grace period counts from the pass that observed the heartbeat, not from the heartbeat
// itself, because upstream stamps ProbeTime with its own clock: with the defaults (5 s
// period, 50 s grace) a node is marked 55 s after that pass.
func SilentNode(lastBeat time.Time, s Schedule, cfg nodelifecycle.Config) Silence {
	observed := s.AtOrAfter(lastBeat)
	return Silence{
		Observed: observed,
		Unknown:  s.After(observed.Add(cfg.Effective().MonitorGracePeriod)),
		Taint:    taints.UnreachableNoExecute(),
	}
}
