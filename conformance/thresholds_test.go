package conformance_test

import (
	"errors"
	"fmt"
	"maps"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cliflag "k8s.io/component-base/cli/flag"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	"k8s.io/kubernetes/pkg/kubelet/eviction"
	evictionapi "k8s.io/kubernetes/pkg/kubelet/eviction/api"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/thresholds"
)

// upstreamParse runs the kubelet's ParseThresholdConfig on c.
func upstreamParse(c gen.ThresholdConfig) ([]evictionapi.Threshold, error) {
	return eviction.ParseThresholdConfig(c.EnforceNodeAllocatable, c.Hard, c.Soft, c.SoftGracePeriod, c.MinimumReclaim)
}

// ourConfig is the Config that means to ParseConfig what c means to
// upstream's ParseThresholdConfig, which sees the kubelet's configuration
// after defaulting. There a nil map or list is just empty; to ParseConfig a
// nil Hard means "the default hard thresholds" and a nil
// EnforceNodeAllocatable means "the default enforcement, pods". So Hard is
// always non-nil here, and a nil enforcement list becomes an empty one;
// an enforcement list of exactly ["pods"] is sometimes left nil, so that
// the default is compared with upstream's explicit ["pods"].
func ourConfig(t *rapid.T, c gen.ThresholdConfig) thresholds.Config {
	hard := c.Hard
	if hard == nil {
		hard = map[string]string{}
	}
	enforce := c.EnforceNodeAllocatable
	switch {
	case enforce == nil:
		enforce = []string{}
	case slices.Equal(enforce, []string{thresholds.NodeAllocatablePods}) && rapid.Bool().Draw(t, "enforcement by default"):
		enforce = nil
	}
	return thresholds.Config{Hard: hard, Soft: c.Soft, SoftGracePeriod: c.SoftGracePeriod,
		MinimumReclaim: c.MinimumReclaim, EnforceNodeAllocatable: enforce}
}

func valueKey(q *resource.Quantity, pct float32) string {
	if q != nil {
		return q.String()
	}
	return fmt.Sprintf("%g%%", pct*100)
}

// upKey renders a threshold canonically: signal, operator, value, grace
// period and minimum reclaim.
func upKey(t evictionapi.Threshold) string {
	mr := "-"
	if t.MinReclaim != nil {
		mr = valueKey(t.MinReclaim.Quantity, t.MinReclaim.Percentage)
	}
	op := "<"
	if t.Operator != evictionapi.OpLessThan {
		op = "?" + string(t.Operator)
	}
	return fmt.Sprintf("%s%s%s grace=%v minReclaim=%s", t.Signal, op, valueKey(t.Value.Quantity, t.Value.Percentage), t.GracePeriod, mr)
}

// ourKey renders a library threshold as upKey renders its upstream
// equivalent.
func ourKey(t thresholds.Threshold) string { return upKey(upThreshold(t)) }

// upKeys and ourKeys render a list; sorted, for answers whose order
// upstream leaves to map iteration.
func upKeys(ts []evictionapi.Threshold, sorted bool) []string { return keyList(ts, upKey, sorted) }

func ourKeys(ts []thresholds.Threshold, sorted bool) []string { return keyList(ts, ourKey, sorted) }

func keyList[T any](ts []T, key func(T) string, sorted bool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = key(t)
	}
	if sorted {
		slices.Sort(out)
	}
	return out
}

// toUpstream converts thresholds (quantities copied).
func toUpstream(ts []thresholds.Threshold) []evictionapi.Threshold {
	out := make([]evictionapi.Threshold, len(ts))
	for i, t := range ts {
		out[i] = upThreshold(t)
	}
	return out
}

// upThreshold converts one threshold (quantities copied).
func upThreshold(t thresholds.Threshold) evictionapi.Threshold {
	u := evictionapi.Threshold{Signal: evictionapi.Signal(t.Signal), Operator: evictionapi.OpLessThan,
		Value: upValue(t.Value), GracePeriod: t.GracePeriod}
	if t.MinReclaim != nil {
		mr := upValue(*t.MinReclaim)
		u.MinReclaim = &mr
	}
	return u
}

func upValue(v thresholds.Value) evictionapi.ThresholdValue {
	u := evictionapi.ThresholdValue{Percentage: v.Percentage}
	if v.Quantity != nil {
		q := v.Quantity.DeepCopy()
		u.Quantity = &q
	}
	return u
}

// observations converts generated observations for both sides. The
// generator leaves amounts out (nil); each gap is given to the library as
// is and to upstream as its equivalent:
//   - a nil Available is an absent observation to the library; upstream's
//     makeSignalObservations would leave the signal out, so upstream gets
//     no entry for it (the library still gets its capacity and time, which
//     must play no part);
//   - a nil Capacity (with an Available) counts as zero to the library, so
//     upstream gets a zero capacity.
func observations(m map[string]gen.Observation) (thresholds.Observations, eviction.SignalObservations) {
	ours, up := thresholds.Observations{}, eviction.SignalObservations{}
	for s, o := range m {
		ob := thresholds.Observation{Time: o.Time}
		if o.Capacity != nil {
			ob.Capacity = resource.NewQuantity(*o.Capacity, resource.BinarySI)
		}
		if o.Available != nil {
			ob.Available = resource.NewQuantity(*o.Available, resource.BinarySI)
		}
		ours[thresholds.Signal(s)] = ob
		if ob.Available == nil {
			continue
		}
		capacity := resource.NewQuantity(0, resource.BinarySI)
		if ob.Capacity != nil {
			capacity = copyQ(ob.Capacity)
		}
		up[evictionapi.Signal(s)] = eviction.NewSignalObservation(copyQ(ob.Available), capacity, o.Time)
	}
	return ours, up
}

func copyQ(q *resource.Quantity) *resource.Quantity {
	c := q.DeepCopy()
	return &c
}

func TestParseConfig(t *testing.T) {
	for _, valid := range []bool{true, false} {
		t.Run(fmt.Sprintf("valid=%v", valid), func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				c := gen.ThresholdConfigOf(valid).Draw(t, "config")
				cfg := ourConfig(t, c)
				want, wantErr := upstreamParse(c)
				got, gotErr := thresholds.ParseConfig(cfg)
				if (gotErr == nil) != (wantErr == nil) {
					t.Fatalf("ParseThresholdConfig(%s): upstream error %v; ParseConfig(%s): evictkit error %v", show(c), wantErr, show(cfg), gotErr)
				}
				if wantErr != nil {
					return
				}
				// Upstream walks each flag map in Go map order, so the order
				// of thresholds within each group is random; compare sets.
				if w, g := upKeys(want, true), ourKeys(got, true); !slices.Equal(g, w) {
					t.Fatalf("ParseThresholdConfig(%s), ParseConfig(%s):\nupstream %q\nevictkit %q", show(c), show(cfg), w, g)
				}
			})
		})
	}
}

func TestParseThresholdFlag(t *testing.T) {
	segment := rapid.SampledFrom([]string{"memory.available<100Mi", " nodefs.available < 10% ", "a<1", "a<2", "",
		"memory.available=100Mi", "x<", "<y", "a<b<c"})
	rapid.Check(t, func(t *rapid.T) {
		var values []string
		for range rapid.IntRange(1, 3).Draw(t, "flags") {
			values = append(values, strings.Join(rapid.SliceOfN(segment, 0, 3).Draw(t, "segments"), ","))
		}
		var want map[string]string
		f := cliflag.NewLangleSeparatedMapStringString(&want)
		var wantErr error
		for _, v := range values {
			if wantErr = f.Set(v); wantErr != nil {
				break
			}
		}
		got, gotErr := thresholds.ParseThresholdFlag(values...)
		if (gotErr == nil) != (wantErr == nil) || (wantErr == nil && !maps.Equal(got, want)) {
			t.Fatalf("ParseThresholdFlag(%q): upstream (%v, %v), evictkit (%v, %v)", values, want, wantErr, got, gotErr)
		}
	})
}

// configured draws a valid configuration and parses it on both sides.
func configured(t *rapid.T) ([]evictionapi.Threshold, []thresholds.Threshold) {
	c := gen.ThresholdConfigOf(true).Draw(t, "config")
	up, err := upstreamParse(c)
	if err != nil {
		t.Skip("configuration does not parse")
	}
	ours, err := thresholds.ParseConfig(ourConfig(t, c))
	if err != nil {
		t.Fatalf("ParseConfig(%s): %v; upstream parses it", show(c), err)
	}
	return up, ours
}

// TestMet compares Met with thresholdsMet twice: on upstream's own parse of
// the configuration, as sets (both keep their input's order, and the two
// parses differ in order only), and on the library's thresholds converted,
// in order.
func TestMet(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		up, ours := configured(t)
		obs, upObs := observations(gen.Observations(gen.Epoch).Draw(t, "observations"))
		enforce := rapid.Bool().Draw(t, "enforceMinReclaim")
		got := thresholds.Met(ours, obs, enforce)
		for _, c := range []struct {
			input  []evictionapi.Threshold
			sorted bool
		}{{up, true}, {toUpstream(ours), false}} {
			want := upKeys(eviction.ThresholdsMet(logger, c.input, upObs, enforce), c.sorted)
			if g := ourKeys(got, c.sorted); !slices.Equal(g, want) {
				t.Fatalf("Met(%q, %s, %v), compared sorted=%v:\nupstream %q\nevictkit %q", ourKeys(ours, false), show(obs), enforce, c.sorted, want, g)
			}
		}
	})
}

func TestMerge(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		_, a := configured(t)
		_, b := configured(t)
		pool := append(a, b...)
		if len(pool) == 0 {
			t.Skip("no thresholds")
		}
		a = rapid.SliceOfNDistinct(rapid.SampledFrom(pool), 0, 6, ourKey).Draw(t, "a")
		b = rapid.SliceOfNDistinct(rapid.SampledFrom(pool), 0, 6, ourKey).Draw(t, "b")
		want := upKeys(eviction.MergeThresholds(toUpstream(a), toUpstream(b)), false)
		got := ourKeys(thresholds.Merge(a, b), false)
		if !slices.Equal(got, want) {
			t.Fatalf("Merge(%q, %q):\nupstream %q\nevictkit %q", ourKeys(a, false), ourKeys(b, false), want, got)
		}
	})
}

func TestNodeConditions(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		_, ours := configured(t)
		want := eviction.NodeConditions(toUpstream(ours))
		got := thresholds.NodeConditions(ours)
		if !slices.Equal(got, want) {
			t.Fatalf("NodeConditions(%q): upstream %v, evictkit %v", ourKeys(ours, false), want, got)
		}
	})
}

func TestUpdatedStats(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		_, ours := configured(t)
		obs, upObs := observations(gen.Observations(gen.Epoch).Draw(t, "observations"))
		last, upLast := observations(gen.Observations(gen.Epoch).Draw(t, "last"))
		want := upKeys(eviction.ThresholdsUpdatedStats(logger, toUpstream(ours), upObs, upLast), false)
		got := ourKeys(thresholds.UpdatedStats(ours, obs, last), false)
		if !slices.Equal(got, want) {
			t.Fatalf("UpdatedStats(%q, %s, %s):\nupstream %q\nevictkit %q", ourKeys(ours, false), show(obs), show(last), want, got)
		}
	})
}

// upstreamStarved returns every threshold upstream's synchronize can pick
// to reclaim from eligible: it sorts a randomly ordered list with
// byEvictionPriority, whose Less only puts memory signals first and
// unknown signals last, and takes the first threshold with a resource.
// The answer is therefore any memory-class threshold if there is one,
// otherwise any threshold with a resource. It also runs upstream's sort
// and pick once on the given order, which must land in that set.
func upstreamStarved(t *rapid.T, eligible []evictionapi.Threshold) (possible []string) {
	memory := func(s evictionapi.Signal) bool {
		return s == evictionapi.SignalMemoryAvailable || s == evictionapi.SignalAllocatableMemoryAvailable
	}
	for _, want := range []func(evictionapi.Threshold) bool{
		func(t evictionapi.Threshold) bool { return memory(t.Signal) },
		func(t evictionapi.Threshold) bool { return thresholds.Signal(t.Signal).Valid() },
	} {
		for _, th := range eligible {
			if want(th) {
				possible = append(possible, upKey(th))
			}
		}
		if len(possible) > 0 {
			break
		}
	}
	sorted := slices.Clone(eligible)
	sort.Sort(eviction.ByEvictionPriority(sorted))
	if th, _, ok := eviction.GetReclaimableThreshold(logger, sorted); ok != (len(possible) > 0) ||
		(ok && !slices.Contains(possible, upKey(th))) {
		t.Fatalf("harness: upstream picked (%v, %v) outside %q", upKey(th), ok, possible)
	}
	return possible
}

func TestStarvedResources(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		_, ours := configured(t)
		ours = rapid.Permutation(ours).Draw(t, "order")
		possible := upstreamStarved(t, toUpstream(ours))
		th, res, ok := thresholds.StarvedResources(ours)
		if ok != (len(possible) > 0) || (ok && !slices.Contains(possible, ourKey(th))) {
			t.Fatalf("StarvedResources(%q) = (%s, %v, %v); upstream can pick any of %q", ourKeys(ours, false), ourKey(th), res, ok, possible)
		}
		if want, _ := th.Signal.Resource(); ok && res != want {
			t.Fatalf("StarvedResources: resource %v for %s, want %v", res, ourKey(th), want)
		}
	})
}

// upstreamCycle is the kubelet eviction manager's synchronize reduced to
// its threshold pipeline, calling upstream's helpers in synchronize's order
// and keeping synchronize's state between calls.
type upstreamCycle struct {
	thresholds []evictionapi.Threshold
	period     time.Duration

	met        []evictionapi.Threshold
	first      eviction.ThresholdsObservedAt
	condLast   eviction.NodeConditionsObservedAt
	conditions []v1.NodeConditionType
	lastObs    eviction.SignalObservations
}

// observe runs one cycle and returns the met, eligible and fresh
// thresholds and the reported conditions.
func (c *upstreamCycle) observe(now time.Time, obs eviction.SignalObservations) (met, eligible, fresh []evictionapi.Threshold) {
	met = eviction.ThresholdsMet(logger, c.thresholds, obs, false)
	if len(c.met) > 0 {
		met = eviction.MergeThresholds(met, eviction.ThresholdsMet(logger, c.met, obs, true))
	}
	first := eviction.ThresholdsFirstObservedAt(met, c.first, now)
	condLast := eviction.NodeConditionsLastObservedAt(eviction.NodeConditions(met), c.condLast, now)
	c.conditions = eviction.NodeConditionsObservedSince(condLast, c.period, now)
	eligible = eviction.ThresholdsMetGracePeriod(logger, first, now)
	c.first, c.condLast, c.met = first, condLast, eligible
	fresh = eviction.ThresholdsUpdatedStats(logger, eligible, obs, c.lastObs)
	c.lastObs = obs
	return met, eligible, fresh
}

func conditionSet(cs []v1.NodeConditionType) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = string(c)
	}
	slices.Sort(out)
	return out
}

// set drops repeated entries of a sorted list. Two configured thresholds
// can be equal (a hard one and a soft one with grace period 0s); upstream's
// first-observed map, keyed by the threshold struct, merges them when their
// values are percentages and keeps both when they are quantities (distinct
// pointers), and the library keeps both. Which copies survive never changes
// a decision, so the pipeline is compared on sets.
func set(keys []string) []string { return slices.Compact(keys) }

// TestEvaluator runs a sequence of cycles through upstream's pipeline and
// the library's Evaluator and compares every cycle: met, eligible and fresh
// thresholds and reported conditions as sets (upstream's orders come from
// map iteration), and the threshold to reclaim (one of upstream's possible
// picks).
func TestEvaluator(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		up, ours := configured(t)
		period := rapid.SampledFrom([]time.Duration{0, 30 * time.Second, 5 * time.Minute}).Draw(t, "period")
		opts := thresholds.Options{PressureTransitionPeriod: period}
		if period == 0 {
			// The library reads 0 as "default"; the kubelet's explicit 0s
			// (no condition ever reported) is a negative period.
			opts.PressureTransitionPeriod = -1
		}
		ev, err := thresholds.NewEvaluator(ours, opts)
		if errors.Is(err, thresholds.ErrConflictingThresholds) {
			// Deliberate difference (documented at NewEvaluator): upstream
			// runs two thresholds that differ only in minimum reclaim; the
			// library refuses them.
			t.Skip(err.Error())
		}
		if err != nil {
			t.Fatalf("NewEvaluator(%q): %v; upstream runs this configuration", ourKeys(ours, false), err)
		}
		cycle := &upstreamCycle{thresholds: up, period: period}
		now := gen.Epoch
		var history []string
		for step := range rapid.IntRange(1, 8).Draw(t, "cycles") {
			now = now.Add(time.Duration(rapid.IntRange(0, 90).Draw(t, fmt.Sprintf("advance%d", step))) * time.Second)
			raw := gen.Observations(now).Draw(t, fmt.Sprintf("observations%d", step))
			obs, upObs := observations(raw)
			met, eligible, fresh := cycle.observe(now, upObs)
			r := ev.Observe(now, obs)
			history = append(history, fmt.Sprintf("cycle %d at +%v: %s", step, now.Sub(gen.Epoch), show(raw)))
			for _, c := range []struct {
				what      string
				want, got []string
			}{
				{"met", set(upKeys(met, true)), set(ourKeys(r.Met, true))},
				{"eligible", set(upKeys(eligible, true)), set(ourKeys(r.Eligible, true))},
				{"fresh", set(upKeys(fresh, true)), set(ourKeys(r.Fresh, true))},
				{"conditions", conditionSet(cycle.conditions), conditionSet(r.Conditions)},
			} {
				if !slices.Equal(c.got, c.want) {
					t.Fatalf("thresholds %q, cycle %d: %s: upstream %q, evictkit %q\n%s",
						ourKeys(ours, false), step, c.what, c.want, c.got, strings.Join(history, "\n"))
				}
			}
			possible := upstreamStarved(t, fresh)
			if r.Reclaim != (len(possible) > 0) || (r.Reclaim && !slices.Contains(possible, ourKey(r.Threshold))) {
				t.Fatalf("thresholds %q, cycle %d: evictkit reclaims (%v, %s); upstream can pick any of %q\n%s",
					ourKeys(ours, false), step, r.Reclaim, ourKey(r.Threshold), possible, strings.Join(history, "\n"))
			}
		}
	})
}

func TestWithContainerFs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		_, ours := configured(t)
		imageFs, split := rapid.Bool().Draw(t, "imageFs"), rapid.Bool().Draw(t, "split")
		want, wantErr := eviction.UpdateContainerFsThresholds(toUpstream(ours), imageFs, split)
		// Where the source filesystem has no threshold of a kind, upstream
		// still appends a containerfs threshold copied from an empty one:
		// no operator and no value, so thresholdsMet never meets it. The
		// library leaves it out; compare the thresholds that can be met.
		//
		// Deliberate difference (documented in package thresholds): of
		// several user containerfs thresholds of one kind (a hard one and a
		// soft one with grace period 0s), upstream replaces the last and
		// leaves the others unchanged; the library drops them. Upstream
		// keeps its input's positions, so drop those positions.
		if imageFs || !split {
			type kind struct {
				signal thresholds.Signal
				hard   bool
			}
			seen := map[kind]bool{} // walking backwards, the last of a kind comes first
			for i := len(ours) - 1; i >= 0; i-- {
				th := ours[i]
				if th.Signal != thresholds.ContainerFsAvailable && th.Signal != thresholds.ContainerFsInodesFree {
					continue
				}
				k := kind{th.Signal, th.IsHard()}
				if seen[k] {
					want = slices.Delete(want, i, i+1)
				}
				seen[k] = true
			}
		}
		want = slices.DeleteFunc(want, func(t evictionapi.Threshold) bool { return t.Operator != evictionapi.OpLessThan })
		// Upstream reports an override as an error beside a valid result; the
		// library returns it as warnings and no error.
		got, warnings, gotErr := thresholds.WithContainerFs(ours, thresholds.Layout{DedicatedImageFs: imageFs, SplitContainerImageFs: split})
		if gotErr != nil || (len(warnings) > 0) != (wantErr != nil) || !slices.Equal(ourKeys(got, true), upKeys(want, true)) {
			t.Fatalf("WithContainerFs(%q, imageFs=%v, split=%v):\nupstream %q, %v\nevictkit %q, warnings %v, %v",
				ourKeys(ours, false), imageFs, split, upKeys(want, true), wantErr, ourKeys(got, true), warnings, gotErr)
		}
	})
}

// summary draws a kubelet stats summary and the library's Summary with the
// same content; any figure may be missing.
func summary(t *rapid.T) (thresholds.Summary, *statsapi.Summary) {
	u64 := func(label string) *uint64 {
		if rapid.IntRange(0, 5).Draw(t, label+"?") == 0 {
			return nil
		}
		v := uint64(rapid.IntRange(0, 40).Draw(t, label)) * 50 * gen.Mi
		return &v
	}
	i64 := func(label string) *int64 {
		if rapid.IntRange(0, 5).Draw(t, label+"?") == 0 {
			return nil
		}
		v := int64(rapid.IntRange(0, 300000).Draw(t, label))
		return &v
	}
	at := func(label string) time.Time {
		return gen.Epoch.Add(time.Duration(rapid.IntRange(0, 3).Draw(t, label)) * time.Second)
	}
	memory := func(label string) (*thresholds.MemoryStats, *statsapi.MemoryStats) {
		if rapid.IntRange(0, 4).Draw(t, label+"?") == 0 {
			return nil, nil
		}
		m := thresholds.MemoryStats{Time: at(label + ".time"), AvailableBytes: u64(label + ".available"),
			WorkingSetBytes: u64(label + ".workingSet"), UsageBytes: u64(label + ".usage")}
		return &m, &statsapi.MemoryStats{Time: metav1.NewTime(m.Time), AvailableBytes: m.AvailableBytes,
			WorkingSetBytes: m.WorkingSetBytes, UsageBytes: m.UsageBytes}
	}
	fs := func(label string) (*thresholds.FsStats, *statsapi.FsStats) {
		if rapid.IntRange(0, 4).Draw(t, label+"?") == 0 {
			return nil, nil
		}
		f := thresholds.FsStats{Time: at(label + ".time"), AvailableBytes: u64(label + ".available"),
			CapacityBytes: u64(label + ".capacity"), InodesFree: u64(label + ".inodesFree"), Inodes: u64(label + ".inodes")}
		return &f, &statsapi.FsStats{Time: metav1.NewTime(f.Time), AvailableBytes: f.AvailableBytes,
			CapacityBytes: f.CapacityBytes, InodesFree: f.InodesFree, Inodes: f.Inodes}
	}
	var ours thresholds.Summary
	up := &statsapi.Summary{}
	ours.Memory, up.Node.Memory = memory("memory")
	var pods *statsapi.MemoryStats
	ours.PodsMemory, pods = memory("pods")
	if pods != nil {
		up.Node.SystemContainers = append(up.Node.SystemContainers, statsapi.ContainerStats{Name: statsapi.SystemContainerPods, Memory: pods})
	}
	ours.NodeFs, up.Node.Fs = fs("nodefs")
	imageFs, upImageFs := fs("imagefs")
	containerFs, upContainerFs := fs("containerfs")
	if imageFs != nil || containerFs != nil {
		ours.ImageFs, ours.ContainerFs = imageFs, containerFs
		up.Node.Runtime = &statsapi.RuntimeStats{ImageFs: upImageFs, ContainerFs: upContainerFs}
	}
	if rapid.IntRange(0, 4).Draw(t, "rlimit?") > 0 {
		r := thresholds.RlimitStats{Time: at("rlimit.time"), MaxPID: i64("maxPID"), NumOfRunningProcesses: i64("running")}
		ours.Rlimit = &r
		up.Node.Rlimit = &statsapi.RlimitStats{Time: metav1.NewTime(r.Time), MaxPID: r.MaxPID, NumOfRunningProcesses: r.NumOfRunningProcesses}
	}
	return ours, up
}

func TestMakeObservations(t *testing.T) {
	if goruntime.GOOS == "windows" {
		t.Skip("compares the Linux observations")
	}
	rapid.Check(t, func(t *rapid.T) {
		ours, up := summary(t)
		want, _ := eviction.MakeSignalObservations(logger, up)
		got := thresholds.MakeObservations(ours, thresholds.Linux)
		render := func(s string, avail, capacity *resource.Quantity, at time.Time) string {
			return fmt.Sprintf("%s: %d/%d at %v", s, avail.Value(), capacity.Value(), at.Sub(gen.Epoch))
		}
		var w, g []string
		for s, o := range want {
			w = append(w, render(string(s), o.Available(), o.Capacity(), o.Time()))
		}
		for s, o := range got {
			g = append(g, render(string(s), o.Available, o.Capacity, o.Time))
		}
		slices.Sort(w)
		slices.Sort(g)
		if !slices.Equal(g, w) {
			t.Fatalf("MakeObservations(%s):\nupstream %q\nevictkit %q", show(up), w, g)
		}
	})
}
