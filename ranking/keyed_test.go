package ranking

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/thresholds"
)

// genKeyed draws pods with shared and nil identities and keys whose fields come either from
// narrow ranges (they pack into words) or from anywhere (often they do not), some with
// metrics only their exact value tells apart. Up to 300 pods: more than smallKeys.
func genKeyed(t *rapid.T, small *smallBuffers) (s *keyed, narrow bool) {
	n := rapid.IntRange(0, 300).Draw(t, "n")
	pods := make([]*v1.Pod, n)
	for i := range pods {
		if rapid.IntRange(0, 30).Draw(t, "nil") == 0 {
			continue
		}
		name := fmt.Sprintf("p%d", rapid.IntRange(0, 20).Draw(t, "name"))
		pods[i] = &v1.Pod{}
		pods[i].Namespace = rapid.SampledFrom([]string{"", "a", "b"}).Draw(t, "namespace")
		pods[i].Name = name
		pods[i].UID = types.UID(rapid.SampledFrom([]string{"", "u1", "u2"}).Draw(t, "uid"))
	}
	narrow = rapid.Bool().Draw(t, "narrow")
	s = newKeyed(pods, small)
	odd := []resource.Quantity{resource.MustParse("1.5"), resource.MustParse("1e20"), resource.MustParse("-1e20")}
	for i := range s.keys {
		k := &s.keys[i]
		switch {
		case narrow:
			k.lead = rapid.Uint64Range(1<<40, 1<<40+8).Draw(t, "lead")
			k.metric = rapid.Int64Range(-3, 3).Draw(t, "metric")
		case rapid.IntRange(0, 20).Draw(t, "exact") == 0:
			k.lead = rapid.Uint64Range(0, 2).Draw(t, "lead")
			s.setMetric(k, rapid.SampledFrom(odd).Draw(t, "odd"))
		default:
			k.lead = rapid.SampledFrom([]uint64{0, 1, 1 << 33, math.MaxUint64}).Draw(t, "lead")
			k.metric = rapid.SampledFrom([]int64{math.MinInt64, -1, 0, 1, 1 << 40, math.MaxInt64}).Draw(t, "metric")
		}
	}
	return s, narrow
}

// Law: the packed integer sort and the comparison sort give the same order, and narrow keys
// take the packed path.
func TestSortPackedIsCompareOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var small smallBuffers
		s, narrow := genKeyed(t, &small)
		layout, packs := s.packing()
		if narrow && len(s.keys) > 0 {
			require.True(t, packs, "narrow keys must pack: %+v", layout)
		}

		want := slices.Clone(s.keys)
		slices.SortFunc(want, s.compare)
		if !packs {
			return
		}
		s.sortPacked(layout)
		for j := range want {
			require.Equal(t, want[j].idx, s.keys[j].idx, "position %d", j)
		}
	})
}

// Keys that need exactly 64 bits pack, and sort by lead, then metric (larger first), then
// position; one more bit and they do not.
func TestPackingFits64Bits(t *testing.T) {
	fill := func(s *keyed, lastLead uint64) {
		s.keys[0].lead, s.keys[0].metric = 0, 0
		s.keys[1].lead, s.keys[1].metric = 0, 1<<30-1 // 30 metric bits
		s.keys[2].lead, s.keys[2].metric = 1<<31, 7   // 32 lead bits
		s.keys[3].lead, s.keys[3].metric = lastLead, 7
	}
	pods := make([]*v1.Pod, 4) // 2 position bits
	var small smallBuffers

	s := newKeyed(pods, &small)
	fill(s, 1<<31)
	layout, ok := s.packing()
	require.True(t, ok)
	assert.Equal(t, wordLayout{leadBits: 32, metricBits: 30, idxBits: 2, minImage: metricImage(1<<30 - 1)}, layout)
	s.sortPacked(layout)
	got := []int32{s.keys[0].idx, s.keys[1].idx, s.keys[2].idx, s.keys[3].idx}
	assert.Equal(t, []int32{1, 0, 2, 3}, got)

	s = newKeyed(pods, &small)
	fill(s, 1<<32) // 33 lead bits: 65 in all
	_, ok = s.packing()
	assert.False(t, ok)
}

// Up to smallKeys pods, every ranking sorts on the stack: no allocation, on either sort path
// (these pods' memory and disk keys are too wide to pack; PID and descheduler keys pack).
func TestRankSmallDoesNotAllocate(t *testing.T) {
	pods, usage := benchPods(110)
	work := make([]*v1.Pod, len(pods))
	for name, rank := range map[string]func(){
		"memory": func() { ForMemory(work, usage, Options{}) },
		"disk": func() {
			ForDisk(work, usage, v1.ResourceEphemeralStorage, thresholds.NodeFs, thresholds.Layout{}, Options{})
		},
		"pids":        func() { ForPIDs(work, usage) },
		"descheduler": func() { ByPriorityThenQoS(work, Options{}) },
	} {
		allocs := testing.AllocsPerRun(20, func() {
			copy(work, pods)
			rank()
		})
		assert.Zero(t, allocs, name)
	}
}

// Law: radixSort orders words with ascending positions in their low bits exactly as
// slices.Sort does, at any width (including bits it must not look at being zero).
func TestRadixSortIsSlicesSort(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(0, 9000).Draw(t, "n")
		from := uint(bits.Len(uint(max(n-1, 0))))
		width := uint(rapid.IntRange(0, int(64-from)).Draw(t, "width"))
		distinct := rapid.Uint64Range(1, 1<<width-1|1).Draw(t, "distinct") // few values: long runs
		r := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 0))
		words := make([]uint64, n)
		for i := range words {
			words[i] = (r.Uint64N(distinct)&(1<<width-1))<<from | uint64(i)
		}
		want := slices.Clone(words)
		slices.Sort(want)
		radixSort(words, from, width)
		require.Equal(t, want, words)
	})
}

// Above radixMinWords the packed path radix-sorts, and still gives compare's order, ties by
// identity included.
func TestSortPackedLarge(t *testing.T) {
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 1))
		pods := make([]*v1.Pod, radixMinWords+1000)
		for i := range pods {
			pods[i] = &v1.Pod{}
			pods[i].Namespace = fmt.Sprintf("ns%d", r.IntN(3))
			pods[i].Name = fmt.Sprintf("p%d", r.IntN(len(pods)))
		}
		var small smallBuffers
		s := newKeyed(pods, &small)
		for i := range s.keys {
			s.keys[i].lead = uint64(r.IntN(4)) << 20
			s.keys[i].metric = int64(r.IntN(50)) - 25
		}
		want := slices.Clone(s.keys)
		slices.SortFunc(want, s.compare)
		layout, ok := s.packing()
		require.True(t, ok)
		s.sortPacked(layout)
		for j := range want {
			require.Equal(t, want[j].idx, s.keys[j].idx, "seed %d, position %d", seed, j)
		}
	}
}
