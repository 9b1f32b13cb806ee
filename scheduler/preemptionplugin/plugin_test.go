package preemptionplugin_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	clienttesting "k8s.io/client-go/testing"
	fwk "k8s.io/kube-scheduler/framework"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/preemption"
	"github.com/evictkit/eviction/scheduler/preemptionplugin"
)

var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func makeNode(name string, milliCPU int64) *v1.Node {
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU:    *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
			v1.ResourceMemory: resource.MustParse("8Gi"),
			v1.ResourcePods:   resource.MustParse("110"),
		}},
	}
}

func makePod(name string, priority int32, milliCPU int64, node string, labels map[string]string) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("uid-" + name), Labels: labels},
		Spec: v1.PodSpec{
			NodeName:      node,
			Priority:      &priority,
			SchedulerName: "default-scheduler",
			Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
				v1.ResourceCPU: *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
			}}}},
		},
	}
	if node != "" {
		st := metav1.NewTime(start)
		p.Status.StartTime = &st
		p.Status.Phase = v1.PodRunning
	}
	return p
}

// cluster is the state a test starts from.
type cluster struct {
	nodes     []*v1.Node
	pods      []*v1.Pod // bound pods
	pending   []*v1.Pod // preemptor and nominated pods
	nominated map[string][]*v1.Pod
	pdbs      []*policyv1.PodDisruptionBudget
	status    statuses // nil: every node Unschedulable by NodeResourcesFit
}

func (c cluster) handle(t *testing.T) *handle {
	t.Helper()
	var objs []runtime.Object
	for _, p := range append(slices.Clone(c.pods), c.pending...) {
		objs = append(objs, p)
	}
	for _, b := range c.pdbs {
		objs = append(objs, b)
	}
	h := newHandle(t, objs...)
	for _, n := range c.nodes {
		ni := &nodeInfo{node: n, gen: 1}
		for _, p := range c.pods {
			if p.Spec.NodeName == n.Name {
				ni.pods = append(ni.pods, podInfo{pod: p})
			}
		}
		h.nodes.infos = append(h.nodes.infos, ni)
	}
	for node, pods := range c.nominated {
		for _, p := range pods {
			h.nominated[node] = append(h.nominated[node], podInfo{pod: p})
		}
	}
	h.start(t)
	return h
}

func (c cluster) statusReader() statuses {
	if c.status != nil {
		return c.status
	}
	s := statuses{}
	for _, n := range c.nodes {
		s[n.Name] = fwk.NewStatus(fwk.Unschedulable, "Insufficient cpu").WithPlugin("NodeResourcesFit")
	}
	return s
}

func newPlugin(t *testing.T, h *handle, args preemptionplugin.Args) *preemptionplugin.Plugin {
	t.Helper()
	pl, err := preemptionplugin.NewWithOptions(context.Background(), &args, h, preemptionplugin.Options{
		Clock:  clocktesting.NewFakePassiveClock(start.Add(time.Hour)),
		Offset: preemption.FixedOffset(0),
	})
	require.NoError(t, err)
	return pl
}

// waitFor polls cond with a bound on the number of tries, not on time.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 2000 {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("gave up waiting for %s", what)
}

// writes lists the client's mutating calls as "verb resource/subresource ns/name".
func writes(h *handle) []string {
	var out []string
	for _, a := range h.client.Actions() {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		name := ""
		switch a := a.(type) {
		case clienttesting.DeleteAction:
			name = a.GetName()
		case clienttesting.PatchAction:
			name = a.GetName()
		case clienttesting.CreateAction:
			if m, ok := a.GetObject().(metav1.Object); ok {
				name = m.GetName()
			}
		}
		res := a.GetResource().Resource
		if sub := a.GetSubresource(); sub != "" {
			res += "/" + sub
		}
		out = append(out, a.GetVerb()+" "+res+" "+name)
	}
	return out
}

func threeNodes() cluster {
	return cluster{
		nodes: []*v1.Node{makeNode("n1", 4000), makeNode("n2", 4000), makeNode("n3", 4000)},
		pods: []*v1.Pod{
			makePod("a1", 100, 2000, "n1", nil), makePod("a2", 100, 2000, "n1", nil),
			makePod("b1", 10, 2000, "n2", nil), makePod("b2", 50, 2000, "n2", nil),
			makePod("c1", 200, 4000, "n3", nil),
		},
	}
}

func TestPostFilterPreemptsOnTheBestNode(t *testing.T) {
	c := threeNodes()
	preemptor := makePod("p", 1000, 2000, "", nil)
	low := makePod("low", 5, 1000, "", nil)
	low.Status.NominatedNodeName = "n2"
	c.pending = []*v1.Pod{preemptor, low}
	c.nominated = map[string][]*v1.Pod{"n2": {low}}
	h := c.handle(t)
	pl := newPlugin(t, h, preemptionplugin.DefaultArgs())

	res, st := pl.PostFilter(context.Background(), cycleState{}, preemptor, c.statusReader())
	require.True(t, st.IsSuccess(), st.Message())
	assert.Equal(t, "preemption: found a potential placement for pod on node n2, preempting 1 victims", st.Message())
	require.NotNil(t, res)
	assert.Equal(t, "n2", res.NominatedNodeName)
	assert.Equal(t, fwk.ModeOverride, res.NominatingMode)

	waitFor(t, "the victim's deletion", func() bool {
		_, err := h.client.CoreV1().Pods("default").Get(context.Background(), "b1", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	waitFor(t, "the event", func() bool { return len(h.recorder.list()) == 1 })
	assert.Equal(t, []string{
		"patch pods/status low",
		"patch pods/status b1",
		"delete pods b1",
	}, writes(h))
	assert.Equal(t, []event{{Regarding: "b1", Type: v1.EventTypeNormal, Reason: "Preempted", Action: "Preempting", Note: "Preempted by pod uid-p on node n2"}}, h.recorder.list())
	// The DisruptionTarget condition went with the patch.
	for _, a := range h.client.Actions() {
		if p, ok := a.(clienttesting.PatchAction); ok && p.GetName() == "b1" {
			assert.Contains(t, string(p.GetPatch()), `"reason":"PreemptionByScheduler"`)
			assert.Contains(t, string(p.GetPatch()), `"message":"default-scheduler: preempting to accommodate a higher priority pod"`)
		}
		if p, ok := a.(clienttesting.PatchAction); ok && p.GetName() == "low" {
			assert.JSONEq(t, `{"status":{"nominatedNodeName":null}}`, string(p.GetPatch()))
		}
	}
	waitFor(t, "the preemption to finish", func() bool { return pl.PreEnqueue(context.Background(), preemptor).IsSuccess() })
	assert.Empty(t, h.activatedPods())
}

func TestPostFilterStrictPDB(t *testing.T) {
	c := cluster{
		nodes: []*v1.Node{makeNode("n1", 4000)},
		pods:  []*v1.Pod{makePod("v", 10, 4000, "n1", map[string]string{"app": "db"})},
		pdbs: []*policyv1.PodDisruptionBudget{{
			ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
			Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: new(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}},
			Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: 0},
		}},
	}
	preemptor := makePod("p", 1000, 2000, "", nil)
	c.pending = []*v1.Pod{preemptor}

	t.Run("default violates the budget", func(t *testing.T) {
		h := c.handle(t)
		res, st := newPlugin(t, h, preemptionplugin.DefaultArgs()).PostFilter(context.Background(), cycleState{}, preemptor, c.statusReader())
		require.True(t, st.IsSuccess(), st.Message())
		assert.Equal(t, "n1", res.NominatedNodeName)
	})
	t.Run("strict leaves the preemptor pending", func(t *testing.T) {
		h := c.handle(t)
		args := preemptionplugin.DefaultArgs()
		args.StrictPDB = true
		res, st := newPlugin(t, h, args).PostFilter(context.Background(), cycleState{}, preemptor, c.statusReader())
		assert.Equal(t, fwk.Unschedulable, st.Code())
		assert.True(t, strings.HasPrefix(st.Message(), "preemption: 0/1 nodes are available"), st.Message())
		require.NotNil(t, res)
		assert.Equal(t, "", res.NominatedNodeName)
		assert.Empty(t, writes(h))
	})
}

func TestPostFilterEvictionAPI(t *testing.T) {
	c := cluster{
		nodes: []*v1.Node{makeNode("n1", 4000)},
		pods:  []*v1.Pod{makePod("v1", 10, 2000, "n1", nil), makePod("v2", 20, 2000, "n1", nil)},
	}
	preemptor := makePod("p", 1000, 4000, "", nil)
	c.pending = []*v1.Pod{preemptor}
	args := preemptionplugin.DefaultArgs()
	args.EvictionAPI = true

	t.Run("evicted then marked", func(t *testing.T) {
		h := c.handle(t)
		h.client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
			if a.GetSubresource() != "eviction" {
				return false, nil, nil
			}
			return true, nil, nil
		})
		pl := newPlugin(t, h, args)
		_, st := pl.PostFilter(context.Background(), cycleState{}, preemptor, c.statusReader())
		require.True(t, st.IsSuccess(), st.Message())
		waitFor(t, "two events", func() bool { return len(h.recorder.list()) == 2 })
		got := writes(h)
		slices.Sort(got)
		assert.Equal(t, []string{"create pods/eviction v1", "create pods/eviction v2", "patch pods/status v1", "patch pods/status v2"}, got)
	})
	t.Run("refused: victims stay, preemptor requeued", func(t *testing.T) {
		h := c.handle(t)
		h.client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
			if a.GetSubresource() != "eviction" {
				return false, nil, nil
			}
			return true, nil, apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
		})
		pl := newPlugin(t, h, args)
		_, st := pl.PostFilter(context.Background(), cycleState{}, preemptor, c.statusReader())
		require.True(t, st.IsSuccess(), st.Message())
		waitFor(t, "the preemptor's requeue", func() bool { return len(h.activatedPods()) == 1 })
		assert.Equal(t, []string{"p"}, h.activatedPods())
		// The victims go most important first: v2 is refused, so v1, the
		// last, is spared.
		assert.Equal(t, []string{"create pods/eviction v2"}, writes(h))
		require.Len(t, h.recorder.list(), 1)
		ev := h.recorder.list()[0]
		assert.Equal(t, "p", ev.Regarding)
		assert.Equal(t, "PreemptionRefused", ev.Reason)
		assert.Equal(t, v1.EventTypeWarning, ev.Type)
		assert.True(t, pl.PreEnqueue(context.Background(), preemptor).IsSuccess())
	})
}

func TestPostFilterNotEligible(t *testing.T) {
	c := threeNodes()
	never := v1.PreemptNever
	preemptor := makePod("p", 1000, 2000, "", nil)
	preemptor.Spec.PreemptionPolicy = &never
	c.pending = []*v1.Pod{preemptor}
	h := c.handle(t)
	res, st := newPlugin(t, h, preemptionplugin.DefaultArgs()).PostFilter(context.Background(), cycleState{}, preemptor, c.statusReader())
	assert.Nil(t, res, "the nomination is kept")
	assert.Equal(t, fwk.Unschedulable, st.Code())
	assert.Equal(t, "preemption: not eligible due to preemptionPolicy=Never.", st.Message())
}

func TestPostFilterFitsNowhere(t *testing.T) {
	c := threeNodes()
	preemptor := makePod("p", 1000, 8000, "", nil)
	preemptor.Status.NominatedNodeName = "n1"
	c.pending = []*v1.Pod{preemptor}
	c.status = statuses{}
	for _, n := range c.nodes {
		c.status[n.Name] = fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "Insufficient cpu").WithPlugin("NodeResourcesFit")
	}
	h := c.handle(t)
	res, st := newPlugin(t, h, preemptionplugin.DefaultArgs()).PostFilter(context.Background(), cycleState{}, preemptor, c.status)
	assert.Equal(t, fwk.Unschedulable, st.Code())
	assert.Equal(t, "preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.", st.Message())
	require.NotNil(t, res)
	assert.Equal(t, "", res.NominatedNodeName, "the nomination is cleared")
	assert.Empty(t, writes(h))
}

func TestPostFilterRunsProfileFilters(t *testing.T) {
	c := threeNodes()
	preemptor := makePod("p", 1000, 2000, "", nil)
	preemptor.Spec.Containers[0].Ports = []v1.ContainerPort{{HostPort: 8080, ContainerPort: 8080}}
	c.pending = []*v1.Pod{preemptor}
	h := c.handle(t)
	// The profile rejects n2 whatever is removed: the pick moves to n1.
	h.filter = func(_ *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
		if ni.Node().Name == "n2" {
			return fwk.NewStatus(fwk.Unschedulable, "node(s) didn't have free ports for the requested pod ports")
		}
		return nil
	}
	res, st := newPlugin(t, h, preemptionplugin.DefaultArgs()).PostFilter(context.Background(), cycleState{}, preemptor, c.statusReader())
	require.True(t, st.IsSuccess(), st.Message())
	assert.Equal(t, "n1", res.NominatedNodeName)
	assert.Positive(t, h.filterCalls)
}

func TestPostFilterSkipsProfileFiltersForResourceFailures(t *testing.T) {
	c := threeNodes()
	preemptor := makePod("p", 1000, 2000, "", nil)
	c.pending = []*v1.Pod{preemptor}
	h := c.handle(t)
	_, st := newPlugin(t, h, preemptionplugin.DefaultArgs()).PostFilter(context.Background(), cycleState{}, preemptor, c.statusReader())
	require.True(t, st.IsSuccess(), st.Message())
	assert.Zero(t, h.filterCalls)
}

func TestPreEnqueueHoldsThePreemptorUntilTheLastVictim(t *testing.T) {
	c := threeNodes()
	preemptor := makePod("p", 1000, 2000, "", nil)
	c.pending = []*v1.Pod{preemptor}
	h := c.handle(t)
	release := make(chan struct{})
	h.client.PrependReactor("delete", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		<-release
		return false, nil, nil
	})
	pl := newPlugin(t, h, preemptionplugin.DefaultArgs())
	_, st := pl.PostFilter(context.Background(), cycleState{}, preemptor, c.statusReader())
	require.True(t, st.IsSuccess(), st.Message())
	pre := pl.PreEnqueue(context.Background(), preemptor)
	assert.Equal(t, fwk.UnschedulableAndUnresolvable, pre.Code())
	assert.Equal(t, "waiting for the preemption for this pod to be finished", pre.Message())
	assert.True(t, pl.PreEnqueue(context.Background(), makePod("other", 1, 1, "", nil)).IsSuccess())
	close(release)
	waitFor(t, "the preemption to finish", func() bool { return pl.PreEnqueue(context.Background(), preemptor).IsSuccess() })
}

func TestEventsToRegister(t *testing.T) {
	h := newHandle(t)
	pl := newPlugin(t, h, preemptionplugin.DefaultArgs())
	evs, err := pl.EventsToRegister(context.Background())
	require.NoError(t, err)
	require.Len(t, evs, 1)
	assert.Equal(t, fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete}, evs[0].Event)
	hint, err := evs[0].QueueingHintFn(klogDiscard(), nil, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, fwk.QueueSkip, hint)
	assert.Equal(t, preemptionplugin.Name, pl.Name())
}
