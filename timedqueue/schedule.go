package timedqueue

import "time"

// Schedule is the synchronous part of a [Queue]: keyed items due at
// times, with no clock, no goroutine and no lock. Its caller (a
// controller's core) takes the due items with [Schedule.Start], has them
// carried out, and reports each back with [Schedule.Finish] or
// [Schedule.Retry]. The rules are the Queue's:
//
//   - Items start in (due time, insertion) order, each at most once per
//     attempt.
//   - A key never has two items started at once: an Add of a key whose
//     item has started (and is not reported yet) holds the new item,
//     pending, until the started one is reported.
//   - The first Add of a pending key wins; Cancel of a pending item means it
//     never starts; Cancel of a started item reports false and releases
//     the key, so that a later Add schedules a new item (held until the
//     started one is reported).
//   - A retried item keeps its FireAt and counts one more failed attempt;
//     a retry of a released item is dropped.
//
// The zero Schedule is empty and ready to use. It is not safe for
// concurrent use. Costs are those of the Queue's heap (see the package
// documentation).
type Schedule[K comparable, V any] struct {
	h heap[K, V]
}

// Add schedules key with value, due once now reaches fireAt, and reports
// true. It reports false and changes nothing when key is already pending.
// When key's item has started, the new item is held (pending: Get and
// Cancel act on it) until the started one is reported. O(log n).
func (s *Schedule[K, V]) Add(key K, value V, createdAt, fireAt time.Time) bool {
	return s.Entry(key).Add(value, createdAt, fireAt)
}

// Cancel removes key and reports whether a pending item was removed. A
// started item is not stopped, but its key is released at once; Cancel
// reports false then, as for an absent key. O(log n).
func (s *Schedule[K, V]) Cancel(key K) bool { return s.Entry(key).Cancel() }

// Get returns a copy of the item stored for key, pending or started (State
// Running); when a new item is held behind a started one, the new item.
// O(1).
func (s *Schedule[K, V]) Get(key K) (Item[K, V], bool) { return s.h.Get(key) }

// Len returns the number of keys held: pending items (held ones included)
// plus started items whose key was not released. O(1).
func (s *Schedule[K, V]) Len() int { return s.h.Len() + s.h.running }

// Pending returns the number of pending items (held ones included). O(1).
func (s *Schedule[K, V]) Pending() int { return s.h.Len() }

// NextAt returns the time at which the first pending item becomes due:
// its FireAt, or its retry time. O(1).
func (s *Schedule[K, V]) NextAt() (time.Time, bool) { return s.h.NextAt() }

// Start takes the first pending item that is due at now (its due time is
// not after now) and marks it started (State Running) until it is
// reported with Finish or Retry; it reports false when none is due.
// O(log n).
func (s *Schedule[K, V]) Start(now time.Time) (Item[K, V], bool) {
	_, it, _, ok := s.h.start(now)
	return it, ok
}

// Finish reports that key's started item is over: its key is deleted,
// unless it was released (then a newer item held behind it becomes due at
// its own time). It reports false when key has no started item. O(log n).
func (s *Schedule[K, V]) Finish(key K) bool {
	slot, ok := s.started(key)
	if ok {
		s.h.finish(slot)
	}
	return ok
}

// Retry reports that key's started item failed: it is pending again, due
// at at, with one more failed attempt and its FireAt unchanged, and Retry
// reports true. A released item is dropped instead (a newer item held
// behind it becomes due at its own time), and Retry reports false, as it
// does when key has no started item. O(log n).
func (s *Schedule[K, V]) Retry(key K, at time.Time) bool {
	slot, ok := s.started(key)
	return ok && s.h.retry(slot, at)
}

// started returns the slot of key's started item, released or not.
func (s *Schedule[K, V]) started(key K) (int32, bool) {
	if _, slot, ok := s.h.find(key, s.h.tag(key)); ok && s.h.at(slot).pos == posRunning {
		return slot, true
	}
	slot, ok := s.h.busy[key]
	return slot, ok
}

// Entry returns key's entry: its methods act as the Schedule's methods of
// the same name on that key, hashing the key once for all of them (a Get
// followed by a Cancel and an Add, as a controller's decision makes them).
func (s *Schedule[K, V]) Entry(key K) ScheduleEntry[K, V] {
	return ScheduleEntry[K, V]{s: s, key: key, tag: s.h.tag(key)}
}

// ScheduleEntry is one key of a [Schedule], from [Schedule.Entry].
type ScheduleEntry[K comparable, V any] struct {
	s   *Schedule[K, V]
	key K
	tag uint32
}

// Get is [Schedule.Get] of the entry's key.
func (e ScheduleEntry[K, V]) Get() (Item[K, V], bool) { return e.s.h.get(e.key, e.tag) }

// Add is [Schedule.Add] of the entry's key.
func (e ScheduleEntry[K, V]) Add(value V, createdAt, fireAt time.Time) bool {
	_, ok, _ := e.s.h.add(e.key, e.tag, value, createdAt, fireAt)
	return ok
}

// Cancel is [Schedule.Cancel] of the entry's key.
func (e ScheduleEntry[K, V]) Cancel() bool {
	st, _ := e.s.h.cancel(e.key, e.tag)
	return st == Pending
}
