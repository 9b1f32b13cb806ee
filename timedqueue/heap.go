package timedqueue

import (
	"cmp"
	"fmt"
	"hash/maphash"
	"math"
	"slices"
	"time"
)

// State is the life-cycle state of an [Item].
type State uint8

const (
	// Pending means the item waits in the heap for its fire time (or, with
	// [Options.Retry], for its next attempt).
	Pending State = iota + 1
	// Running means the item's work call has started and not yet returned.
	Running
)

// String returns "pending" or "running".
func (s State) String() string {
	switch s {
	case Pending:
		return "pending"
	case Running:
		return "running"
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// Item is a value copy of one scheduled key and the value stored with it:
// changing it changes nothing in the queue it came from.
type Item[K comparable, V any] struct {
	// Key identifies the item; keys compare with ==.
	Key K
	// Value is what the caller stored with the key; the queue only hands it
	// back.
	Value V
	// CreatedAt is the time the caller passed to Add; the queue only hands it
	// back.
	CreatedAt time.Time
	// FireAt is the earliest time the work may start. The work function
	// receives it unchanged, also on retries.
	FireAt time.Time
	// State is Pending or Running.
	State State
	// Attempts counts the work calls for this item that have failed so far
	// (non-zero only with [Options.Retry]).
	Attempts int
}

// Slot positions below zero are states of a slot that is not in the heap.
const (
	posRunning  int32 = -1 // popped to run; its key still maps to it
	posReleased int32 = -2 // popped to run; its key was released by a cancel or a newer item
	posFree     int32 = -3 // on the free list
	posHeld     int32 = -4 // pending, but its key's previous call still runs
)

// shrinkAbove is the slab capacity at or below which a heap never gives
// its storage back.
const shrinkAbove = 4096

// The slab grows by pages of pageSize slots: growing it copies nothing, and
// it holds at most one page it does not use.
const (
	pageShift = 8
	pageSize  = 1 << pageShift
	pageMask  = pageSize - 1
)

// slot holds one item's data in the slab; the heap orders slot numbers.
// Times are wall-clock nanoseconds (see [nanos]), each shown in its own
// location.
type slot[K comparable, V any] struct {
	key        K
	value      V
	created    int64
	fire       int64
	createdLoc *time.Location // CreatedAt's location
	loc        *time.Location // FireAt's location
	pos        int32          // index in heap.elems, or one of the pos* states
	attempts   int32
}

// elem is one heap entry: the sort key inline, so sifting never leaves the
// elems array, and the slot it stands for.
type elem struct {
	due  int64  // due time, wall-clock nanoseconds
	slot int32  // the item's slot
	seq  uint32 // push order: FIFO among equal due times
}

func (a elem) less(b elem) bool {
	if a.due != b.due {
		return a.due < b.due
	}
	return a.seq < b.seq
}

// compare orders elems as the heap does; a strict weak ordering, total
// because seq is unique.
func (a elem) compare(b elem) int {
	return cmp.Or(cmp.Compare(a.due, b.due), cmp.Compare(a.seq, b.seq))
}

// Times are kept as Unix nanoseconds. The zero Time is kept as zeroNanos,
// and other times outside the int64 range (before 1678 or after 2262) are
// clamped to its ends.
const (
	zeroNanos = math.MinInt64
	minSec    = math.MinInt64/int64(time.Second) + 1
	maxSec    = math.MaxInt64/int64(time.Second) - 1
)

// nanos returns t's wall-clock time as it is stored.
func nanos(t time.Time) int64 {
	switch s := t.Unix(); {
	case s >= minSec && s <= maxSec:
		return s*int64(time.Second) + int64(t.Nanosecond())
	case t.IsZero():
		return zeroNanos
	case s < minSec:
		return zeroNanos + 1
	}
	return math.MaxInt64
}

// timeAt returns the stored time n in loc.
func timeAt(n int64, loc *time.Location) time.Time {
	if n == zeroNanos {
		return time.Time{}
	}
	return time.Unix(0, n).In(loc)
}

// heap is a synchronous min-heap of keyed items ordered by fire time, then by
// push order (FIFO among equal fire times), each with a value of type V
// (struct{} when there is none). It has no goroutine and reads no clock:
// the caller passes now to heap.PopDue. [Queue] drives one.
//
// Items live in a paged slab indexed by a hash table of its own, which
// stores each key once (in the slab); the heap array holds each item's fire
// time inline and its slab index, and every slab entry records its heap
// position, so Remove and Update are O(log n) fix-ups. Popped and removed
// entries are cleared at once. Storage is kept when the heap empties, so a
// heap that is drained and refilled does not grow it again; a large heap
// that stays below a quarter of its peak for long gives it back.
//
// Fire times compare on the wall clock (monotonic clock readings are
// ignored), so items created from different clocks order consistently.
// Times are kept to the nanosecond as wall-clock instants: CreatedAt and
// FireAt come back without their monotonic clock reading, each in its own
// location, and times before the year 1678 or after 2262 (other than the
// zero Time, which stays zero) come back clamped to that range.
//
// The zero heap is empty and ready to use. A heap is not safe for concurrent
// use. It holds at most 2³¹−1 items.
type heap[K comparable, V any] struct {
	idx     index
	pages   []*[pageSize]slot[K, V]
	nslots  int32 // slots handed out so far: the used part of pages
	free    []int32
	elems   []elem
	seq     uint32
	running int // slots in posRunning
	held    int // slots in posHeld
	lowUse  int // releases since the slab was last at least a quarter in use

	// busy maps the key of every call in posReleased to its slot, so that
	// a new item for that key is held until the call returns. It is empty
	// unless a running key was cancelled or added again.
	busy map[K]int32
}

// at returns slot s.
func (h *heap[K, V]) at(s int32) *slot[K, V] { return &h.pages[s>>pageShift][s&pageMask] }

// Len returns the number of pending items. O(1).
func (h *heap[K, V]) Len() int { return len(h.elems) + h.held }

// Push adds a pending item for key with value, due at fireAt, and reports
// true; it reports false and changes nothing when key is already present.
// O(log n).
func (h *heap[K, V]) Push(key K, value V, createdAt, fireAt time.Time) bool {
	tag := h.tag(key)
	h.idx.reserve(1)
	b, _, ok := h.find(key, tag)
	if ok {
		return false
	}
	h.pushNew(b, tag, key, value, createdAt, fireAt, false)
	return true
}

// pushNew adds a new item for key, absent, whose index bucket is b: into
// the heap, or held (posHeld) outside it.
func (h *heap[K, V]) pushNew(b int, tag uint32, key K, value V, createdAt, fireAt time.Time, held bool) int32 {
	s := h.alloc()
	sl := h.at(s)
	*sl = slot[K, V]{key: key, value: value, created: nanos(createdAt), fire: nanos(fireAt), createdLoc: createdAt.Location(), loc: fireAt.Location()}
	h.idx.set(b, tag, s)
	if held {
		sl.pos = posHeld
		h.held++
	} else {
		h.pushElem(s, sl.fire)
	}
	return s
}

// Update gives the pending item for key a new value and new creation and
// fire times (its place in FIFO order becomes that of a fresh push) and
// reports true; it reports false when key is not pending. O(log n).
func (h *heap[K, V]) Update(key K, value V, createdAt, fireAt time.Time) bool {
	_, s, ok := h.find(key, h.tag(key))
	if !ok || h.at(s).pos < 0 {
		return false
	}
	h.update(s, value, createdAt, fireAt)
	return true
}

// update gives pending slot s a new value and times and re-positions it.
func (h *heap[K, V]) update(s int32, value V, createdAt, fireAt time.Time) {
	sl := h.at(s)
	sl.value, sl.created, sl.fire, sl.createdLoc, sl.loc, sl.attempts = value, nanos(createdAt), nanos(fireAt), createdAt.Location(), fireAt.Location(), 0
	seq := h.nextSeq() // may renumber, and so move, the elems
	i := int(sl.pos)
	h.elems[i] = elem{due: sl.fire, slot: s, seq: seq}
	h.fix(i)
}

// Remove deletes the pending item for key and returns it; it reports false
// when key is not pending. O(log n).
func (h *heap[K, V]) Remove(key K) (Item[K, V], bool) {
	b, s, ok := h.find(key, h.tag(key))
	if !ok || h.at(s).pos < 0 {
		return Item[K, V]{}, false
	}
	it := h.item(s)
	h.removeAt(int(h.at(s).pos))
	h.idx.remove(b)
	h.release(s)
	return it, true
}

// Get returns the item stored for key. O(1).
func (h *heap[K, V]) Get(key K) (Item[K, V], bool) { return h.get(key, h.tag(key)) }

// get is Get of key, whose tag is tag.
func (h *heap[K, V]) get(key K, tag uint32) (Item[K, V], bool) {
	_, s, ok := h.find(key, tag)
	if !ok {
		return Item[K, V]{}, false
	}
	return h.item(s), true
}

// Peek returns the pending item that is due first. O(1).
func (h *heap[K, V]) Peek() (Item[K, V], bool) {
	if len(h.elems) == 0 {
		return Item[K, V]{}, false
	}
	return h.item(h.elems[0].slot), true
}

// NextAt returns the time at which the first pending item becomes due: its
// FireAt, or its retry time while it waits for another attempt. O(1).
func (h *heap[K, V]) NextAt() (time.Time, bool) {
	if len(h.elems) == 0 {
		return time.Time{}, false
	}
	e := h.elems[0]
	return timeAt(e.due, h.at(e.slot).loc), true
}

// PopDue removes and returns the first pending item if it is due at now
// (its due time is not after now); otherwise it reports false. O(log n).
func (h *heap[K, V]) PopDue(now time.Time) (Item[K, V], bool) {
	if !h.headDue(now) {
		return Item[K, V]{}, false
	}
	s := h.elems[0].slot
	it := h.item(s)
	h.removeAt(0)
	h.unindex(s)
	h.release(s)
	return it, true
}

// Clear removes every pending item. It keeps the storage, like a drain by
// PopDue or Remove would. O(n).
func (h *heap[K, V]) Clear() {
	for _, e := range h.elems {
		h.unindex(e.slot)
		h.freeSlot(e.slot)
	}
	for k := range h.busy {
		if b, s, ok := h.find(k, h.tag(k)); ok && h.at(s).pos == posHeld {
			h.idx.remove(b)
			h.freeSlot(s)
			h.held--
		}
	}
	clear(h.elems)
	h.elems = h.elems[:0]
	h.maybeShrink()
}

// headAt returns the due time of the first pending item, in nanoseconds.
func (h *heap[K, V]) headAt() (int64, bool) {
	if len(h.elems) == 0 {
		return 0, false
	}
	return h.elems[0].due, true
}

// headDue reports whether the first pending item is due at now.
func (h *heap[K, V]) headDue(now time.Time) bool {
	return len(h.elems) > 0 && h.elems[0].due <= nanos(now)
}

// item builds the value copy of slot s.
func (h *heap[K, V]) item(s int32) Item[K, V] {
	sl := h.at(s)
	st := Pending
	if sl.pos < 0 && sl.pos != posHeld {
		st = Running
	}
	return Item[K, V]{
		Key: sl.key, Value: sl.value,
		CreatedAt: timeAt(sl.created, sl.createdLoc), FireAt: timeAt(sl.fire, sl.loc),
		State: st, Attempts: int(sl.attempts),
	}
}

// find returns key's bucket and slot, or the empty bucket where key would
// go and false.
func (h *heap[K, V]) find(key K, tag uint32) (b int, s int32, ok bool) {
	ix := &h.idx
	if len(ix.buckets) == 0 {
		return 0, 0, false
	}
	mask := len(ix.buckets) - 1
	for b = int(tag) & mask; ; b = (b + 1) & mask {
		e := ix.buckets[b]
		if e == 0 {
			return b, 0, false
		}
		if uint32(e>>32) == tag {
			if s := int32(uint32(e)) - 1; h.at(s).key == key {
				return b, s, true
			}
		}
	}
}

// tag returns key's hash as the index uses it: its high 32 bits.
func (h *heap[K, V]) tag(key K) uint32 {
	if h.idx.seed == (maphash.Seed{}) { // a zero heap
		h.idx.seed = maphash.MakeSeed()
	}
	return uint32(maphash.Comparable(h.idx.seed, key) >> 32)
}

// unindex removes slot s's key from the index.
func (h *heap[K, V]) unindex(s int32) {
	h.idx.remove(h.idx.bucketOf(h.tag(h.at(s).key), s))
}

// The methods below serve Queue, which keeps running items in the same slab
// so that starting and finishing an item costs no map operation.

// start pops the first pending item if it is due at now and keeps its slot
// (and its key) as running. due is the time the item was due at.
func (h *heap[K, V]) start(now time.Time) (int32, Item[K, V], time.Time, bool) {
	if !h.headDue(now) {
		return 0, Item[K, V]{}, time.Time{}, false
	}
	e := h.elems[0]
	h.removeAt(0)
	h.at(e.slot).pos = posRunning
	h.running++
	it := h.item(e.slot)
	return e.slot, it, timeAt(e.due, h.at(e.slot).loc), true
}

// add pushes a new item for key, whose tag is tag, as [Queue.Add] does: it
// reports false when key is pending; when key's call is running, the new
// item is held until the call returns. held reports that.
func (h *heap[K, V]) add(key K, tag uint32, value V, createdAt, fireAt time.Time) (s int32, ok, held bool) {
	h.idx.reserve(1)
	b, s, found := h.find(key, tag)
	if found {
		if h.at(s).pos != posRunning {
			return 0, false, false
		}
		h.idx.remove(b)
		h.releaseRunning(s)
		b, _, _ = h.find(key, tag)
		return h.pushNew(b, tag, key, value, createdAt, fireAt, true), true, true
	}
	if len(h.busy) > 0 {
		if _, ok := h.busy[key]; ok {
			return h.pushNew(b, tag, key, value, createdAt, fireAt, true), true, true
		}
	}
	return h.pushNew(b, tag, key, value, createdAt, fireAt, false), true, false
}

// releaseRunning detaches running slot s, already out of the index, from
// its key: the call goes on, and the key is free for a new item, which is
// held until the call returns.
func (h *heap[K, V]) releaseRunning(s int32) {
	sl := h.at(s)
	sl.pos = posReleased
	h.running--
	if h.busy == nil {
		h.busy = make(map[K]int32)
	}
	h.busy[sl.key] = s
}

// cancel removes key, whose tag is tag, in whatever state it is: a
// pending or held item is deleted, a running one is released (its slot
// stays with the running call). It returns the state the key was in (0 if
// absent) and whether it was the heap's head.
func (h *heap[K, V]) cancel(key K, tag uint32) (st State, head bool) {
	b, s, ok := h.find(key, tag)
	if !ok {
		return 0, false
	}
	h.idx.remove(b)
	switch pos := h.at(s).pos; {
	case pos >= 0:
		h.removeAt(int(pos))
		h.release(s)
		return Pending, pos == 0
	case pos == posHeld:
		h.held--
		h.release(s)
		return Pending, false
	}
	h.releaseRunning(s)
	return Running, false
}

// finish ends the run of slot s: its key is deleted unless the slot was
// released (then the key may belong to a newer item, which stays, and
// which enters the heap now if it was held). It reports whether a held
// item entered the heap.
func (h *heap[K, V]) finish(s int32) (promoted bool) {
	sl := h.at(s)
	if sl.pos == posRunning {
		h.unindex(s)
		h.running--
	} else {
		promoted = h.unbusy(sl.key)
	}
	h.release(s)
	return promoted
}

// unbusy forgets the released call of key and moves the item held behind
// it, if any, into the heap.
func (h *heap[K, V]) unbusy(key K) bool {
	delete(h.busy, key)
	_, t, ok := h.find(key, h.tag(key))
	if !ok || h.at(t).pos != posHeld {
		return false
	}
	h.held--
	h.pushElem(t, h.at(t).fire)
	return true
}

// retry puts running slot s back in the heap, due at due, and counts one
// more failed attempt. A released slot is freed instead (and the item held
// behind it enters the heap) and retry reports false.
func (h *heap[K, V]) retry(s int32, due time.Time) bool {
	sl := h.at(s)
	if sl.pos != posRunning {
		h.unbusy(sl.key)
		h.release(s)
		return false
	}
	h.running--
	if sl.attempts < 1<<31-1 {
		sl.attempts++
	}
	h.pushElem(s, nanos(due))
	return true
}

// dropPending removes every pending item and, unless a running call holds
// a slot, gives the storage back: nothing will be added again.
func (h *heap[K, V]) dropPending() {
	h.Clear()
	h.compact()
}

// alloc returns a free slot number.
func (h *heap[K, V]) alloc() int32 {
	var s int32
	if n := len(h.free); n > 0 {
		s = h.free[n-1]
		h.free = h.free[:n-1]
	} else {
		if int(h.nslots) == len(h.pages)*pageSize {
			h.pages = append(h.pages, new([pageSize]slot[K, V]))
		}
		s = h.nslots
		h.nslots++
	}
	if h.lowUse > 0 && h.inUse() >= int(h.nslots)/4 {
		h.lowUse = 0
	}
	return s
}

// release frees slot s and may shrink the storage.
func (h *heap[K, V]) release(s int32) {
	h.freeSlot(s)
	h.maybeShrink()
}

// freeSlot clears slot s, puts it on the free list and counts the release
// if the slab is now less than a quarter in use.
func (h *heap[K, V]) freeSlot(s int32) {
	*h.at(s) = slot[K, V]{pos: posFree}
	h.free = append(h.free, s)
	if h.inUse() < int(h.nslots)/4 {
		h.lowUse++
	}
}

// inUse returns the number of slots holding a pending or running item.
func (h *heap[K, V]) inUse() int { return int(h.nslots) - len(h.free) }

// maybeShrink compacts a large slab once it has been less than a quarter in
// use for as many releases as it has entries. A queue that empties and
// fills up again (a drain passes the quarter mark only on its last quarter)
// keeps its storage and does not regrow it; one that stays small gives its
// peak's memory back. The rebuild copies fewer items than the releases that
// paid for it, so the cost stays O(1) amortised.
func (h *heap[K, V]) maybeShrink() {
	if h.lowUse < int(h.nslots) || len(h.pages)*pageSize <= shrinkAbove {
		return
	}
	h.compact()
}

// compact moves the pending items into fresh storage sized for them, or
// none when the heap is empty, and rebuilds the index. It does nothing
// while a running call holds a slot, since the call refers to its slot by
// number; a later release tries again.
func (h *heap[K, V]) compact() {
	n := len(h.elems)
	if h.inUse() != n {
		return
	}
	h.lowUse = 0
	if n == 0 {
		h.pages, h.nslots, h.free, h.elems, h.idx = nil, 0, nil, nil, index{seed: h.idx.seed}
		return
	}
	old := h.pages
	oldAt := func(s int32) *slot[K, V] { return &old[s>>pageShift][s&pageMask] }
	h.pages = make([]*[pageSize]slot[K, V], 0, (n+pageMask)/pageSize)
	for range cap(h.pages) {
		h.pages = append(h.pages, new([pageSize]slot[K, V]))
	}
	h.nslots, h.free = int32(n), nil
	elems := make([]elem, n, 2*n)
	h.idx = index{seed: h.idx.seed}
	h.idx.reserve(n)
	for i, e := range h.elems {
		sl := h.at(int32(i))
		*sl = *oldAt(e.slot) // its pos is i already
		e.slot = int32(i)
		elems[i] = e
		tag := h.tag(sl.key)
		b, _, _ := h.find(sl.key, tag)
		h.idx.set(b, tag, int32(i))
	}
	h.elems = elems
}

// nextSeq returns the push order of a new heap entry. When the counter
// would wrap, the entries are renumbered in heap order first (a sorted
// array is a heap), once every 2³² pushes.
func (h *heap[K, V]) nextSeq() uint32 {
	if h.seq == math.MaxUint32 {
		slices.SortFunc(h.elems, elem.compare)
		for i := range h.elems {
			h.elems[i].seq = uint32(i + 1)
			h.at(h.elems[i].slot).pos = int32(i)
		}
		h.seq = uint32(len(h.elems))
	}
	h.seq++
	return h.seq
}

// pushElem appends slot s to the heap, due at due; up records its position.
func (h *heap[K, V]) pushElem(s int32, due int64) {
	seq := h.nextSeq()
	h.elems = append(h.elems, elem{due: due, slot: s, seq: seq})
	h.up(len(h.elems) - 1)
}

// removeAt deletes heap entry i, clearing the vacated array slot. The last
// entry moves into i; fix records its position.
func (h *heap[K, V]) removeAt(i int) {
	last := len(h.elems) - 1
	moved := h.elems[last]
	h.elems[last] = elem{}
	h.elems = h.elems[:last]
	if i < last {
		h.elems[i] = moved
		h.fix(i)
	}
}

// fix restores the heap order after entry i changed.
func (h *heap[K, V]) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

// The heap is 4-ary: half as deep as a binary heap, and a node's children
// share cache lines, which matters at a million items.
const arity = 4

// place puts e at heap index i and records i in e's slot.
func (h *heap[K, V]) place(i int, e elem) {
	h.elems[i] = e
	h.at(e.slot).pos = int32(i)
}

// up sifts entry i towards the root and records the position of every
// entry it moves, its own included.
func (h *heap[K, V]) up(i int) {
	e := h.elems[i]
	for i > 0 {
		p := (i - 1) / arity
		if !e.less(h.elems[p]) {
			break
		}
		h.place(i, h.elems[p])
		i = p
	}
	h.place(i, e)
}

// down sifts entry i towards the leaves, records the position of every
// entry it moves, its own included, and reports whether it moved.
func (h *heap[K, V]) down(i0 int) bool {
	n := len(h.elems)
	i := i0
	e := h.elems[i]
	for {
		c := arity*i + 1
		if c >= n {
			break
		}
		m := c
		for j := c + 1; j < min(c+arity, n); j++ {
			if h.elems[j].less(h.elems[m]) {
				m = j
			}
		}
		if !h.elems[m].less(e) {
			break
		}
		h.place(i, h.elems[m])
		i = m
	}
	h.place(i, e)
	return i > i0
}
