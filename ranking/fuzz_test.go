package ranking

import (
	"errors"
	"slices"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/evictkit/eviction/thresholds"
)

// FuzzForSignal: every string either names a known signal, ranks, and maps to a resource, or
// is rejected with thresholds.ErrUnsupportedSignal leaving the pods as they were. Seeds: the kubelet's signal
// names and the rejected names of TestForSignal.
func FuzzForSignal(f *testing.F) {
	for _, s := range []string{
		"memory.available", "allocatableMemory.available", "pid.available",
		"nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree",
		"containerfs.available", "containerfs.inodesFree",
		"", "memory", "nodefs", "nodefs.", "nodefs.used", "rootfs.available", "pid.inodesFree", "Memory.available",
	} {
		f.Add(s, false, false)
	}
	f.Fuzz(func(t *testing.T, signal string, imagefs, split bool) {
		pods := []*v1.Pod{storagePod("b", "1Gi"), memPod("a", "1Mi"), storagePod("c", "")}
		in := slices.Clone(pods)
		usage := usageMap(map[string]Usage{"a": {MemoryWorkingSet: mib(2)}, "c": rootLogs(mib(1), 1)})
		err := ForSignal(pods, usage, thresholds.Signal(signal), thresholds.Layout{DedicatedImageFs: imagefs, SplitContainerImageFs: split}, Options{})
		res, known := thresholds.Signal(signal).Resource()
		switch {
		case known && err != nil:
			t.Fatalf("known signal %q (%s) rejected: %v", signal, res, err)
		case !known && !errors.Is(err, thresholds.ErrUnsupportedSignal):
			t.Fatalf("unknown signal %q: err = %v", signal, err)
		case !known && !slices.Equal(in, pods):
			t.Fatalf("unknown signal %q reordered pods", signal)
		case known && res != v1.ResourceMemory && res != v1.ResourceEphemeralStorage && res != thresholds.ResourceInodes && res != thresholds.ResourcePIDs:
			t.Fatalf("signal %q maps to %q", signal, res)
		}
	})
}

// FuzzMemoryOrder parses two memory requests and ranks two pods with the given working sets;
// the order must be the one upstream's comparators (exact Quantity arithmetic, evaluated per
// comparison) allow. This exercises the fast int64 path and the exact fallback of the sort
// keys. Seeds: the quantities of TestExactQuantities and of the ranking table tests.
func FuzzMemoryOrder(f *testing.F) {
	seeds := []struct {
		a, b   string
		ua, ub uint64
	}{
		{"100500m", "101", 101, 101},
		{"99500m", "99700m", 100, 100},
		{"100E", "1000E", 0, 0},
		{"200Mi", "100Mi", mib(199), mib(101)},
		{"1Gi", "1073741824", 1 << 63, 1},
		{"0.5", "-1", 0, 1<<64 - 1},
		{"9223372036854775807", "-9223372036854775808", 1 << 63, 1<<63 - 1},
		{"1n", "1u", 0, 0},
	}
	for _, s := range seeds {
		f.Add(s.a, s.b, s.ua, s.ub)
	}
	f.Fuzz(func(t *testing.T, a, b string, ua, ub uint64) {
		if hugeExponent(a) || hugeExponent(b) {
			// resource.ParseQuantity itself runs for minutes on exponents beyond int32
			// ("100E0000000000020008000000").
			t.Skip()
		}
		qa, errA := resource.ParseQuantity(a)
		qb, errB := resource.ParseQuantity(b)
		if errA != nil || errB != nil || extreme(qa) || extreme(qb) {
			// Quantity arithmetic on exponents like 1e8000000 takes seconds, for upstream
			// and for the library alike; such inputs only slow the fuzzer down.
			t.Skip()
		}
		pa := mkPod("a", containers(ctr("c", v1.ResourceList{v1.ResourceMemory: qa}, nil)))
		pb := mkPod("b", containers(ctr("c", v1.ResourceList{v1.ResourceMemory: qb}, nil)))
		usage := usageMap(map[string]Usage{"a": {MemoryWorkingSet: ua}, "b": {MemoryWorkingSet: ub}})
		chain := naiveMemoryChain(usage)
		x, y := []*v1.Pod{pa, pb}, []*v1.Pod{pb, pa}
		for _, in := range [][]*v1.Pod{x, y} {
			ForMemory(in, usage, Options{})
			if naiveCompare(chain, in[0], in[1]) > 0 {
				t.Fatalf("requests %s, %s; usage %d, %d: got %v, upstream puts the second first", a, b, ua, ub, names(in))
			}
		}
		// Both orders give the same result (shuffle invariance on two pods).
		if !slices.Equal(x, y) {
			t.Fatalf("order depends on input: %v vs %v", names(x), names(y))
		}
	})
}

// extreme reports a quantity whose decimal exponent is beyond ±100.
func extreme(q resource.Quantity) bool {
	_, exp := q.AsCanonicalBytes(nil)
	return exp > 100 || exp < -100
}

// hugeExponent reports a quantity string whose decimal exponent has more than four digits.
func hugeExponent(s string) bool {
	i := strings.LastIndexAny(s, "eE")
	if i < 0 {
		return false
	}
	digits := strings.TrimLeft(strings.TrimLeft(s[i+1:], "+-"), "0")
	return len(digits) > 4
}
