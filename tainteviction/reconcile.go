package tainteviction

import (
	"time"

	"github.com/evictkit/eviction/tolerations"
)

// Scheduled is the eviction already queued for a pod, as a timed queue reports it.
type Scheduled struct {
	// CreatedAt is when the eviction was first decided.
	CreatedAt time.Time
	// FireAt is when it runs (or ran).
	FireAt time.Time
	// Running is true once the eviction has started.
	Running bool
}

// Action tells a controller what to do to its timed queue for one pod key: first Cancel(key)
// if Cancel, then Add(key, CreatedAt, FireAt) if Add. The zero Action means "leave it".
type Action struct {
	// Cancel: cancel the queued eviction. Emit upstream's "Cancelling deletion of Pod"
	// event only when the queue reports that it cancelled something.
	Cancel bool
	// Add: queue an eviction with CreatedAt and FireAt (a no-op on a queue whose key is
	// still taken by a running eviction).
	Add bool
	// CreatedAt and FireAt are the times to queue with, when Add.
	CreatedAt, FireAt time.Time
}

// String describes the action: "keep", "cancel", "add(created …, fire …)" or
// "cancel, add(created …, fire …)", times in RFC 3339 with nanoseconds.
func (a Action) String() string {
	add := "add(created " + a.CreatedAt.Format(time.RFC3339Nano) + ", fire " + a.FireAt.Format(time.RFC3339Nano) + ")"
	switch {
	case a.Cancel && a.Add:
		return "cancel, " + add
	case a.Cancel:
		return "cancel"
	case a.Add:
		return add
	}
	return "keep"
}

// Reconcile turns a [tolerations.Decision] made at now into the queue operations upstream's taint
// eviction controller performs (processPodOnNode), given the eviction already queued for the
// pod (nil if none):
//
//   - Never: cancel.
//   - EvictNow: cancel, then add (now, now): the pod goes at once, even when an eviction was
//     scheduled for later.
//   - EvictAfter(d), nothing queued: add (now, now+d).
//   - EvictAfter(d), an eviction queued with CreatedAt before now: keep it unchanged, even if
//     d grew or shrank (to 0 included): a running toleration clock is never restarted.
//   - EvictAfter(d), an eviction queued with CreatedAt not before now (the same instant, or
//     a clock that went back): cancel, then add (old CreatedAt, now+d).
//
// Upstream cannot see an eviction that started at once (its queue stores nil for it), so an
// existing Running item whose FireAt is not after its CreatedAt counts as "nothing queued",
// and upstream's add that follows is a no-op on the busy key: Reconcile returns a zero
// Action. With these rules a controller on package timedqueue (Add(key, value, createdAt,
// fireAt) bool, Cancel(key) bool, Get) reproduces upstream's schedule exactly; [Controller] is one.
// Reconcile is pure.
func Reconcile(d tolerations.Decision, existing *Scheduled, now time.Time) Action {
	if existing == nil {
		return reconcile(d, Scheduled{}, false, now)
	}
	return reconcile(d, *existing, true, now)
}

// reconcile is [Reconcile] with the queued eviction passed by value, so
// that the hot path allocates nothing.
func reconcile(d tolerations.Decision, existing Scheduled, queued bool, now time.Time) Action {
	switch d.Kind {
	case tolerations.Never:
		return Action{Cancel: true}
	case tolerations.EvictNow:
		return Action{Cancel: true, Add: true, CreatedAt: now, FireAt: now}
	case tolerations.EvictAfter:
	default:
		return Action{}
	}
	fireAt := now.Add(d.Delay)
	if !queued {
		return Action{Add: true, CreatedAt: now, FireAt: fireAt}
	}
	if existing.Running && !existing.FireAt.After(existing.CreatedAt) {
		return Action{} // started at once: invisible upstream, and its key is busy
	}
	// Upstream compares createdAt+d with now+d rather than createdAt with now.
	if existing.CreatedAt.Add(d.Delay).Before(fireAt) {
		return Action{}
	}
	return Action{Cancel: true, Add: true, CreatedAt: existing.CreatedAt, FireAt: fireAt}
}
