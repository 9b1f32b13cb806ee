package devicetaints_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/devicetaints"
)

// show writes a Step's result with times relative to t0, one line per
// write, for step tables.
func show(r devicetaints.Result) []string {
	var out []string
	for _, s := range r.Statuses {
		c := s.Condition
		out = append(out, fmt.Sprintf("status %s %s %s %q gen %d at %s", s.Rule, c.Status, c.Reason, c.Message, c.ObservedGeneration, rel(c.LastTransitionTime.Time)))
	}
	for _, e := range r.Evictions {
		out = append(out, fmt.Sprintf("evict %s due %s by %s", e.Pod, rel(e.At), e.Taint))
	}
	for _, e := range r.Events {
		out = append(out, fmt.Sprintf("event %s/%s %s: %s", e.Object.Namespace, e.Object.Name, e.Reason, e.Message))
	}
	if !r.Next.IsZero() {
		out = append(out, "next "+rel(r.Next))
	}
	return out
}

// withCondition returns r as the API server holds it after the status
// write s: the condition stored, its time at second precision.
func withCondition(r devicetaints.Rule, s devicetaints.RuleStatus) *devicetaints.Rule {
	c := s.Condition
	c.LastTransitionTime = metav1.NewTime(c.LastTransitionTime.Truncate(time.Second))
	r.Conditions = []metav1.Condition{c}
	return &r
}

func TestControllerSliceTaint(t *testing.T) {
	p := pod("p", "c")
	clean := slice("s1", "pool", 1, device("d0"))
	tainted := slice("s1", "pool", 1, device("d0", taint("gpu", "", noExec, at(2*time.Second))))
	c := devicetaints.NewController(devicetaints.Options{})
	c.SliceChanged(nil, clean)
	c.ClaimChanged(nil, claim("c", []*v1.Pod{p}, result("pool", "d0", tol("gpu", exists, "", noExec, 30))))
	c.PodChanged(nil, p)
	assert.Empty(t, show(c.Step(t0)))

	c.SliceChanged(clean, tainted)
	assert.Equal(t, []string{"next +32s"}, show(c.Step(t0.Add(5*time.Second))))
	assert.Equal(t, "evict at 2026-03-01T12:00:32Z (slice \"s1\" gpu.example.com/pool/d0 taint 0 gpu:NoExecute)", c.Decision(p).String())

	// Irrelevant pod updates change nothing.
	q := p.DeepCopy()
	q.Labels = map[string]string{"a": "b"}
	c.PodChanged(p, q)
	assert.Equal(t, []string{"next +32s"}, show(c.Step(t0.Add(6*time.Second))))

	res := c.Step(t0.Add(32 * time.Second))
	assert.Equal(t, []string{`evict ns/p due +32s by slice "s1" gpu.example.com/pool/d0 taint 0 gpu:NoExecute`}, show(res))
	// Handed out once, until reported.
	assert.Empty(t, show(c.Step(t0.Add(33*time.Second))))
	c.Evicted(res.Evictions[0], true)
	c.PodChanged(q, nil)
	assert.Empty(t, show(c.Step(t0.Add(33*time.Second))), "no rule: no status to check")
}

func TestControllerCancel(t *testing.T) {
	p := pod("p", "c")
	clean := slice("s1", "pool", 1, device("d0"))
	tainted := slice("s1", "pool", 1, device("d0", taint("gpu", "", noExec)))
	c := devicetaints.NewController(devicetaints.Options{})
	c.SliceChanged(nil, tainted)
	c.ClaimChanged(nil, claim("c", []*v1.Pod{p}, result("pool", "d0", tol("gpu", exists, "", noExec, 60))))
	c.PodChanged(nil, p)
	assert.Equal(t, []string{"next +1m0s"}, show(c.Step(t0)))

	c.SliceChanged(tainted, clean)
	assert.Equal(t, []string{"event ns/p DeviceTaintManagerEviction: Cancelling deletion"}, show(c.Step(t0.Add(10*time.Second))))
	assert.Empty(t, show(c.Step(t0.Add(time.Minute))))

	// A deleted pod's eviction goes without an event.
	c.SliceChanged(clean, tainted)
	assert.Equal(t, []string{"next +1m0s"}, show(c.Step(t0.Add(20*time.Second))))
	c.PodChanged(p, nil)
	assert.Empty(t, show(c.Step(t0.Add(21*time.Second))))
}

func TestControllerRuleStatus(t *testing.T) {
	p := pod("p", "c")
	r := rule("maint", "pool", taint("maint", "", noExec))
	c := devicetaints.NewController(devicetaints.Options{})
	c.SliceChanged(nil, slice("s1", "pool", 1, device("d0")))
	c.ClaimChanged(nil, claim("c", []*v1.Pod{p}, result("pool", "d0", tol("maint", exists, "", noExec, 30))))
	c.PodChanged(nil, p)
	c.Step(t0)

	c.RuleChanged(nil, &r)
	res := c.Step(t0)
	assert.Equal(t, []string{
		`status maint True PodsPendingEviction "1 pod needs to be evicted in 1 namespace." gen 1 at +0s`,
		"next +10s",
	}, show(res))
	stored := withCondition(r, res.Statuses[0])
	c.RuleChanged(&r, stored) // the status write comes back: nothing changes

	assert.Equal(t, []string{"next +30s"}, show(c.Step(t0.Add(10*time.Second))), "same condition: no write")
	res = c.Step(t0.Add(30 * time.Second))
	require.Len(t, res.Evictions, 1)
	assert.Equal(t, "maint", res.Evictions[0].Taint.Rule)
	c.Evicted(res.Evictions[0], true)
	c.PodChanged(p, nil)
	assert.Equal(t, []string{"next +40s"}, show(c.Step(t0.Add(30*time.Second))))
	res = c.Step(t0.Add(40 * time.Second))
	assert.Equal(t, []string{`status maint False Completed "1 pod evicted since starting the controller." gen 1 at +40s`}, show(res))

	// A deleted rule is forgotten, its statistics with it.
	c.RuleChanged(withCondition(r, res.Statuses[0]), nil)
	c.RuleChanged(nil, &r)
	assert.Equal(t, []string{`status maint False NotStarted "" gen 1 at +50s`}, show(c.Step(t0.Add(50*time.Second))))
}

func TestControllerRuleStatusPeriod(t *testing.T) {
	// A controller that starts finds the condition it wrote 3 s ago for
	// this generation: it waits 7 s before it looks again.
	p := pod("p", "c")
	r := rule("maint", "", taint("maint", "", noExec))
	r.Conditions = []metav1.Condition{{Type: devicetaints.EvictionInProgress, Status: metav1.ConditionFalse, Reason: "NotStarted", ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(t0.Add(-3 * time.Second))}}
	c := devicetaints.NewController(devicetaints.Options{})
	c.RuleChanged(nil, &r)
	c.ClaimChanged(nil, claim("c", []*v1.Pod{p}, result("pool", "d0", tol("maint", exists, "", noExec))))
	c.PodChanged(nil, p)
	assert.Equal(t, []string{"next +7s"}, show(c.Step(t0)))
	assert.Equal(t, []string{"next +7s"}, show(c.Step(t0.Add(6*time.Second))))
	assert.Empty(t, show(c.Step(t0.Add(7*time.Second))), "tolerated forever: still NotStarted")

	// A new generation is written at once.
	r2 := r
	r2.Generation = 2
	r2.Taint.Value = "v2"
	c.RuleChanged(&r, &r2)
	assert.Equal(t, []string{`status maint False NotStarted "" gen 2 at +8s`}, show(c.Step(t0.Add(8*time.Second))))
}

func TestControllerRuleEffects(t *testing.T) {
	p := pod("p", "c")
	c := devicetaints.NewController(devicetaints.Options{})
	c.SliceChanged(nil, slice("s1", "pool", 1, device("d0"), device("d1")))
	c.ClaimChanged(nil, claim("c", []*v1.Pod{p}, result("pool", "d0"), result("other", "x")))
	c.PodChanged(nil, p)
	c.Step(t0)

	r := rule("dry-run", "pool", taint("maint", "", none))
	c.RuleChanged(nil, &r)
	assert.Equal(t, []string{`status dry-run False NoEffect "2 published devices selected. 1 allocated device selected. ` +
		`1 pod would be evicted in 1 namespace if the effect was NoExecute. This information will not be updated again. ` +
		`Recreate the DeviceTaintRule to trigger an update." gen 1 at +0s`}, show(c.Step(t0)))
	assert.False(t, c.Decision(p).Evict, "effect None evicts nobody")

	s := rule("sched", "pool", taint("maint", "", noSch))
	c.RuleChanged(nil, &s)
	assert.Equal(t, []string{`status sched False OtherEffect "Eviction only happens for the NoExecute effect." gen 1 at +1s`}, show(c.Step(t0.Add(time.Second))))
}

func TestControllerRetry(t *testing.T) {
	p := pod("p", "c")
	c := devicetaints.NewController(devicetaints.Options{})
	c.SliceChanged(nil, slice("s1", "pool", 1, device("d0", taint("gpu", "", noExec))))
	c.ClaimChanged(nil, claim("c", []*v1.Pod{p}, result("pool", "d0")))
	c.PodChanged(nil, p)
	res := c.Step(t0)
	require.Len(t, res.Evictions, 1)
	c.Retry(res.Evictions[0], t0.Add(5*time.Second))
	assert.Equal(t, []string{"next +5s"}, show(c.Step(t0.Add(time.Second))))
	res = c.Step(t0.Add(5 * time.Second))
	require.Len(t, res.Evictions, 1, "retried")

	// Decided again while it runs: retried at once after a failure.
	q := p.DeepCopy()
	q.Spec.NodeName = "node-b"
	c.PodChanged(p, q)
	c.Retry(res.Evictions[0], t0.Add(time.Hour))
	assert.Len(t, c.Step(t0.Add(6*time.Second)).Evictions, 1)
}

func TestControllerEvictedPodKeepsItsEntry(t *testing.T) {
	// Upstream keeps re-deciding an evicted pod that still exists (being
	// deleted, say) without evicting it again, and records a cancellation
	// event when its taint goes away.
	p := pod("p", "c")
	clean := slice("s1", "pool", 1, device("d0"))
	tainted := slice("s1", "pool", 1, device("d0", taint("gpu", "", noExec)))
	c := devicetaints.NewController(devicetaints.Options{})
	c.SliceChanged(nil, tainted)
	cl := claim("c", []*v1.Pod{p}, result("pool", "d0"))
	c.ClaimChanged(nil, cl)
	c.PodChanged(nil, p)
	res := c.Step(t0)
	require.Len(t, res.Evictions, 1)
	c.Evicted(res.Evictions[0], true)

	cl2 := cl.DeepCopy()
	cl2.Labels = map[string]string{"x": "y"} // any update of an allocated claim re-decides its pods
	c.ClaimChanged(cl, cl2)
	assert.Empty(t, show(c.Step(t0.Add(time.Second))), "not evicted twice")
	c.SliceChanged(tainted, clean)
	assert.Equal(t, []string{"event ns/p DeviceTaintManagerEviction: Cancelling deletion"}, show(c.Step(t0.Add(2*time.Second))))
}

func TestControllerMatchesSnapshot(t *testing.T) {
	p1, p2 := pod("p1", "c1"), pod("p2", "c1", "c2")
	slices := []*resourceapi.ResourceSlice{
		slice("s1", "pool", 1, device("d0", taint("a", "", noExec)), device("d1")),
		slice("s2", "pool", 2, device("d0"), device("d1", taint("b", "x", noExec, at(time.Minute)))),
	}
	claims := []*resourceapi.ResourceClaim{
		claim("c1", []*v1.Pod{p1, p2}, result("pool", "d1", tol("b", exists, "", noExec, 5))),
		claim("c2", []*v1.Pod{p2}, result("pool", "d0"), result("other", "x")),
	}
	rules := []devicetaints.Rule{rule("r", "other", taint("r", "", noExec, at(time.Hour)))}
	c := devicetaints.NewController(devicetaints.Options{})
	for _, s := range slices {
		c.SliceChanged(nil, s)
	}
	for _, r := range rules {
		c.RuleChanged(nil, &r)
	}
	for _, cl := range claims {
		c.ClaimChanged(nil, cl)
	}
	s := devicetaints.NewSnapshot(slices, claims, rules, devicetaints.Options{})
	for _, p := range []*v1.Pod{p1, p2} {
		c.PodChanged(nil, p)
		want, got := s.Pod(p), c.Decision(p)
		assert.Equal(t, want.String(), got.String(), p.Name)
		assert.Equal(t, want.Taints(), got.Taints(), p.Name)
	}
	assert.Equal(t, []string{`+1m5s by slice "s2" gpu.example.com/pool/d1 taint 0 b=x:NoExecute [rule "r" r:NoExecute; slice "s2" gpu.example.com/pool/d1 taint 0 b=x:NoExecute]`},
		[]string{summary(c.Decision(p2))})
	out := show(c.Step(t0))
	assert.True(t, strings.HasPrefix(out[0], "status r True PodsPendingEviction \"1 pod needs"), out[0])
}
