package taintevictioncontroller

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/tainteviction"
	"github.com/evictkit/eviction/tolerations"
)

// decide taints a node with taints, its pods being pods, and returns the
// core's decision on each pod, by name. Nothing is evicted: the evictions
// Step hands out are not carried out.
func decide(t *testing.T, taints []v1.Taint, pods ...*v1.Pod) map[string]tainteviction.Outcome {
	t.Helper()
	lister := tainteviction.PodListerFunc(func(string) ([]*v1.Pod, error) { return pods, nil })
	c := tainteviction.New(lister, tainteviction.Options{Outcomes: true})
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}, Spec: v1.NodeSpec{Taints: taints}}
	if err := c.NodeUpdated(now, nil, node); err != nil {
		t.Fatal(err)
	}
	got := map[string]tainteviction.Outcome{}
	for _, o := range c.Step(now).Outcomes {
		got[o.Pod.Name] = o
	}
	if len(got) != len(pods) {
		t.Fatalf("%d pods decided, want %d", len(got), len(pods))
	}
	return got
}

func hostilePod(name string, tols []v1.Toleration) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID(name)},
		Spec:       v1.PodSpec{NodeName: "n", Tolerations: tols},
	}
}

// unmatched is n tolerations of keys no taint has.
func unmatched(n int) []v1.Toleration {
	tols := make([]v1.Toleration, n)
	for i := range tols {
		tols[i] = v1.Toleration{Key: fmt.Sprintf("example.com/other-%d", i), Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute}
	}
	return tols
}

func noExecute(key string) v1.Taint {
	return v1.Taint{Key: key, Effect: v1.TaintEffectNoExecute}
}

// A pod with ten thousand tolerations (a pod any user may create: the API
// server bounds them only by the object's size) is decided as one with the
// few that matter: the work is one pass over its tolerations for each of
// the node's NoExecute taints, and nothing is allocated per toleration.
func TestThousandsOfTolerations(t *testing.T) {
	const many = 10000
	minute := int64(60)
	taints := []v1.Taint{noExecute("k0"), noExecute("k1"), {Key: "k2", Effect: v1.TaintEffectNoSchedule}}
	got := decide(t, taints,
		hostilePod("tolerates-nothing", unmatched(many)),
		hostilePod("tolerates-at-the-end", append(unmatched(many), v1.Toleration{Operator: v1.TolerationOpExists})),
		hostilePod("for-a-minute", append(unmatched(many), v1.Toleration{Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: &minute})),
	)
	for name, want := range map[string]tolerations.Decision{
		"tolerates-nothing":    {Kind: tolerations.EvictNow},
		"tolerates-at-the-end": {Kind: tolerations.Never},
		"for-a-minute":         {Kind: tolerations.EvictAfter, Delay: time.Minute},
	} {
		if got[name].Decision != want {
			t.Errorf("%s: %v, want %v", name, got[name].Decision, want)
		}
	}
	if taint := got["tolerates-nothing"].Taint; taint.Key != "k0" {
		t.Errorf("tolerates-nothing: caused by %v, want the first untolerated taint k0", taint)
	}

	// The decision allocates as much for ten thousand tolerations as for
	// ten.
	node := taints[:2]
	allocs := func(n int) float64 {
		tols := unmatched(n)
		return testing.AllocsPerRun(5, func() { _ = tolerations.NoExecuteDecision(node, tols, tolerations.Options{}) })
	}
	if few, lots := allocs(10), allocs(many); lots > few {
		t.Errorf("deciding allocates %v times for %d tolerations, %v for 10", lots, many, few)
	}
}

// A node with thousands of NoExecute taints (only a node's updaters can
// put them there) is decided correctly for every pod: one that tolerates
// everything stays, one that tolerates each taint by its key (listed in
// reverse, the longest scans) stays, one that misses the last taint goes
// at once and the last taint is named as the cause. The work per pod is
// at most the node's NoExecute taints times the pod's tolerations.
func TestThousandsOfTaints(t *testing.T) {
	const many = 2000
	var taints []v1.Taint
	var each []v1.Toleration
	for i := range many {
		key := fmt.Sprintf("example.com/t-%d", i)
		taints = append(taints, noExecute(key), v1.Taint{Key: key, Effect: v1.TaintEffectNoSchedule})
		each = append([]v1.Toleration{{Key: key, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute}}, each...)
	}
	got := decide(t, taints,
		hostilePod("tolerates-all", []v1.Toleration{{Operator: v1.TolerationOpExists}}),
		hostilePod("tolerates-each", each),
		hostilePod("misses-the-last", each[1:]),
		hostilePod("tolerates-none", nil),
	)
	for name, want := range map[string]tolerations.DecisionKind{
		"tolerates-all":   tolerations.Never,
		"tolerates-each":  tolerations.Never,
		"misses-the-last": tolerations.EvictNow,
		"tolerates-none":  tolerations.EvictNow,
	} {
		if got[name].Decision.Kind != want {
			t.Errorf("%s: %v, want %v", name, got[name].Decision, want)
		}
	}
	if key := got["misses-the-last"].Taint.Key; key != fmt.Sprintf("example.com/t-%d", many-1) {
		t.Errorf("misses-the-last: caused by %q, want the last taint", key)
	}
	if key := got["tolerates-none"].Taint.Key; key != "example.com/t-0" {
		t.Errorf("tolerates-none: caused by %q, want the first taint", key)
	}
}
