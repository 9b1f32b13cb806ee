package timedqueue

import "hash/maphash"

// index is a heap's key → slot table: open addressing with linear
// probing over buckets of 8 bytes, each a slot number and 32 bits of its
// key's hash (the tag, whose low bits are also the key's home bucket). The
// keys themselves stay in the slab, so each is stored once; a tag mismatch
// skips the slab for nearly every other key on the probe path. Deletion
// shifts the following entries back, so no tombstones accumulate.
type index struct {
	seed    maphash.Seed // set by the first heap.tag
	buckets []uint64     // 0: empty; else tag<<32 | slot+1; a power of two long
	n       int          // occupied buckets
}

// A table grows when more than loadNum/loadDen of it would be in use.
const (
	loadNum, loadDen = 13, 16
	minBuckets       = 8
)

// bucketOf returns the bucket holding slot s, whose key has tag.
func (ix *index) bucketOf(tag uint32, s int32) int {
	want := uint64(tag)<<32 | uint64(s+1)
	mask := len(ix.buckets) - 1
	for b := int(tag) & mask; ; b = (b + 1) & mask {
		if ix.buckets[b] == want {
			return b
		}
	}
}

// set stores slot s, whose key has tag, in the empty bucket b.
func (ix *index) set(b int, tag uint32, s int32) {
	ix.buckets[b] = uint64(tag)<<32 | uint64(s+1)
	ix.n++
}

// remove empties bucket b and moves back the entries after it that would
// no longer be found.
func (ix *index) remove(b int) {
	mask := len(ix.buckets) - 1
	for j := (b + 1) & mask; ; j = (j + 1) & mask {
		e := ix.buckets[j]
		if e == 0 {
			break
		}
		// e stays unless its home lies cyclically outside (b, j].
		if home := int(uint32(e>>32)) & mask; (j-home)&mask >= (j-b)&mask {
			ix.buckets[b] = e
			b = j
		}
	}
	ix.buckets[b] = 0
	ix.n--
}

// reserve makes room for extra more keys without growing.
func (ix *index) reserve(extra int) {
	need := ix.n + extra
	if need*loadDen <= len(ix.buckets)*loadNum {
		return
	}
	size := max(len(ix.buckets), minBuckets)
	for need*loadDen > size*loadNum {
		size *= 2
	}
	old := ix.buckets
	ix.buckets = make([]uint64, size)
	mask := size - 1
	for _, e := range old {
		if e == 0 {
			continue
		}
		b := int(uint32(e>>32)) & mask
		for ix.buckets[b] != 0 {
			b = (b + 1) & mask
		}
		ix.buckets[b] = e
	}
}
