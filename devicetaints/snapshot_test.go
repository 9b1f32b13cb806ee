package devicetaints_test

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/evictkit/eviction/devicetaints"
)

// summary writes a decision with times relative to t0: "never", or
// "+30s by <taint> [<taints>...]".
func summary(d devicetaints.Decision) string {
	if !d.Evict {
		if len(d.Taints()) > 0 {
			return fmt.Sprintf("never, yet %d taints", len(d.Taints()))
		}
		return "never"
	}
	var ts []string
	for _, t := range d.Taints() {
		ts = append(ts, t.String())
	}
	return fmt.Sprintf("%s by %s [%s]", rel(d.At), d.Taint(), strings.Join(ts, "; "))
}

// rel writes t relative to t0: "+30s", "-1m0s".
func rel(t time.Time) string {
	if d := t.Sub(t0); d < 0 {
		return d.String()
	}
	return "+" + t.Sub(t0).String()
}

func TestSnapshotPod(t *testing.T) {
	p := pod("p", "c")
	gpu := taint("gpu", "broken", noExec)
	plain := []*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0"), device("d1"))}
	tainted := []*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0", gpu), device("d1"))}
	cases := []struct {
		name   string
		slices []*resourceapi.ResourceSlice
		claims []*resourceapi.ResourceClaim
		rules  []devicetaints.Rule
		opts   devicetaints.Options
		pod    *v1.Pod
		want   string
	}{
		{name: "no taint", slices: plain, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))}, pod: p, want: "never"},
		{name: "an untolerated NoExecute taint evicts at its time added",
			slices: tainted, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))}, pod: p,
			want: `+0s by slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute]`},
		{name: "a device the pod does not use",
			slices: tainted, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d1"))}, pod: p, want: "never"},
		{name: "NoSchedule and None taints do not evict",
			slices: []*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0", taint("a", "", noSch), taint("b", "", none), taint("c", "", "Future")))},
			claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))}, pod: p, want: "never"},
		{name: "tolerated for 30 s from the time added",
			slices: tainted, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0", tol("gpu", exists, "", noExec, 30)))}, pod: p,
			want: `+30s by slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute]`},
		{name: "the smallest seconds of the matching tolerations",
			slices: tainted, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0",
				tol("gpu", exists, "", noExec, 60), tol("", exists, "", noExec, 20), tol("gpu", equal, "other", noExec, 5)))}, pod: p,
			want: `+20s by slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute]`},
		{name: "negative seconds count as zero",
			slices: tainted, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0", tol("gpu", exists, "", noExec, -30)))}, pod: p,
			want: `+0s by slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute]`},
		{name: "a toleration without seconds tolerates forever, whatever the others say",
			slices: tainted, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0", tol("gpu", exists, "", noExec, 5), tol("gpu", exists, "", noExec)))}, pod: p,
			want: "never"},
		{name: "a toleration with an empty effect does not stop the eviction",
			slices: tainted, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0", tol("gpu", exists, "", "")))}, pod: p,
			want: `+0s by slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute]`},
		{name: "tolerations of another device of the claim do not count",
			slices: tainted, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"), result("pool", "d1", tol("gpu", exists, "", noExec)))}, pod: p,
			want: `+0s by slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute]`},
		{name: "the earliest of two taints, both reasons",
			slices: []*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0", taint("late", "", noExec), taint("early", "", noExec, at(-time.Minute))))},
			claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))}, pod: p,
			want: `-1m0s by slice "s1" gpu.example.com/pool/d0 taint 1 early:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 late:NoExecute; slice "s1" gpu.example.com/pool/d0 taint 1 early:NoExecute]`},
		{name: "a taint tolerated forever is no reason",
			slices: []*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0", taint("a", "", noExec), taint("b", "", noExec)))},
			claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0", tol("a", exists, "", noExec), tol("b", exists, "", noExec, 10)))}, pod: p,
			want: `+10s by slice "s1" gpu.example.com/pool/d0 taint 1 b:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 1 b:NoExecute]`},
		{name: "only the newest generation of a pool counts",
			slices: []*resourceapi.ResourceSlice{slice("old", "pool", 1, device("d0", gpu)), slice("new", "pool", 2, device("d0"))},
			claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))}, pod: p, want: "never"},
		{name: "a device published twice: the slice whose name sorts first",
			slices: []*resourceapi.ResourceSlice{slice("b", "pool", 1, device("d0")), slice("a", "pool", 1, device("d0", gpu))},
			claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))}, pod: p,
			want: `+0s by slice "a" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute [slice "a" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute]`},
		{name: "a rule taints a pool, even a device no slice publishes",
			claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "gone"))}, pod: p,
			rules: []devicetaints.Rule{rule("maint", "pool", taint("maint", "", noExec, at(time.Hour)))},
			want:  `+1h0m0s by rule "maint" maint:NoExecute [rule "maint" maint:NoExecute]`},
		{name: "a rule of effect None or NoSchedule does not evict",
			slices: plain, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))}, pod: p,
			rules: []devicetaints.Rule{rule("a", "", taint("a", "", none)), rule("b", "", taint("b", "", noSch))}, want: "never"},
		{name: "a rule without a selector selects nothing",
			slices: plain, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))}, pod: p,
			rules: []devicetaints.Rule{{Name: "r", Taint: taint("a", "", noExec)}}, want: "never"},
		{name: "a rule with an empty selector selects everything",
			slices: plain, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))}, pod: p,
			rules: []devicetaints.Rule{{Name: "r", Selector: &devicetaints.Selector{}, Taint: taint("a", "", noExec)}},
			want:  `+0s by rule "r" a:NoExecute [rule "r" a:NoExecute]`},
		{name: "a rule of another pool", slices: plain,
			claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))}, pod: p,
			rules: []devicetaints.Rule{rule("r", "other", taint("a", "", noExec))}, want: "never"},
		{name: "rules come first among the reasons, by name; a rule on two devices once",
			slices: tainted, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"), result("pool", "d1", tol("", exists, "", noExec, 5)))}, pod: p,
			rules: []devicetaints.Rule{rule("z", "", taint("z", "", noExec, at(-time.Hour))), rule("a", "", taint("a", "", noExec, at(time.Hour)))},
			want:  `-1h0m0s by rule "z" z:NoExecute [rule "a" a:NoExecute; rule "z" z:NoExecute; slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute]`},
		{name: "the earliest claim and the reasons of all",
			slices: []*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0", taint("x", "", noExec, at(time.Minute))), device("d1", taint("y", "", noExec, at(time.Second))))},
			claims: []*resourceapi.ResourceClaim{
				claim("c", []*v1.Pod{p}, result("pool", "d0")),
				claim("c2", []*v1.Pod{pod("p", "c", "c2")}, result("pool", "d1")),
			}, pod: pod("p", "c", "c2"),
			want: `+1s by slice "s1" gpu.example.com/pool/d1 taint 0 y:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 x:NoExecute; slice "s1" gpu.example.com/pool/d1 taint 0 y:NoExecute]`},
		{name: "a pod not bound to a node is never evicted",
			slices: tainted, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))},
			pod: func() *v1.Pod { q := p.DeepCopy(); q.Spec.NodeName = ""; return q }(), want: "never"},
		{name: "a pod being deleted or finished is still evicted",
			slices: tainted, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))},
			pod: func() *v1.Pod {
				q := p.DeepCopy()
				q.DeletionTimestamp = at(0)
				q.Status.Phase = v1.PodSucceeded
				return q
			}(),
			want: `+0s by slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute]`},
		{name: "a claim not reserved for the pod (by UID) does not count",
			slices: tainted, claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{pod("other", "c")}, result("pool", "d0"))}, pod: p, want: "never"},
		{name: "a claim not allocated does not count",
			slices: tainted, claims: []*resourceapi.ResourceClaim{func() *resourceapi.ResourceClaim {
				c := claim("c", []*v1.Pod{p}, result("pool", "d0"))
				c.Status.Allocation = nil
				return c
			}()}, pod: p, want: "never"},
		{name: "a claim from a template counts once the pod's status names it and the pod controls it",
			slices: tainted, claims: []*resourceapi.ResourceClaim{owned(claim("p-gpu-x", []*v1.Pod{p}, result("pool", "d0")), p)}, pod: fromTemplate(p, "p-gpu-x"),
			want: `+0s by slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute]`},
		{name: "a claim from a template that the pod does not control does not count",
			slices: tainted, claims: []*resourceapi.ResourceClaim{claim("p-gpu-x", []*v1.Pod{p}, result("pool", "d0"))}, pod: fromTemplate(p, "p-gpu-x"), want: "never"},
		{name: "the claim of the pod's extended resources counts when the pod controls it",
			slices: tainted, claims: []*resourceapi.ResourceClaim{owned(claim("ext", []*v1.Pod{p}, result("pool", "d0")), p)},
			pod: func() *v1.Pod {
				q := pod("p")
				q.Status.ExtendedResourceClaimStatus = &v1.PodExtendedResourceClaimStatus{ResourceClaimName: "ext"}
				return q
			}(),
			want: `+0s by slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute]`},
		{name: "a claim reserved for the pod's PodGroup counts with WorkloadResourceClaims",
			slices: tainted, claims: []*resourceapi.ResourceClaim{forGroup(claim("c", nil, result("pool", "d0")), "g")}, pod: inGroup(p, "g"),
			opts: devicetaints.Options{WorkloadResourceClaims: true},
			want: `+0s by slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 gpu=broken:NoExecute]`},
		{name: "and not without", slices: tainted, claims: []*resourceapi.ResourceClaim{forGroup(claim("c", nil, result("pool", "d0")), "g")}, pod: inGroup(p, "g"), want: "never"},
		{name: "a taint without time added evicts nobody by itself",
			slices: []*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0", taint("gpu", "", noExec, nil)))},
			claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))}, pod: p, want: "never"},
		{name: "nor when a toleration with seconds matches it (upstream panics)",
			slices: []*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0", taint("gpu", "", noExec, nil)))},
			claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0", tol("gpu", exists, "", noExec, 5)))}, pod: p, want: "never"},
		{name: "but is a reason when another taint evicts",
			slices: []*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0", taint("a", "", noExec, nil), taint("b", "", noExec)))},
			claims: []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"))}, pod: p,
			want: `+0s by slice "s1" gpu.example.com/pool/d0 taint 1 b:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 a:NoExecute; slice "s1" gpu.example.com/pool/d0 taint 1 b:NoExecute]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := devicetaints.NewSnapshot(tc.slices, tc.claims, tc.rules, tc.opts)
			assert.Equal(t, tc.want, summary(s.Pod(tc.pod)))
		})
	}
}

func owned(c *resourceapi.ResourceClaim, p *v1.Pod) *resourceapi.ResourceClaim {
	c.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: ptr.To(true)}}
	return c
}

func fromTemplate(p *v1.Pod, claimName string) *v1.Pod {
	q := pod(p.Name)
	q.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimTemplateName: ptr.To("tmpl")}}
	q.Status.ResourceClaimStatuses = []v1.PodResourceClaimStatus{{Name: "gpu", ResourceClaimName: ptr.To(claimName)}}
	return q
}

func forGroup(c *resourceapi.ResourceClaim, group string) *resourceapi.ResourceClaim {
	c.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{APIGroup: "scheduling.k8s.io", Resource: "podgroups", Name: group, UID: "group-uid"}}
	return c
}

func inGroup(p *v1.Pod, group string) *v1.Pod {
	q := p.DeepCopy()
	q.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: ptr.To(group)}
	return q
}

func TestSnapshotSecondsSaturate(t *testing.T) {
	// Upstream computes time.Duration(seconds) * time.Second with
	// wrap-around: 18 446 744 074 s becomes +290 ms, so upstream evicts a
	// claim that tolerates for 585 years at once. Here the time saturates.
	p := pod("p", "c")
	for _, secs := range []int64{9223372036, 9223372037, 18446744074, math.MaxInt64} {
		s := devicetaints.NewSnapshot(
			[]*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0", taint("gpu", "", noExec)))},
			[]*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0", tol("gpu", exists, "", noExec, secs)))}, nil, devicetaints.Options{})
		d := s.Pod(p)
		if min := t0.Add(290 * 365 * 24 * time.Hour); !d.Evict || d.At.Before(min) {
			t.Errorf("seconds %d: %v, want an eviction after %v", secs, d, min)
		}
	}
}

func TestSnapshotDeviceTaints(t *testing.T) {
	s := devicetaints.NewSnapshot(
		[]*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0", taint("own", "", noSch), taint("own2", "", noExec)))},
		nil,
		[]devicetaints.Rule{rule("z", "pool", taint("z", "", none)), rule("a", "", taint("a", "", noExec)), rule("other", "other", taint("o", "", noExec))},
		devicetaints.Options{})
	var got []string
	for _, tn := range s.DeviceTaints(devicetaints.DeviceID{Driver: driver, Pool: "pool", Device: "d0"}) {
		got = append(got, tn.String())
	}
	want := []string{
		`slice "s1" gpu.example.com/pool/d0 taint 0 own:NoSchedule`,
		`slice "s1" gpu.example.com/pool/d0 taint 1 own2:NoExecute`,
		`rule "a" a:NoExecute`,
		`rule "z" z:None`,
	}
	assert.Equal(t, want, got)
}

func TestSnapshotClaimOutsideTheSnapshot(t *testing.T) {
	s := devicetaints.NewSnapshot([]*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0", taint("gpu", "", noExec)))}, nil, nil, devicetaints.Options{})
	c := claim("c", nil, result("pool", "d0", tol("gpu", exists, "", noExec, 7)))
	if got, want := summary(s.Claim(c)), `+7s by slice "s1" gpu.example.com/pool/d0 taint 0 gpu:NoExecute [slice "s1" gpu.example.com/pool/d0 taint 0 gpu:NoExecute]`; got != want {
		t.Errorf("Claim = %s, want %s", got, want)
	}
	if d := s.Claim(nil); d.Evict {
		t.Errorf("Claim(nil) = %v", d)
	}
	if d := s.Pod(nil); d.Evict {
		t.Errorf("Pod(nil) = %v", d)
	}
}

func TestSnapshotDoesNotModifyInputs(t *testing.T) {
	p := pod("p", "c")
	sl := []*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0", taint("gpu", "", noExec)))}
	cl := []*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0", tol("gpu", exists, "", noExec, 7)))}
	rl := []devicetaints.Rule{rule("r", "", taint("r", "", noExec))}
	sl0, cl0, p0 := sl[0].DeepCopy(), cl[0].DeepCopy(), p.DeepCopy()
	s := devicetaints.NewSnapshot(sl, cl, rl, devicetaints.Options{})
	_ = s.Pod(p)
	_ = s.DeviceTaints(devicetaints.DeviceID{Driver: driver, Pool: "pool", Device: "d0"})
	assert.Equal(t, sl0, sl[0], "slice modified")
	assert.Equal(t, cl0, cl[0], "claim modified")
	assert.Equal(t, p0, p, "pod modified")
}

func TestSnapshotConcurrentReads(t *testing.T) {
	// Run with -race: a Snapshot is read-only once made.
	p := pod("p", "c")
	s := devicetaints.NewSnapshot(
		[]*resourceapi.ResourceSlice{slice("s1", "pool", 1, device("d0", taint("gpu", "", noExec))), slice("s2", "other", 1, device("d0"))},
		[]*resourceapi.ResourceClaim{claim("c", []*v1.Pod{p}, result("pool", "d0"), result("other", "d0"))},
		[]devicetaints.Rule{rule("r", "", taint("r", "", noExec))}, devicetaints.Options{})
	want := s.Pod(p).String()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 100 {
				assert.Equal(t, want, s.Pod(p).String())
				s.Claim(claim("x", nil, result("pool", "d0"), result("nowhere", "d9")))
				s.DeviceTaints(devicetaints.DeviceID{Driver: driver, Pool: "other", Device: "d0"})
			}
		})
	}
	wg.Wait()
}
