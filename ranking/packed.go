package ranking

import (
	"math/bits"
	"slices"
)

// Keys usually differ in few bits: a node's pods fall into a handful of priority classes,
// flags are single bits, and process counts are small numbers. Then each key, with its input
// position, fits in one uint64 whose unsigned order is the keys' order, and the words sort as
// plain integers: no call through a function value per comparison, and a third of the
// memory traffic of moving 24-byte keys.

// wordLayout says how keys pack into words: from the most significant bit, leadBits bits of
// lead less the smallest lead, metricBits bits of the metric's order-reversing image less the
// smallest image, and idxBits bits of the input position.
type wordLayout struct {
	leadBits, metricBits, idxBits uint
	minLead, minImage             uint64
}

// packing returns the layout of s.keys' words, and false when they need more than 64 bits or
// a key's metric is not exact (only tie can order those).
func (s *keyed) packing() (wordLayout, bool) {
	if len(s.keys) == 0 {
		return wordLayout{}, false
	}
	first := &s.keys[0]
	minLead, maxLead := first.lead, first.lead
	minImage, maxImage := metricImage(first.metric), metricImage(first.metric)
	for i := range s.keys {
		k := &s.keys[i]
		if k.exact != 0 {
			return wordLayout{}, false
		}
		minLead, maxLead = min(minLead, k.lead), max(maxLead, k.lead)
		image := metricImage(k.metric)
		minImage, maxImage = min(minImage, image), max(maxImage, image)
	}
	l := wordLayout{
		leadBits:   uint(bits.Len64(maxLead - minLead)),
		metricBits: uint(bits.Len64(maxImage - minImage)),
		idxBits:    uint(bits.Len(uint(len(s.keys) - 1))),
		minLead:    minLead,
		minImage:   minImage,
	}
	return l, l.leadBits+l.metricBits+l.idxBits <= 64
}

// metricImage maps a metric onto uint64 so that unsigned order is descending metric order.
func metricImage(m int64) uint64 { return ^(uint64(m) ^ 1<<63) }

// word returns k packed under l. Shifts by 64 (an empty field above a full one) give 0.
func (l wordLayout) word(k *key) uint64 {
	return (k.lead-l.minLead)<<(l.metricBits+l.idxBits) |
		(metricImage(k.metric)-l.minImage)<<l.idxBits |
		uint64(k.idx)
}

// sortPacked sorts the keys, packed under l, as integers; then each run of words that differ
// only in position, pods whose keys are equal, with tieAt. It leaves in keys[j].idx the input
// position of the j-th pod, which is all permute reads, and the other key fields stale.
func (s *keyed) sortPacked(l wordLayout) {
	words := s.words
	if words == nil {
		words = make([]uint64, len(s.keys))
	}
	for i := range s.keys {
		words[i] = l.word(&s.keys[i])
	}
	if len(words) >= radixMinWords {
		radixSort(words, l.idxBits, l.leadBits+l.metricBits)
	} else {
		slices.Sort(words)
	}
	pos := func(w uint64) int32 { return int32(w & (1<<l.idxBits - 1)) }
	for i := 0; i < len(words); {
		j := i + 1
		for j < len(words) && words[j]>>l.idxBits == words[i]>>l.idxBits {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(words[i:j], func(a, b uint64) int { return s.tieAt(pos(a), pos(b)) })
		}
		i = j
	}
	for j, w := range words {
		s.keys[j].idx = pos(w)
	}
}

// radixMinWords is the number of words from which radixSort beats slices.Sort, whatever the
// width (at most 52 bits above 12 position bits: 7 passes). Measured by BenchmarkSortWords:
// up to 1,000 words the comparison sort is 1.4 to 2 times faster; at 4,000 the two are even
// at 48 bits and the radix sort is 1.2 to 2 times faster at 16 to 32; at 10,000 words (80 KiB,
// more than a level-1 data cache holds) the comparison sort takes ten times as long as at
// 4,000 and the radix sort is 5 times faster at every width.
const radixMinWords = 4096

// radixSort sorts words, which are in ascending order of their low from bits, by the width
// bits above those: a least-significant-digit radix sort, one stable counting pass per byte,
// which keeps the low bits ascending among equal bytes. It allocates one scratch slice.
func radixSort(words []uint64, from, width uint) {
	if len(words) < 2 {
		return
	}
	scratch := make([]uint64, len(words))
	src, dst := words, scratch
	for shift := from; shift < from+width; shift += 8 {
		var next [256]int // next[b]: where the next word with byte b goes
		for _, w := range src {
			next[byte(w>>shift)]++
		}
		sum := 0
		for b, c := range next {
			next[b] = sum
			sum += c
		}
		for _, w := range src {
			b := byte(w >> shift)
			dst[next[b]] = w
			next[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &words[0] {
		copy(words, src)
	}
}
