package thresholds

import (
	"fmt"
	"maps"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
)

// DefaultPressureTransitionPeriod is the kubelet's default
// --eviction-pressure-transition-period.
const DefaultPressureTransitionPeriod = 5 * time.Minute

// Options configures an [Evaluator]. The zero value is the kubelet's default
// configuration.
type Options struct {
	// PressureTransitionPeriod is how long a node condition stays reported
	// after it was last observed. Zero means
	// [DefaultPressureTransitionPeriod], as in the kubelet configuration;
	// a negative value reports no condition at all, which is what the
	// kubelet does for an explicit --eviction-pressure-transition-period=0s.
	PressureTransitionPeriod time.Duration
	// MaxPodGracePeriodSeconds is --eviction-max-pod-grace-period, the kill
	// grace period of pods evicted for a soft threshold (default 0).
	MaxPodGracePeriodSeconds int64
}

// Evaluator runs the kubelet eviction manager's threshold pipeline
// (synchronize) over successive observation cycles and keeps the state that
// links them: when each threshold was first met, when each node condition was
// last seen, which thresholds drove eviction last cycle, and the last
// observations. It decides which resource to reclaim; ranking and evicting
// pods is left to the caller.
//
// An Evaluator is not safe for concurrent use.
type Evaluator struct {
	thresholds []Threshold
	period     time.Duration
	maxGrace   int64

	prevMet    []Threshold
	first      ThresholdTimes
	condLast   ConditionTimes
	conditions []v1.NodeConditionType
	lastObs    Observations
}

// NewEvaluator returns an Evaluator for the configured thresholds ts, as
// produced by [ParseConfig] and, once the disk layout is known,
// [WithContainerFs]. ts is copied. Two thresholds that are
// [Threshold.Equivalent] but differ in MinReclaim are rejected with an error
// wrapping [ErrConflictingThresholds]: the kubelet's merge would treat them
// as one and keep whichever it met first.
func NewEvaluator(ts []Threshold, opts Options) (*Evaluator, error) {
	for i, t := range ts {
		for _, u := range ts[:i] {
			if t.Equivalent(u) && !t.Equal(u) {
				return nil, fmt.Errorf("thresholds: %q (grace period %v): %w: two minimum reclaims", t.String(), t.GracePeriod, ErrConflictingThresholds)
			}
		}
	}
	period := opts.PressureTransitionPeriod
	if period == 0 {
		period = DefaultPressureTransitionPeriod
	}
	return &Evaluator{
		thresholds: slices.Clone(ts),
		period:     period,
		maxGrace:   opts.MaxPodGracePeriodSeconds,
	}, nil
}

// Result is what one evaluation cycle decided.
type Result struct {
	// Met are the thresholds met this cycle ignoring grace periods, followed
	// by those that drove eviction last cycle and are still met with their
	// minimum reclaim added.
	Met []Threshold
	// Eligible are the thresholds of Met whose grace period has passed.
	Eligible []Threshold
	// Fresh are the thresholds of Eligible whose signal has statistics newer
	// than last cycle's; only they may drive eviction.
	Fresh []Threshold
	// Conditions are the node conditions to report: those observed within
	// the pressure transition period, in the order MemoryPressure,
	// DiskPressure, PIDPressure.
	Conditions []v1.NodeConditionType
	// Reclaim is true when a resource must be reclaimed this cycle.
	Reclaim bool
	// Threshold is the threshold to reclaim for, the first of Fresh by
	// eviction priority ([StarvedResources]); valid if Reclaim.
	Threshold Threshold
	// Signal is Threshold.Signal; it selects the pod ranking (memory, disk or
	// PIDs) and the node-level reclaim actions ([NodeReclaimActions]).
	Signal Signal
	// Resource is the starved resource: memory, ephemeral-storage,
	// [ResourceInodes] or [ResourcePIDs].
	Resource v1.ResourceName
	// Soft is true when Threshold is a soft threshold: evicted pods then get
	// a grace period of up to MaxPodGracePeriodSeconds instead of 1 second.
	Soft bool
	// MaxPodGracePeriodSeconds is the evaluator's configured maximum, used
	// by [Result.GracePeriodOverride].
	MaxPodGracePeriodSeconds int64
}

// GracePeriodOverride returns the kill grace period, in seconds, for
// evicting pod to reclaim r.Threshold ([KillGracePeriod]).
func (r Result) GracePeriodOverride(pod *v1.Pod) int64 {
	var podGrace *int64
	if pod != nil {
		podGrace = pod.Spec.TerminationGracePeriodSeconds
	}
	return KillGracePeriod(r.Threshold, r.MaxPodGracePeriodSeconds, podGrace)
}

// Observe runs one cycle of the kubelet's synchronize on the observations
// obs taken at now, updates the evaluator's state and returns the decision:
//
//  1. thresholds met ignoring grace periods ([Met]), merged ([Merge]) with
//     last cycle's eligible thresholds still met with min-reclaim enforced;
//  2. first-observed times ([FirstObservedAt]);
//  3. node conditions of the met thresholds, their last-observed times, and
//     those within the pressure transition period
//     ([NodeConditionsObservedSince]);
//  4. thresholds past their grace period ([MetGracePeriod]), remembered for
//     the next cycle;
//  5. of those, the ones with updated statistics ([UpdatedStats]); obs
//     becomes the last observations;
//  6. the threshold and resource to reclaim ([StarvedResources]).
//
// With no configured thresholds it does nothing and returns an empty Result.
// Observations with a nil Available count as absent. obs is not modified;
// the evaluator keeps a shallow copy of its present observations.
func (e *Evaluator) Observe(now time.Time, obs Observations) Result {
	r := Result{MaxPodGracePeriodSeconds: e.maxGrace}
	if len(e.thresholds) == 0 {
		return r
	}
	met := Met(e.thresholds, obs, false)
	if len(e.prevMet) > 0 {
		met = Merge(met, Met(e.prevMet, obs, true))
	}
	first := FirstObservedAt(met, e.first, now)
	condLast := NodeConditionsLastObservedAt(NodeConditions(met), e.condLast, now)
	conditions := NodeConditionsObservedSince(condLast, e.period, now)
	eligible := MetGracePeriod(first, now)

	e.conditions = conditions
	e.first = first
	e.condLast = condLast
	e.prevMet = eligible
	fresh := UpdatedStats(eligible, obs, e.lastObs)
	e.lastObs = obs.present()

	r.Met, r.Eligible, r.Fresh = met, slices.Clone(eligible), fresh
	r.Conditions = slices.Clone(conditions)
	if t, res, ok := StarvedResources(fresh); ok {
		r.Reclaim, r.Threshold, r.Signal, r.Resource, r.Soft = true, t, t.Signal, res, !t.IsHard()
	}
	return r
}

// Conditions returns the node conditions reported after the last cycle.
func (e *Evaluator) Conditions() []v1.NodeConditionType {
	return slices.Clone(e.conditions)
}

// UnderPressure reports whether condition c (MemoryPressure, DiskPressure or
// PIDPressure) was reported after the last cycle.
func (e *Evaluator) UnderPressure(c v1.NodeConditionType) bool {
	return slices.Contains(e.conditions, c)
}

// Thresholds returns a copy of the configured thresholds.
func (e *Evaluator) Thresholds() []Threshold {
	return slices.Clone(e.thresholds)
}

// ReclaimSatisfied reports whether node-level reclaim (garbage collection,
// see [NodeReclaimActions]) made pod eviction unnecessary: no configured
// threshold, of any signal and regardless of grace period, is met on obs with
// minimum reclaim enforced. Like the kubelet, an unrelated met threshold
// (for example a soft memory threshold still in its grace period) makes a
// disk reclaim count as failed. It does not change the evaluator's state.
func (e *Evaluator) ReclaimSatisfied(obs Observations) bool {
	return len(Met(e.thresholds, obs, true)) == 0
}

// State is a snapshot of an [Evaluator]'s memory between cycles.
type State struct {
	// PrevMet are the thresholds that passed their grace period last cycle.
	PrevMet []Threshold
	// FirstObserved records when each currently met threshold was first met.
	FirstObserved ThresholdTimes
	// ConditionLastObserved records when each node condition was last seen.
	ConditionLastObserved ConditionTimes
	// Conditions are the reported node conditions.
	Conditions []v1.NodeConditionType
	// LastObservations are the present observations of the last cycle
	// (those with a non-nil Available).
	LastObservations Observations
}

// State returns a copy of the evaluator's state.
func (e *Evaluator) State() State {
	return State{
		PrevMet:               slices.Clone(e.prevMet),
		FirstObserved:         slices.Clone(e.first),
		ConditionLastObserved: maps.Clone(e.condLast),
		Conditions:            slices.Clone(e.conditions),
		LastObservations:      maps.Clone(e.lastObs),
	}
}
