package timedqueue

import (
	"cmp"
	"fmt"
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

// Item is a value copy of one scheduled key: changing it changes nothing in
// the queue it came from.
type Item[K comparable] struct {
	// Key identifies the item; keys compare with ==.
	Key K
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

// slot holds one item's data in the slab; the heap orders slot numbers.
type slot[K comparable] struct {
	key       K
	createdAt time.Time
	fireAt    time.Time
	pos       int32 // index in Heap.elems, or one of the pos* states
	attempts  int32
}

// elem is one heap entry: the sort key inline, so sifting never leaves the
// elems array, and the slot it stands for.
type elem struct {
	sec  int64 // due time, Unix seconds (wall clock)
	nsec int32 // due time, nanoseconds within sec
	slot int32
	seq  uint64 // push order: FIFO among equal due times
}

func (a elem) less(b elem) bool {
	if a.sec != b.sec {
		return a.sec < b.sec
	}
	if a.nsec != b.nsec {
		return a.nsec < b.nsec
	}
	return a.seq < b.seq
}

// compare orders elems as the heap does; a strict weak ordering, total
// because seq is unique.
func (a elem) compare(b elem) int {
	return cmp.Or(cmp.Compare(a.sec, b.sec), cmp.Compare(a.nsec, b.nsec), cmp.Compare(a.seq, b.seq))
}

// dueBy reports whether e is due at the wall time (sec, nsec).
func (e elem) dueBy(sec int64, nsec int32) bool {
	return e.sec < sec || (e.sec == sec && e.nsec <= nsec)
}

func wall(t time.Time) (int64, int32) { return t.Unix(), int32(t.Nanosecond()) }

// Heap is a synchronous min-heap of keyed items ordered by fire time, then by
// push order (FIFO among equal fire times). It has no goroutine and reads no
// clock: the caller passes now to [Heap.PopDue]. [Queue] drives one.
//
// Items live in a slab indexed by a key map; the heap array holds each
// item's fire time inline and its slab index, and every slab entry records
// its heap position, so Remove and Update are O(log n) fix-ups. Popped and
// removed entries are cleared at once. Storage is kept when the heap
// empties, so a heap that is drained and refilled does not grow it again; a
// large heap that stays below a quarter of its peak for long gives it back.
//
// Fire times compare on the wall clock (monotonic clock readings are
// ignored), so items created from different clocks order consistently.
//
// The zero Heap is empty and ready to use. A Heap is not safe for concurrent
// use. It holds at most 2³¹−1 items.
type Heap[K comparable] struct {
	idx     map[K]int32 // key → slot, for pending and running slots
	slots   []slot[K]
	free    []int32
	elems   []elem
	seq     uint64
	running int // slots in posRunning
	held    int // slots in posHeld
	lowUse  int // releases since the slab was last at least a quarter in use

	// busy maps the key of every call in posReleased to its slot, so that
	// a new item for that key is held until the call returns. It is empty
	// unless a running key was cancelled or added again.
	busy map[K]int32
}

// Len returns the number of pending items. O(1).
func (h *Heap[K]) Len() int { return len(h.elems) + h.held }

// Push adds a pending item for key, due at fireAt, and reports true; it
// reports false and changes nothing when key is already present.
// O(log n).
func (h *Heap[K]) Push(key K, createdAt, fireAt time.Time) bool {
	_, ok := h.push(key, createdAt, fireAt)
	return ok
}

func (h *Heap[K]) push(key K, createdAt, fireAt time.Time) (int32, bool) {
	if _, ok := h.idx[key]; ok {
		return 0, false
	}
	return h.pushNew(key, createdAt, fireAt), true
}

// pushNew adds a pending item for key, which is absent.
func (h *Heap[K]) pushNew(key K, createdAt, fireAt time.Time) int32 {
	if h.idx == nil {
		h.idx = make(map[K]int32)
	}
	s := h.alloc()
	h.slots[s] = slot[K]{key: key, createdAt: createdAt, fireAt: fireAt}
	h.idx[key] = s
	h.pushElem(s, fireAt)
	return s
}

// Update gives the pending item for key a new creation and fire time (its
// place in FIFO order becomes that of a fresh push) and reports true;
// it reports false when key is not pending. O(log n).
func (h *Heap[K]) Update(key K, createdAt, fireAt time.Time) bool {
	s, ok := h.idx[key]
	if !ok || h.slots[s].pos < 0 {
		return false
	}
	h.update(s, createdAt, fireAt)
	return true
}

// update gives pending slot s new times and re-positions it.
func (h *Heap[K]) update(s int32, createdAt, fireAt time.Time) {
	sl := &h.slots[s]
	sl.createdAt, sl.fireAt, sl.attempts = createdAt, fireAt, 0
	i := int(sl.pos)
	sec, nsec := wall(fireAt)
	h.elems[i] = elem{sec: sec, nsec: nsec, slot: s, seq: h.nextSeq()}
	h.fix(i)
}

// Remove deletes the pending item for key and returns it; it reports false
// when key is not pending. O(log n).
func (h *Heap[K]) Remove(key K) (Item[K], bool) {
	s, ok := h.idx[key]
	if !ok || h.slots[s].pos < 0 {
		return Item[K]{}, false
	}
	it := h.item(s)
	h.removeAt(int(h.slots[s].pos))
	delete(h.idx, key)
	h.release(s)
	return it, true
}

// Get returns the item stored for key. O(1).
func (h *Heap[K]) Get(key K) (Item[K], bool) {
	s, ok := h.idx[key]
	if !ok {
		return Item[K]{}, false
	}
	return h.item(s), true
}

// Peek returns the pending item that is due first. O(1).
func (h *Heap[K]) Peek() (Item[K], bool) {
	if len(h.elems) == 0 {
		return Item[K]{}, false
	}
	return h.item(h.elems[0].slot), true
}

// NextAt returns the time at which the first pending item becomes due: its
// FireAt, or its retry time while it waits for another attempt. O(1).
func (h *Heap[K]) NextAt() (time.Time, bool) {
	if len(h.elems) == 0 {
		return time.Time{}, false
	}
	e := h.elems[0]
	return time.Unix(e.sec, int64(e.nsec)).In(h.slots[e.slot].fireAt.Location()), true
}

// PopDue removes and returns the first pending item if it is due at now
// (its due time is not after now); otherwise it reports false. O(log n).
func (h *Heap[K]) PopDue(now time.Time) (Item[K], bool) {
	if !h.headDue(now) {
		return Item[K]{}, false
	}
	s := h.elems[0].slot
	it := h.item(s)
	h.removeAt(0)
	delete(h.idx, it.Key)
	h.release(s)
	return it, true
}

// Clear removes every pending item. It keeps the storage, like a drain by
// PopDue or Remove would. O(n).
func (h *Heap[K]) Clear() {
	for _, e := range h.elems {
		delete(h.idx, h.slots[e.slot].key)
		h.freeSlot(e.slot)
	}
	for k := range h.busy {
		if s, ok := h.idx[k]; ok && h.slots[s].pos == posHeld {
			delete(h.idx, k)
			h.freeSlot(s)
			h.held--
		}
	}
	clear(h.elems)
	h.elems = h.elems[:0]
	h.maybeShrink()
}

// headAt returns the due time of the first pending item as wall-clock
// seconds and nanoseconds.
func (h *Heap[K]) headAt() (sec int64, nsec int32, ok bool) {
	if len(h.elems) == 0 {
		return 0, 0, false
	}
	return h.elems[0].sec, h.elems[0].nsec, true
}

// headDue reports whether the first pending item is due at now.
func (h *Heap[K]) headDue(now time.Time) bool {
	if len(h.elems) == 0 {
		return false
	}
	sec, nsec := wall(now)
	return h.elems[0].dueBy(sec, nsec)
}

// item builds the value copy of slot s.
func (h *Heap[K]) item(s int32) Item[K] {
	sl := &h.slots[s]
	st := Pending
	if sl.pos < 0 && sl.pos != posHeld {
		st = Running
	}
	return Item[K]{Key: sl.key, CreatedAt: sl.createdAt, FireAt: sl.fireAt, State: st, Attempts: int(sl.attempts)}
}

// The methods below serve Queue, which keeps running items in the same slab
// so that starting and finishing an item costs no map operation.

// start pops the first pending item if it is due at now and keeps its slot
// (and its key) as running. due is the time the item was due at.
func (h *Heap[K]) start(now time.Time) (int32, Item[K], time.Time, bool) {
	if !h.headDue(now) {
		return 0, Item[K]{}, time.Time{}, false
	}
	e := h.elems[0]
	h.removeAt(0)
	h.slots[e.slot].pos = posRunning
	h.running++
	it := h.item(e.slot)
	return e.slot, it, time.Unix(e.sec, int64(e.nsec)), true
}

// add pushes a new item for key as [Queue.Add] does: it reports false when
// key is pending; when key's call is running, the new item is held until
// the call returns. held reports that.
func (h *Heap[K]) add(key K, createdAt, fireAt time.Time) (s int32, ok, held bool) {
	if s, ok := h.idx[key]; ok {
		if h.slots[s].pos != posRunning {
			return 0, false, false
		}
		h.releaseRunning(s)
		return h.pushHeld(key, createdAt, fireAt), true, true
	}
	if len(h.busy) > 0 {
		if _, ok := h.busy[key]; ok {
			return h.pushHeld(key, createdAt, fireAt), true, true
		}
	}
	return h.pushNew(key, createdAt, fireAt), true, false
}

// pushHeld stores a new item for key outside the heap, in posHeld.
func (h *Heap[K]) pushHeld(key K, createdAt, fireAt time.Time) int32 {
	if h.idx == nil {
		h.idx = make(map[K]int32)
	}
	s := h.alloc()
	h.slots[s] = slot[K]{key: key, createdAt: createdAt, fireAt: fireAt, pos: posHeld}
	h.idx[key] = s
	h.held++
	return s
}

// releaseRunning detaches running slot s from its key: the call goes on,
// and the key is free for a new item, which is held until the call returns.
func (h *Heap[K]) releaseRunning(s int32) {
	sl := &h.slots[s]
	delete(h.idx, sl.key)
	sl.pos = posReleased
	h.running--
	if h.busy == nil {
		h.busy = make(map[K]int32)
	}
	h.busy[sl.key] = s
}

// cancel removes key in whatever state it is: a pending or held item is
// deleted, a running one is released (its slot stays with the running
// call). It returns the state the key was in (0 if absent) and whether it
// was the heap's head.
func (h *Heap[K]) cancel(key K) (st State, head bool) {
	s, ok := h.idx[key]
	if !ok {
		return 0, false
	}
	switch pos := h.slots[s].pos; {
	case pos >= 0:
		delete(h.idx, key)
		h.removeAt(int(pos))
		h.release(s)
		return Pending, pos == 0
	case pos == posHeld:
		delete(h.idx, key)
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
func (h *Heap[K]) finish(s int32) (promoted bool) {
	sl := &h.slots[s]
	if sl.pos == posRunning {
		delete(h.idx, sl.key)
		h.running--
	} else {
		promoted = h.unbusy(sl.key)
	}
	h.release(s)
	return promoted
}

// unbusy forgets the released call of key and moves the item held behind
// it, if any, into the heap.
func (h *Heap[K]) unbusy(key K) bool {
	delete(h.busy, key)
	t, ok := h.idx[key]
	if !ok || h.slots[t].pos != posHeld {
		return false
	}
	h.held--
	h.pushElem(t, h.slots[t].fireAt)
	return true
}

// retry puts running slot s back in the heap, due at due, and counts one
// more failed attempt. A released slot is freed instead (and the item held
// behind it enters the heap) and retry reports false.
func (h *Heap[K]) retry(s int32, due time.Time) bool {
	sl := &h.slots[s]
	if sl.pos != posRunning {
		h.unbusy(sl.key)
		h.release(s)
		return false
	}
	h.running--
	if sl.attempts < 1<<31-1 {
		sl.attempts++
	}
	h.pushElem(s, due)
	return true
}

// dropPending removes every pending item and, unless a running call holds
// a slot, gives the storage back: nothing will be added again.
func (h *Heap[K]) dropPending() {
	h.Clear()
	h.compact()
}

// alloc returns a free slot number.
func (h *Heap[K]) alloc() int32 {
	var s int32
	if n := len(h.free); n > 0 {
		s = h.free[n-1]
		h.free = h.free[:n-1]
	} else {
		h.slots = append(h.slots, slot[K]{})
		s = int32(len(h.slots) - 1)
	}
	if h.lowUse > 0 && h.inUse() >= len(h.slots)/4 {
		h.lowUse = 0
	}
	return s
}

// release frees slot s and may shrink the storage.
func (h *Heap[K]) release(s int32) {
	h.freeSlot(s)
	h.maybeShrink()
}

// freeSlot clears slot s, puts it on the free list and counts the release
// if the slab is now less than a quarter in use.
func (h *Heap[K]) freeSlot(s int32) {
	h.slots[s] = slot[K]{pos: posFree}
	h.free = append(h.free, s)
	if h.inUse() < len(h.slots)/4 {
		h.lowUse++
	}
}

// inUse returns the number of slots holding a pending or running item.
func (h *Heap[K]) inUse() int { return len(h.slots) - len(h.free) }

// maybeShrink compacts a large slab once it has been less than a quarter in
// use for as many releases as it has entries. A queue that empties and
// fills up again (a drain passes the quarter mark only on its last quarter)
// keeps its storage and does not regrow it; one that stays small gives its
// peak's memory back. The rebuild copies fewer items than the releases that
// paid for it, so the cost stays O(1) amortised.
func (h *Heap[K]) maybeShrink() {
	if h.lowUse < len(h.slots) || cap(h.slots) <= shrinkAbove {
		return
	}
	h.compact()
}

// compact moves the pending items into storage sized for twice their
// number, or none when the heap is empty, and rebuilds the key map (a Go
// map never shrinks). It does nothing while a running call holds a slot,
// since the call refers to its slot by number; a later release tries again.
func (h *Heap[K]) compact() {
	n := len(h.elems)
	if h.inUse() != n {
		return
	}
	h.lowUse = 0
	if n == 0 {
		h.slots, h.free, h.elems, h.idx = nil, nil, nil, nil
		return
	}
	slots := make([]slot[K], n, 2*n)
	elems := make([]elem, n, 2*n)
	idx := make(map[K]int32, n)
	for i, e := range h.elems {
		slots[i] = h.slots[e.slot] // its pos is i already
		e.slot = int32(i)
		elems[i] = e
		idx[slots[i].key] = int32(i)
	}
	h.slots, h.free, h.elems, h.idx = slots, nil, elems, idx
}

func (h *Heap[K]) nextSeq() uint64 {
	h.seq++
	return h.seq
}

// pushElem appends slot s to the heap, due at due; up records its position.
func (h *Heap[K]) pushElem(s int32, due time.Time) {
	sec, nsec := wall(due)
	h.elems = append(h.elems, elem{sec: sec, nsec: nsec, slot: s, seq: h.nextSeq()})
	h.up(len(h.elems) - 1)
}

// removeAt deletes heap entry i, clearing the vacated array slot. The last
// entry moves into i; fix records its position.
func (h *Heap[K]) removeAt(i int) {
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
func (h *Heap[K]) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

// The heap is 4-ary: half as deep as a binary heap, and a node's children
// share cache lines, which matters at a million items.
const arity = 4

// place puts e at heap index i and records i in e's slot.
func (h *Heap[K]) place(i int, e elem) {
	h.elems[i] = e
	h.slots[e.slot].pos = int32(i)
}

// up sifts entry i towards the root and records the position of every
// entry it moves, its own included.
func (h *Heap[K]) up(i int) {
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
func (h *Heap[K]) down(i0 int) bool {
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
