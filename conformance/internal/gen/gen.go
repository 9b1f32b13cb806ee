// Package gen holds the rapid generators shared by every differential test
// of the conformance module: tolerations and taints with every operator and
// odd values, pods with init and sidecar containers and pod-level resources,
// node snapshots, PodDisruptionBudgets and signal observations.
//
// The generators draw from small pools on purpose: differential tests find
// disagreements where inputs collide (equal keys, equal priorities, equal
// start times), and a pool of a few values collides often, while an
// occasional arbitrary string covers what the pools miss.
package gen

import (
	"fmt"
	"math"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"pgregory.net/rapid"
)

// Epoch is the base of every generated time.
var Epoch = time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC)

// orArbitrary draws from pool most of the time and an arbitrary short
// string otherwise.
func orArbitrary(pool ...string) *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom(pool),
		rapid.SampledFrom(pool),
		rapid.SampledFrom(pool),
		rapid.StringN(0, 6, -1),
	)
}

// Key draws a taint or toleration key: empty, plain, prefixed, well known,
// invalid, or arbitrary.
func Key() *rapid.Generator[string] {
	return orArbitrary("", "k", "k2", "example.com/k", "node.kubernetes.io/not-ready",
		"node.kubernetes.io/unreachable", "K", "bad key!")
}

// NumericValue draws a value aimed at the Lt/Gt operators: canonical and
// non-canonical integers, the int64 limits and one past them.
func NumericValue() *rapid.Generator[string] {
	return rapid.OneOf(
		rapid.SampledFrom([]string{"", "0", "5", "6", "7", "-7", "-50", "-100", "950", "800",
			"00", "01", "06", "-0", "-", "+5", " 5", "5 ", "1.0", "1e3", "0x1F", "1_000", "١",
			"9223372036854775807", "9223372036854775808", "-9223372036854775808",
			"-9223372036854775809", "12345678901234567890"}),
		rapid.Map(rapid.Int64(), func(v int64) string { return fmt.Sprint(v) }),
	)
}

// Value draws a taint or toleration value: plain, numeric or arbitrary.
func Value() *rapid.Generator[string] {
	return rapid.OneOf(orArbitrary("", "v", "v2", "bar", "true"), NumericValue())
}

// Effect draws a taint effect, including empty and invalid ones.
func Effect() *rapid.Generator[v1.TaintEffect] {
	return rapid.SampledFrom([]v1.TaintEffect{"", v1.TaintEffectNoSchedule,
		v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute, "noschedule", "NoScheduleNoAdmit"})
}

// Operator draws a toleration operator: the four valid ones, empty, and
// invalid ones.
func Operator() *rapid.Generator[v1.TolerationOperator] {
	return rapid.SampledFrom([]v1.TolerationOperator{"", v1.TolerationOpEqual,
		v1.TolerationOpExists, v1.TolerationOpLt, v1.TolerationOpGt, "exists", "In"})
}

// Seconds draws a toleration's seconds: nil, non-positive, ordinary, and
// values around the int64 nanosecond overflow (9223372036 s is the last
// exact one).
func Seconds() *rapid.Generator[*int64] {
	return rapid.OneOf(
		rapid.Just[*int64](nil),
		rapid.Just[*int64](nil),
		rapid.Map(rapid.SampledFrom([]int64{-5, 0, 1, 2, 5, 60, 100, 300, 3600,
			9223372036, 9223372037, 18446744074, math.MaxInt64, math.MinInt64}), ptr64),
		rapid.Map(rapid.Int64Range(-10, 1<<40), ptr64),
	)
}

func ptr64(v int64) *int64 { return &v }

// Toleration draws any toleration, valid or not.
func Toleration() *rapid.Generator[v1.Toleration] {
	return rapid.Custom(func(t *rapid.T) v1.Toleration {
		return v1.Toleration{
			Key:               Key().Draw(t, "key"),
			Operator:          Operator().Draw(t, "operator"),
			Value:             Value().Draw(t, "value"),
			Effect:            Effect().Draw(t, "effect"),
			TolerationSeconds: Seconds().Draw(t, "seconds"),
		}
	})
}

// TolerationNear draws a toleration that, half of the time, copies the key
// (and sometimes the effect and value) of one of taints, so that matching
// gets past the key and effect checks often.
func TolerationNear(taints []v1.Taint) *rapid.Generator[v1.Toleration] {
	return rapid.Custom(func(t *rapid.T) v1.Toleration {
		tol := Toleration().Draw(t, "toleration")
		if len(taints) == 0 || rapid.Bool().Draw(t, "independent") {
			return tol
		}
		taint := rapid.SampledFrom(taints).Draw(t, "near")
		tol.Key = taint.Key
		if rapid.Bool().Draw(t, "sameEffect") {
			tol.Effect = taint.Effect
		}
		if rapid.Bool().Draw(t, "sameValue") {
			tol.Value = taint.Value
		}
		return tol
	})
}

// TolerationsNear draws up to max tolerations with [TolerationNear].
func TolerationsNear(taints []v1.Taint, max int) *rapid.Generator[[]v1.Toleration] {
	return rapid.SliceOfN(TolerationNear(taints), 0, max)
}

// Taint draws any taint, valid or not, sometimes with a TimeAdded.
func Taint() *rapid.Generator[v1.Taint] {
	return rapid.Custom(func(t *rapid.T) v1.Taint {
		taint := v1.Taint{
			Key:    Key().Draw(t, "key"),
			Value:  Value().Draw(t, "value"),
			Effect: Effect().Draw(t, "effect"),
		}
		if rapid.Bool().Draw(t, "timeAdded") {
			at := metav1.NewTime(Epoch.Add(time.Duration(rapid.IntRange(0, 100).Draw(t, "at")) * time.Second))
			taint.TimeAdded = &at
		}
		return taint
	})
}

// Tolerations draws up to max tolerations.
func Tolerations(max int) *rapid.Generator[[]v1.Toleration] {
	return rapid.SliceOfN(Toleration(), 0, max)
}

// Taints draws up to max taints.
func Taints(max int) *rapid.Generator[[]v1.Taint] {
	return rapid.SliceOfN(Taint(), 0, max)
}

// TaintSpec draws a kubectl taint argument: mostly well formed
// (key[=value]:Effect, key:Effect-, key-), sometimes arbitrary.
func TaintSpec() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		key := orArbitrary("k", "k2", "example.com/k", "Example.com/k", "a=b", "", "-k").Draw(t, "key")
		value := orArbitrary("", "v", "-v", "v.", "bad value").Draw(t, "value")
		effect := rapid.SampledFrom([]string{"", "NoSchedule", "PreferNoSchedule", "NoExecute", "noschedule", "NoSchedule "}).Draw(t, "effect")
		spec := key
		switch rapid.IntRange(0, 3).Draw(t, "valueForm") {
		case 1:
			spec += "=" + value
		case 2:
			spec += "="
		}
		switch rapid.IntRange(0, 3).Draw(t, "effectForm") {
		case 1, 2:
			spec += ":" + effect
		case 3:
			spec += ":" + effect + ":" + effect
		}
		if rapid.IntRange(0, 3).Draw(t, "remove") == 0 {
			spec += "-"
		}
		if rapid.IntRange(0, 9).Draw(t, "arbitrary") == 0 {
			return rapid.StringN(0, 12, -1).Draw(t, "spec")
		}
		return spec
	})
}

// Quantity draws a non-negative quantity of bytes (or count) in units of
// unit, with small values so that sums collide.
func Quantity(unit int64, max int) *rapid.Generator[resource.Quantity] {
	return rapid.Map(rapid.IntRange(0, max), func(n int) resource.Quantity {
		return *resource.NewQuantity(int64(n)*unit, resource.BinarySI)
	})
}

// Mi is one mebibyte.
const Mi = 1 << 20

// resources draws a resource list with optional cpu, memory,
// ephemeral-storage and an extended resource.
func resources(t *rapid.T, label string) v1.ResourceList {
	list := v1.ResourceList{}
	if rapid.Bool().Draw(t, label+".cpu?") {
		list[v1.ResourceCPU] = *resource.NewMilliQuantity(int64(rapid.IntRange(0, 8).Draw(t, label+".cpu")*50), resource.DecimalSI)
	}
	if rapid.Bool().Draw(t, label+".memory?") {
		list[v1.ResourceMemory] = Quantity(50*Mi, 8).Draw(t, label+".memory")
	}
	if rapid.IntRange(0, 3).Draw(t, label+".ephemeral?") == 0 {
		list[v1.ResourceEphemeralStorage] = Quantity(100*Mi, 8).Draw(t, label+".ephemeral")
	}
	if rapid.IntRange(0, 7).Draw(t, label+".gpu?") == 0 {
		list["example.com/gpu"] = *resource.NewQuantity(int64(rapid.IntRange(0, 2).Draw(t, label+".gpu")), resource.DecimalSI)
	}
	return list
}

// requirements draws requests and, sometimes, limits for one container.
// Limits equal to the requests make Guaranteed pods likely.
func requirements(t *rapid.T, label string) v1.ResourceRequirements {
	var r v1.ResourceRequirements
	switch rapid.IntRange(0, 3).Draw(t, label+".form") {
	case 0: // nothing: BestEffort
	case 1:
		r.Requests = resources(t, label+".requests")
	case 2:
		r.Requests = resources(t, label+".requests")
		r.Limits = r.Requests.DeepCopy()
	case 3:
		r.Requests = resources(t, label+".requests")
		r.Limits = resources(t, label+".limits")
	}
	if len(r.Requests) == 0 {
		r.Requests = nil
	}
	if len(r.Limits) == 0 {
		r.Limits = nil
	}
	return r
}

// PodOptions shapes the pods Pod draws.
type PodOptions struct {
	// Namespaces to draw from; default {"default"}.
	Namespaces []string
	// Labels to draw a subset of; default {"app": "foo", "tier": "x"}.
	Labels map[string]string
	// Priorities to draw from; nil means nil, default {nil, -100, 0, 100, 1000}.
	Priorities []*int32
	// PodLevel allows pod-level resources (spec.resources).
	PodLevel bool
	// Overhead allows spec.overhead.
	Overhead bool
	// AlwaysStarted gives every pod a start time (upstream reads the clock
	// anew for each nil start time, so ties between them are random).
	AlwaysStarted bool
}

// Int32 returns a pointer to v.
func Int32(v int32) *int32 { return &v }

// Pod draws a pod with 1–3 regular containers, up to 3 init containers
// (some of them sidecars with restartPolicy Always), optional pod-level
// resources and overhead, a priority, a start time and labels. Name and UID
// are name.
func Pod(name string, o PodOptions) *rapid.Generator[*v1.Pod] {
	if len(o.Namespaces) == 0 {
		o.Namespaces = []string{"default"}
	}
	if o.Labels == nil {
		o.Labels = map[string]string{"app": "foo", "tier": "x"}
	}
	if o.Priorities == nil {
		o.Priorities = []*int32{nil, Int32(-100), Int32(0), Int32(100), Int32(1000)}
	}
	return rapid.Custom(func(t *rapid.T) *v1.Pod {
		pod := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name:      name,
				Namespace: rapid.SampledFrom(o.Namespaces).Draw(t, "namespace"),
				UID:       types.UID(name),
			},
		}
		for k, v := range o.Labels {
			if rapid.Bool().Draw(t, "label."+k) {
				if pod.Labels == nil {
					pod.Labels = map[string]string{}
				}
				pod.Labels[k] = v
			}
		}
		pod.Spec.Priority = rapid.SampledFrom(o.Priorities).Draw(t, "priority")
		if o.AlwaysStarted || rapid.IntRange(0, 5).Draw(t, "startTime?") > 0 {
			st := metav1.NewTime(Epoch.Add(time.Duration(rapid.IntRange(0, 5).Draw(t, "startTime")) * time.Minute))
			pod.Status.StartTime = &st
		}
		for i := range rapid.IntRange(1, 3).Draw(t, "containers") {
			pod.Spec.Containers = append(pod.Spec.Containers, v1.Container{
				Name:      fmt.Sprintf("c%d", i),
				Resources: requirements(t, fmt.Sprintf("c%d", i)),
			})
		}
		always := v1.ContainerRestartPolicyAlways
		for i := range rapid.IntRange(0, 3).Draw(t, "initContainers") {
			c := v1.Container{Name: fmt.Sprintf("i%d", i), Resources: requirements(t, fmt.Sprintf("i%d", i))}
			if rapid.Bool().Draw(t, fmt.Sprintf("i%d.sidecar", i)) {
				c.RestartPolicy = &always
			}
			pod.Spec.InitContainers = append(pod.Spec.InitContainers, c)
		}
		if o.PodLevel && rapid.IntRange(0, 3).Draw(t, "podLevel?") == 0 {
			r := requirements(t, "pod")
			pod.Spec.Resources = &r
		}
		if o.Overhead && rapid.IntRange(0, 3).Draw(t, "overhead?") == 0 {
			pod.Spec.Overhead = resources(t, "overhead")
		}
		return pod
	})
}

// Pods draws between min and max pods named prefix0, prefix1, ….
func Pods(prefix string, min, max int, o PodOptions) *rapid.Generator[[]*v1.Pod] {
	return rapid.Custom(func(t *rapid.T) []*v1.Pod {
		n := rapid.IntRange(min, max).Draw(t, prefix+".n")
		pods := make([]*v1.Pod, n)
		for i := range n {
			pods[i] = Pod(fmt.Sprintf("%s%d", prefix, i), o).Draw(t, fmt.Sprintf("%s%d", prefix, i))
		}
		return pods
	})
}

// PDB draws a PodDisruptionBudget in one of namespaces whose selector is
// nil, empty, or on the labels of PodOptions' default pool, with a small
// budget and sometimes a disruptedPods entry naming one of podNames.
func PDB(name string, namespaces, podNames []string) *rapid.Generator[*policyv1.PodDisruptionBudget] {
	if len(namespaces) == 0 {
		namespaces = []string{"default"}
	}
	return rapid.Custom(func(t *rapid.T) *policyv1.PodDisruptionBudget {
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: rapid.SampledFrom(namespaces).Draw(t, "namespace")},
		}
		switch rapid.IntRange(0, 6).Draw(t, "selector") {
		case 0: // nil selector: matches nothing
		case 1:
			pdb.Spec.Selector = &metav1.LabelSelector{}
		case 2:
			pdb.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "app", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"x"}}}}
		case 3:
			pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "x"}}
		default:
			pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "foo"}}
		}
		one := intstr.FromInt32(1)
		pdb.Spec.MinAvailable = &one
		pdb.Status.DisruptionsAllowed = int32(rapid.IntRange(0, 2).Draw(t, "allowed"))
		if len(podNames) > 0 && rapid.IntRange(0, 3).Draw(t, "disrupted?") == 0 {
			pdb.Status.DisruptedPods = map[string]metav1.Time{
				rapid.SampledFrom(podNames).Draw(t, "disrupted"): metav1.NewTime(Epoch),
			}
		}
		return pdb
	})
}

// PDBs draws up to max PDBs.
func PDBs(max int, namespaces, podNames []string) *rapid.Generator[[]*policyv1.PodDisruptionBudget] {
	return rapid.Custom(func(t *rapid.T) []*policyv1.PodDisruptionBudget {
		n := rapid.IntRange(0, max).Draw(t, "pdbs")
		out := make([]*policyv1.PodDisruptionBudget, n)
		for i := range n {
			out[i] = PDB(fmt.Sprintf("pdb%d", i), namespaces, podNames).Draw(t, fmt.Sprintf("pdb%d", i))
		}
		return out
	})
}

// ThresholdConfig is a raw kubelet eviction configuration: the four flag
// maps and the node-allocatable enforcement list.
type ThresholdConfig struct {
	Hard, Soft, SoftGracePeriod, MinimumReclaim map[string]string
	EnforceNodeAllocatable                      []string
}

// EvictionSignals are the kubelet's eviction signal names.
var EvictionSignals = []string{"memory.available", "allocatableMemory.available",
	"nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree",
	"containerfs.available", "containerfs.inodesFree", "pid.available"}

// statements draws a signal → value map. With valid, signals and values
// are drawn from valid ones only.
func statements(t *rapid.T, label string, valid bool, values []string, invalid []string) map[string]string {
	signals := EvictionSignals
	if !valid {
		signals = append(slices.Clone(signals), "mem.available", "")
		values = append(slices.Clone(values), invalid...)
	}
	m := map[string]string{}
	for range rapid.IntRange(0, 3).Draw(t, label+".n") {
		m[rapid.SampledFrom(signals).Draw(t, label+".signal")] = rapid.SampledFrom(values).Draw(t, label+".value")
	}
	return m
}

// ThresholdConfigOf draws a configuration. With valid, every entry parses
// (except that a soft threshold may still lack its grace period).
func ThresholdConfigOf(valid bool) *rapid.Generator[ThresholdConfig] {
	return rapid.Custom(func(t *rapid.T) ThresholdConfig {
		thresholds := []string{"100Mi", "1Gi", "150Mi", "200Mi", "2Gi", "10%", "5%", "15%", "10.5%", "0.0%", "0%", "100%", "100.0%", "1000", "0"}
		badThresholds := []string{"-150Mi", "-15%", "150%", "", "10..5%", "1x", "abc"}
		c := ThresholdConfig{
			Hard: statements(t, "hard", valid, thresholds, badThresholds),
			Soft: statements(t, "soft", valid, thresholds, badThresholds),
			SoftGracePeriod: statements(t, "grace", valid, []string{"30s", "0s", "1m", "2m", "90s"},
				[]string{"-30s", "30mins", ""}),
			MinimumReclaim: statements(t, "minReclaim", valid, []string{"0", "500Mi", "1Gi", "5%", "150%", "100"},
				[]string{"-300Mi", "-15%", "0%", "", "10..5%"}),
		}
		if valid {
			// Give most soft thresholds their grace period.
			for s := range c.Soft {
				if _, ok := c.SoftGracePeriod[s]; !ok && rapid.IntRange(0, 5).Draw(t, "grace?") > 0 {
					c.SoftGracePeriod[s] = rapid.SampledFrom([]string{"30s", "0s", "1m", "2m"}).Draw(t, "grace")
				}
			}
		}
		if rapid.Bool().Draw(t, "allocatable") {
			c.EnforceNodeAllocatable = []string{"pods"}
		}
		return c
	})
}

// Observation is one signal observation: available and capacity (nil when
// absent) and the time of its statistics.
type Observation struct {
	Available, Capacity *int64
	Time                time.Time
}

// Observations draws observations for a random subset of the signals, with
// amounts around the thresholds ThresholdConfigOf draws (multiples of
// 50Mi, up to 3Gi), times within a few seconds of at, sometimes zero.
func Observations(at time.Time) *rapid.Generator[map[string]Observation] {
	return rapid.Custom(func(t *rapid.T) map[string]Observation {
		m := map[string]Observation{}
		for _, s := range EvictionSignals {
			if rapid.IntRange(0, 2).Draw(t, s+"?") == 0 {
				continue
			}
			var o Observation
			if rapid.IntRange(0, 9).Draw(t, s+".available?") > 0 {
				v := int64(rapid.IntRange(-1, 60).Draw(t, s+".available")) * 50 * Mi
				o.Available = &v
			}
			if rapid.IntRange(0, 9).Draw(t, s+".capacity?") > 0 {
				v := int64(rapid.IntRange(0, 60).Draw(t, s+".capacity")) * 50 * Mi
				o.Capacity = &v
			}
			switch rapid.IntRange(0, 5).Draw(t, s+".time") {
			case 0: // zero time
			case 1:
				o.Time = at.Add(-time.Second)
			default:
				o.Time = at
			}
			m[s] = o
		}
		return m
	})
}

// NodeWith draws a node named name with small allocatable amounts (cpu in
// steps of 100m up to 1, memory in steps of 100Mi up to 800Mi, up to 10
// pods, sometimes ephemeral storage and an extended resource), so that pods
// drawn by [Pod] often do not fit. At least min steps of cpu (100m) and
// memory (100Mi) and min pods make most nodes usable; with min 0 the pods
// entry is sometimes missing.
func NodeWith(name string, min int) *rapid.Generator[*v1.Node] {
	return rapid.Custom(func(t *rapid.T) *v1.Node {
		alloc := v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(int64(rapid.IntRange(min, 10).Draw(t, "cpu")*100), resource.DecimalSI),
			v1.ResourceMemory: *resource.NewQuantity(int64(rapid.IntRange(min, 8).Draw(t, "memory"))*100*Mi, resource.BinarySI),
		}
		if min > 0 || rapid.IntRange(0, 9).Draw(t, "pods?") > 0 {
			alloc[v1.ResourcePods] = *resource.NewQuantity(int64(rapid.IntRange(min, 10).Draw(t, "pods")), resource.DecimalSI)
		}
		if rapid.Bool().Draw(t, "ephemeral?") {
			alloc[v1.ResourceEphemeralStorage] = *resource.NewQuantity(int64(rapid.IntRange(0, 8).Draw(t, "ephemeral"))*100*Mi, resource.BinarySI)
		}
		if rapid.IntRange(0, 3).Draw(t, "gpu?") == 0 {
			alloc["example.com/gpu"] = *resource.NewQuantity(int64(rapid.IntRange(0, 3).Draw(t, "gpu")), resource.DecimalSI)
		}
		return &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name)},
			Status:     v1.NodeStatus{Allocatable: alloc, Capacity: alloc},
		}
	})
}

// ConditionStatus draws a node condition status: True, False, Unknown, or
// an odd string no kubelet posts.
func ConditionStatus() *rapid.Generator[v1.ConditionStatus] {
	return rapid.SampledFrom([]v1.ConditionStatus{v1.ConditionTrue, v1.ConditionTrue,
		v1.ConditionFalse, v1.ConditionUnknown, "true"})
}

// ZoneLabels draws a node's topology labels from a pool of four zones
// (GetZoneKey "", "r:\x00:a", ":\x00:b" and "r2:\x00:"), sometimes through
// the deprecated failure-domain labels, sometimes with a topology zone that
// an empty beta label hides.
func ZoneLabels() *rapid.Generator[map[string]string] {
	return rapid.SampledFrom([]map[string]string{
		nil,
		{v1.LabelFailureDomainBetaZone: "", v1.LabelTopologyZone: "hidden"},
		{v1.LabelTopologyRegion: "r", v1.LabelTopologyZone: "a"},
		{v1.LabelFailureDomainBetaRegion: "r", v1.LabelTopologyZone: "a"},
		{v1.LabelFailureDomainBetaZone: "b"},
		{v1.LabelTopologyZone: "b"},
		{v1.LabelTopologyRegion: "r2"},
	})
}

// ClockStep draws a clock step for sequences that judge deadlines: none, a
// nanosecond, a few seconds, and each of boundaries, one nanosecond less
// and one more.
func ClockStep(boundaries ...time.Duration) *rapid.Generator[time.Duration] {
	steps := []time.Duration{0, time.Nanosecond, time.Second, 5 * time.Second, 10 * time.Second}
	for _, b := range boundaries {
		steps = append(steps, b-time.Nanosecond, b, b+time.Nanosecond)
	}
	return rapid.SampledFrom(steps)
}
