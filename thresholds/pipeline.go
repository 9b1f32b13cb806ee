package thresholds

import (
	"cmp"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
)

// ImmediateEvictionGracePeriodSeconds is the kill grace period, in seconds,
// of a pod evicted for a hard threshold.
const ImmediateEvictionGracePeriodSeconds int64 = 1

// Met returns, in the order of ts, the thresholds whose signal is observed
// and whose value, resolved against the observed capacity, is strictly
// greater than the available amount; grace periods are ignored (upstream
// thresholdsMet). With enforceMinReclaim, the resolved MinReclaim is added to
// the value first, so a threshold stays met until value + min-reclaim is
// available. Thresholds on unknown signals are never met. Neither ts nor obs
// is modified.
func Met(ts []Threshold, obs Observations, enforceMinReclaim bool) []Threshold {
	var out []Threshold
	for i, t := range ts {
		if ob, ok := obs.get(t.Signal); ok && isMet(t, ob, enforceMinReclaim) {
			out = appendSized(out, t, len(ts)-i)
		}
	}
	return out
}

func isMet(t Threshold, ob Observation, enforceMinReclaim bool) bool {
	if !t.Signal.Valid() {
		return false
	}
	q := t.Value.Resolve(ob.Capacity)
	if enforceMinReclaim && t.MinReclaim != nil {
		q.Add(t.MinReclaim.Resolve(ob.Capacity))
	}
	return q.Cmp(*ob.Available) > 0
}

// appendSized appends t to out, allocating room for at most rest elements
// on the first append: filters allocate once, and not at all when nothing
// passes.
func appendSized(out []Threshold, t Threshold, rest int) []Threshold {
	if out == nil {
		out = make([]Threshold, 0, rest)
	}
	return append(out, t)
}

// Merge returns a followed by each threshold of b that is not
// [Threshold.Equivalent] to one already in the result (upstream
// mergeThresholds). Duplicates within a are kept. Neither input is modified.
func Merge(a, b []Threshold) []Threshold {
	out := slices.Clone(a)
	for _, t := range b {
		if !slices.ContainsFunc(out, t.Equivalent) {
			out = append(out, t)
		}
	}
	return out
}

// ThresholdTime pairs a threshold with the time it was first observed met.
type ThresholdTime struct {
	// Threshold is the threshold.
	Threshold Threshold
	// Time is when it was first observed met.
	Time time.Time
}

// ThresholdTimes records when thresholds were first observed met, in the
// order they were met. It replaces upstream's map keyed by the threshold
// struct (pointer identity); entries are found by [Threshold.Equal].
type ThresholdTimes []ThresholdTime

// Lookup returns the time of the first entry whose threshold is
// [Threshold.Equal] to t.
func (tt ThresholdTimes) Lookup(t Threshold) (time.Time, bool) {
	i := slices.IndexFunc(tt, func(e ThresholdTime) bool { return e.Threshold.Equal(t) })
	if i < 0 {
		return time.Time{}, false
	}
	return tt[i].Time, true
}

// FirstObservedAt returns, for each threshold of ts in order, the time it
// was first observed met: its time in prev if it is there, now otherwise
// (upstream thresholdsFirstObservedAt). Entries of prev for thresholds not in
// ts are dropped, so a soft threshold that stops being met for one cycle
// restarts its grace period.
func FirstObservedAt(ts []Threshold, prev ThresholdTimes, now time.Time) ThresholdTimes {
	out := make(ThresholdTimes, 0, len(ts))
	for _, t := range ts {
		at, ok := prev.Lookup(t)
		if !ok {
			at = now
		}
		out = append(out, ThresholdTime{Threshold: t, Time: at})
	}
	return out
}

// MetGracePeriod returns the thresholds of observed that have been met for
// at least their grace period at now (now - first observed >= grace period;
// hard thresholds always qualify), in the order of observed (upstream
// thresholdsMetGracePeriod, whose order is random).
func MetGracePeriod(observed ThresholdTimes, now time.Time) []Threshold {
	var out []Threshold
	for i, e := range observed {
		if now.Sub(e.Time) >= e.Threshold.GracePeriod {
			out = appendSized(out, e.Threshold, len(observed)-i)
		}
	}
	return out
}

// NodeConditions returns the distinct node conditions of the signals of ts,
// in order of first appearance (upstream nodeConditions). Grace periods play
// no part: a soft threshold sets its pressure condition as soon as it is
// met. Unknown signals have no condition.
func NodeConditions(ts []Threshold) []v1.NodeConditionType {
	var out []v1.NodeConditionType
	for _, t := range ts {
		if c, ok := t.Signal.NodeCondition(); ok && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// ConditionTimes records when each node condition was last observed.
type ConditionTimes map[v1.NodeConditionType]time.Time

// NodeConditionsLastObservedAt returns prev updated with now as the last
// observation time of every condition in conds (upstream
// nodeConditionsLastObservedAt). Entries never expire. prev is not modified.
func NodeConditionsLastObservedAt(conds []v1.NodeConditionType, prev ConditionTimes, now time.Time) ConditionTimes {
	out := make(ConditionTimes, len(prev)+len(conds))
	for c, at := range prev {
		out[c] = at
	}
	for _, c := range conds {
		out[c] = now
	}
	return out
}

// NodeConditionsObservedSince returns the conditions of observed last seen
// less than period before now (now - last < period, so a period of 0 reports
// nothing), in the order MemoryPressure, DiskPressure, PIDPressure, then any
// other by name (upstream nodeConditionsObservedSince, whose order is
// random).
func NodeConditionsObservedSince(observed ConditionTimes, period time.Duration, now time.Time) []v1.NodeConditionType {
	var out []v1.NodeConditionType
	for c, at := range observed {
		if now.Sub(at) < period {
			out = append(out, c)
		}
	}
	slices.SortFunc(out, compareConditions)
	return out
}

func compareConditions(a, b v1.NodeConditionType) int {
	rank := func(c v1.NodeConditionType) int {
		switch c {
		case v1.NodeMemoryPressure:
			return 0
		case v1.NodeDiskPressure:
			return 1
		case v1.NodePIDPressure:
			return 2
		}
		return 3
	}
	return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b))
}

// UpdatedStats returns the thresholds of ts whose signal has an observation
// in obs that is newer than the one in last: there is none in last, the new
// time is zero, or it is strictly after the last one (upstream
// thresholdsUpdatedStats). Thresholds on unobserved signals are dropped. This
// keeps the kubelet from evicting twice on the same statistics. In both obs
// and last an observation with a nil Available counts as absent, so a
// threshold whose previous observation had no available amount is kept.
func UpdatedStats(ts []Threshold, obs, last Observations) []Threshold {
	var out []Threshold
	for i, t := range ts {
		ob, ok := obs.get(t.Signal)
		if !ok {
			continue
		}
		prev, seen := last.get(t.Signal)
		if !seen || ob.Time.IsZero() || ob.Time.After(prev.Time) {
			out = appendSized(out, t, len(ts)-i)
		}
	}
	return out
}

// CompareEvictionPriority orders thresholds by the priority of reclaiming
// their resource: memory.available, then allocatableMemory.available, then
// every other valid signal, then unknown signals; within each class hard
// thresholds come before soft ones. It is a strict weak ordering; equal
// thresholds are left to a stable sort. Upstream's byEvictionPriority only
// puts the two memory signals first and unknown signals last, leaving the
// rest to an unstable sort of a randomly ordered list.
func CompareEvictionPriority(a, b Threshold) int {
	return cmp.Or(
		cmp.Compare(priorityClass(a.Signal), priorityClass(b.Signal)),
		cmpBool(a.IsHard(), b.IsHard()),
	)
}

func priorityClass(s Signal) int {
	switch {
	case s == MemoryAvailable:
		return 0
	case s == AllocatableMemoryAvailable:
		return 1
	case s.Valid():
		return 2
	}
	return 3
}

// cmpBool orders true before false.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// ByEvictionPriority returns a copy of ts stably sorted by
// [CompareEvictionPriority]: ties keep their order in ts.
func ByEvictionPriority(ts []Threshold) []Threshold {
	out := slices.Clone(ts)
	slices.SortStableFunc(out, CompareEvictionPriority)
	return out
}

// ReclaimableThreshold returns the first threshold of ts whose signal has a
// resource to reclaim, and that resource (upstream getReclaimableThreshold).
// ok is false if there is none.
func ReclaimableThreshold(ts []Threshold) (t Threshold, res v1.ResourceName, ok bool) {
	for _, t := range ts {
		if res, ok := t.Signal.Resource(); ok {
			return t, res, true
		}
	}
	return Threshold{}, "", false
}

// StarvedResources picks the threshold to reclaim from ts, the thresholds
// that passed their grace period on fresh statistics: the first reclaimable
// threshold after sorting by eviction priority, as the kubelet's synchronize
// does with sort.Sort(byEvictionPriority) and getReclaimableThreshold. ok is
// false when no threshold has a resource. ts is not modified.
func StarvedResources(ts []Threshold) (t Threshold, res v1.ResourceName, ok bool) {
	return ReclaimableThreshold(ByEvictionPriority(ts))
}

// KillGracePeriod returns the grace period, in seconds, the kubelet gives a
// pod it evicts to reclaim t: [ImmediateEvictionGracePeriodSeconds] for a
// hard threshold; for a soft one maxPodGracePeriodSeconds, lowered to the
// pod's terminationGracePeriodSeconds if podGracePeriodSeconds is non-nil and
// smaller. Zero or negative values pass through unchanged (the flag's help
// text promises that a negative maximum defers to the pod, but the code does
// not); the pod worker later raises anything below 1 to 1.
func KillGracePeriod(t Threshold, maxPodGracePeriodSeconds int64, podGracePeriodSeconds *int64) int64 {
	if t.IsHard() {
		return ImmediateEvictionGracePeriodSeconds
	}
	if podGracePeriodSeconds != nil {
		return min(maxPodGracePeriodSeconds, *podGracePeriodSeconds)
	}
	return maxPodGracePeriodSeconds
}
