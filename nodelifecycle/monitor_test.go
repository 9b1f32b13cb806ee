package nodelifecycle

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/events"
	"github.com/evictkit/eviction/taints"
)

var errAPI = errors.New("api down")

// fakeAPI is an API server of nodes, live leases and pods whose writes fail on demand.
type fakeAPI struct {
	nodes  map[string]*v1.Node
	leases map[string]string // live lease resourceVersions
	pods   map[string]*v1.Pod
	gone   map[string]bool // pods whose writes answer NotFound

	failStatus, failSwap, failPod, failLease  int // how many of the next calls fail
	loseStatus                                int // how many of the next status writes apply, then fail
	statusWrites, swaps, podWrites, leaseGets int
}

var _ API = (*fakeAPI)(nil)

func newFakeAPI() *fakeAPI {
	return &fakeAPI{nodes: map[string]*v1.Node{}, leases: map[string]string{}, pods: map[string]*v1.Pod{}}
}

func fail(n *int) bool {
	if *n > 0 {
		*n--
		return true
	}
	return false
}

func (a *fakeAPI) GetLease(_ context.Context, name string) (LiveLease, error) {
	a.leaseGets++
	if fail(&a.failLease) {
		return LiveLease{}, errAPI
	}
	rv, ok := a.leases[name]
	return LiveLease{Found: ok, ResourceVersion: rv}, nil
}

func (a *fakeAPI) GetNode(_ context.Context, name string) (*v1.Node, error) {
	n, ok := a.nodes[name]
	if !ok {
		return nil, errors.New("not found")
	}
	return n.DeepCopy(), nil
}

func (a *fakeAPI) UpdateNodeStatus(_ context.Context, node *v1.Node) error {
	a.statusWrites++
	if fail(&a.failStatus) {
		return errAPI
	}
	n := a.nodes[node.Name].DeepCopy()
	n.Status = node.Status
	a.nodes[node.Name] = n
	if fail(&a.loseStatus) {
		return errAPI
	}
	return nil
}

func (a *fakeAPI) SwapTaints(_ context.Context, name string, s Swap) error {
	a.swaps++
	if fail(&a.failSwap) {
		return errAPI
	}
	n := a.nodes[name].DeepCopy()
	n.Spec.Taints = s.Apply(n.Spec.Taints, t0)
	a.nodes[name] = n
	return nil
}

func (a *fakeAPI) UpdatePodStatus(_ context.Context, pod *v1.Pod) error {
	a.podWrites++
	if a.gone[pod.Name] {
		return apierrors.NewNotFound(v1.Resource("pods"), pod.Name)
	}
	if fail(&a.failPod) {
		return errAPI
	}
	a.pods[pod.Name] = pod
	return nil
}

// input lists the API's nodes (the cache is the API server here) with the given leases.
func (a *fakeAPI) input(leases map[string]*coordinationv1.Lease) PassInput {
	var nodes []*v1.Node
	for _, name := range []string{"n1", "n2", "n3"} {
		if n, ok := a.nodes[name]; ok {
			nodes = append(nodes, n)
		}
	}
	return PassInput{
		Nodes: nodes,
		Lease: func(name string) *coordinationv1.Lease { return leases[name] },
		Pods: func(name string) ([]*v1.Pod, error) {
			var out []*v1.Pod
			for _, p := range a.pods {
				if p.Spec.NodeName == name {
					out = append(out, p)
				}
			}
			return out, nil
		},
	}
}

func (a *fakeAPI) node(name, zone string, created, hb time.Time) {
	a.nodes[name] = withLabels(mkNode(name, created, readyCond(v1.ConditionTrue, hb, created)), v1.LabelTopologyZone, zone)
}

func podReady(p *v1.Pod) v1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady {
			return c.Status
		}
	}
	return ""
}

// A silent node whose status write fails is read again and judged again within the same
// pass; after StatusAttempts failures it is left out of the pass (not counted, no taint, no
// pod marked), and the next pass starts over.
func TestMonitorStatusWriteRetries(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		failing int
		counted bool
	}{
		{"one failure: written at the second attempt", 1, true},
		{"every attempt fails: the node is skipped", StatusAttempts, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api := newFakeAPI()
			api.node("n1", "z", at(-time.Hour), t0)
			api.node("n2", "z", at(-time.Hour), t0)
			api.pods["p"] = readyPod("p", "n1")
			m := drive(api, Config{DisableLeaseCircuitBreaker: true})
			_, err := m.Pass(ctx, t0, api.input(nil))
			require.NoError(t, err)

			api.failStatus = tc.failing
			hb := at(55 * time.Second)
			n2 := api.nodes["n2"].DeepCopy()
			n2.Status.Conditions[0].LastHeartbeatTime = mt(hb)
			api.nodes["n2"] = n2
			res, err := m.Pass(ctx, at(55*time.Second), api.input(nil))
			require.Error(t, err)
			assert.ErrorIs(t, err, errAPI)
			assert.ErrorIs(t, err, ErrCallFailed)
			assert.Equal(t, !tc.counted, errors.Is(err, ErrNodeSkipped))
			assert.ErrorContains(t, err, `nodelifecycle: node "n1": status write 1 of 5`)
			assert.Equal(t, min(tc.failing+1, StatusAttempts), api.statusWrites)
			np := res.Nodes[0]
			assert.Equal(t, tc.counted, np.Counted)
			assert.Equal(t, tc.counted, np.Enqueued)
			want := ZoneCounts{Ready: 1}
			if tc.counted {
				want.NotReady = 1
				require.NotNil(t, np.Status)
				assert.Equal(t, v1.ConditionFalse, podReady(api.pods["p"]))
			} else {
				assert.Nil(t, np.Status)
				assert.Equal(t, v1.ConditionTrue, podReady(api.pods["p"]))
			}
			assert.Equal(t, want, res.Counts[":\x00:z"])
			p, ok := m.Probe("n1")
			require.True(t, ok)
			assert.Equal(t, !tc.counted, p.ReadyTransitionTime.Equal(t0), "a failed write saves the probe before the write")
		})
	}
}

// A status write that turns a node not ready, applied by the server but whose answer is
// lost, still marks the node's pods not ready: the node read again is already Unknown, so
// its judgement sees no change, and upstream, judging only that, never marks them.
func TestMonitorLostStatusAnswerStillMarksPods(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI()
	api.node("n1", "z", at(-time.Hour), t0)
	api.pods["p"] = readyPod("p", "n1")
	m := drive(api, Config{DisableLeaseCircuitBreaker: true})
	_, err := m.Pass(ctx, t0, api.input(nil))
	require.NoError(t, err)

	api.loseStatus = 1
	res, err := m.Pass(ctx, at(55*time.Second), api.input(nil))
	require.ErrorIs(t, err, errAPI)
	assert.Equal(t, 1, api.statusWrites, "the node read again needs no second write")
	np := res.Nodes[0]
	assert.False(t, np.Health.BecameNotReady(), "upstream's test: the node read again is already Unknown")
	assert.True(t, np.TurnedNotReady)
	assert.Equal(t, v1.ConditionUnknown, np.Node.Status.Conditions[0].Status)
	require.Len(t, np.PodsNotReady, 1)
	assert.Equal(t, v1.ConditionFalse, podReady(api.pods["p"]))

	// The next pass changes nothing more.
	res, err = m.Pass(ctx, at(60*time.Second), api.input(nil))
	require.NoError(t, err)
	assert.False(t, res.Nodes[0].TurnedNotReady)
	assert.Empty(t, res.Nodes[0].PodsNotReady)
}

// A queued node whose taint write fails stays queued (no tombstone) and is tainted by a later
// drain once its zone has a token again.
func TestMonitorDrainKeepsFailedNodeQueued(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI()
	api.node("n1", "z", at(-time.Hour), t0)
	api.node("n2", "z", at(-time.Hour), t0)
	m := drive(api, Config{DisableLeaseCircuitBreaker: true})
	post := func(name string, s v1.ConditionStatus, now time.Time) {
		n := api.nodes[name].DeepCopy()
		n.Status.Conditions[0].Status, n.Status.Conditions[0].LastHeartbeatTime = s, mt(now)
		api.nodes[name] = n
	}
	get := func(name string) (*v1.Node, bool) { n, ok := api.nodes[name]; return n, ok }
	_, err := m.Pass(ctx, t0, api.input(nil))
	require.NoError(t, err)
	post("n1", v1.ConditionFalse, at(time.Second))
	post("n2", v1.ConditionTrue, at(time.Second))
	res, err := m.Pass(ctx, at(5*time.Second), api.input(nil))
	require.NoError(t, err)
	require.True(t, res.Nodes[0].Enqueued)
	assert.Equal(t, QueueStatus{Len: 1, Rate: DefaultEvictionRate, NextDue: at(5 * time.Second), NextToken: at(5 * time.Second)},
		m.Queues(at(5 * time.Second))[":\x00:z"], "a new zone's bucket holds a token")

	api.failSwap = 1
	ws, err := m.Drain(ctx, at(5*time.Second), get)
	require.ErrorIs(t, err, errAPI)
	require.Len(t, ws, 1)
	assert.Equal(t, Queued, ws[0].Reason)
	queued, tomb := m.InQueue(":\x00:z", "n1")
	assert.True(t, queued && !tomb, "still queued after the failed write")

	ws, err = m.Drain(ctx, at(6*time.Second), get)
	require.NoError(t, err)
	assert.Empty(t, ws, "no token yet: one per 10 s at 0.1 nodes/s")

	// The next token comes 10 s after the one spent, less the rounding of
	// float32(0.1) nodes/s; a Drain a nanosecond earlier does nothing.
	next := m.Queues(at(6 * time.Second))[":\x00:z"].NextToken
	assert.WithinRange(t, next, at(15*time.Second-time.Microsecond), at(15*time.Second))
	ws, err = m.Drain(ctx, next.Add(-1), get)
	require.NoError(t, err)
	assert.Empty(t, ws, "a nanosecond before the next token")
	ws, err = m.Drain(ctx, next, get)
	require.NoError(t, err)
	require.Len(t, ws, 1)
	assert.Equal(t, []v1.Taint{taintNotReady()}, ws[0].Swap.Add)
	queued, tomb = m.InQueue(":\x00:z", "n1")
	assert.True(t, !queued && tomb)
	assert.Equal(t, 2, api.swaps)
	q := m.Queues(next)
	assert.WithinRange(t, q[":\x00:z"].NextToken, next.Add(10*time.Second-time.Microsecond), next.Add(10*time.Second))
	q[":\x00:z"] = QueueStatus{Len: q[":\x00:z"].Len, Rate: q[":\x00:z"].Rate}
	assert.Equal(t, map[string]QueueStatus{":\x00:z": {Rate: DefaultEvictionRate}}, q, "a tombstone is not counted")
}

func taintNotReady() v1.Taint {
	return v1.Taint{Key: v1.TaintNodeNotReady, Effect: v1.TaintEffectNoExecute}
}

// Pods whose marking failed are marked at the next pass, even though the node is no longer
// turning not ready then (upstream nodesToRetry).
func TestMonitorRetriesPodMarking(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI()
	api.node("n1", "z", at(-time.Hour), t0)
	api.node("n2", "z", at(-time.Hour), t0)
	api.pods["p"] = readyPod("p", "n1")
	m := drive(api, Config{DisableLeaseCircuitBreaker: true})
	keepAlive := func(now time.Time) {
		n := api.nodes["n2"].DeepCopy()
		n.Status.Conditions[0].LastHeartbeatTime = mt(now)
		api.nodes["n2"] = n
	}
	_, err := m.Pass(ctx, t0, api.input(nil))
	require.NoError(t, err)
	keepAlive(at(55 * time.Second))
	api.failPod = 1
	res, err := m.Pass(ctx, at(55*time.Second), api.input(nil))
	require.ErrorIs(t, err, errAPI)
	assert.ErrorContains(t, err, `nodelifecycle: pod default/p on node "n1": marking it not ready`)
	assert.Empty(t, res.Nodes[0].PodsNotReady)
	assert.Equal(t, v1.ConditionTrue, podReady(api.pods["p"]))

	keepAlive(at(60 * time.Second))
	res, err = m.Pass(ctx, at(60*time.Second), api.input(nil))
	require.NoError(t, err)
	require.Len(t, res.Nodes[0].PodsNotReady, 1)
	assert.Equal(t, v1.ConditionFalse, podReady(api.pods["p"]))

	keepAlive(at(65 * time.Second))
	writes := api.podWrites
	_, err = m.Pass(ctx, at(65*time.Second), api.input(nil))
	require.NoError(t, err)
	assert.Equal(t, writes, api.podWrites, "done: no more marking")
}

// The lease circuit breaker: an expired node whose live Lease moved is skipped and its
// resourceVersion recorded; every node is skipped while the lease cache is behind it; once
// the cache caught up, nodes are judged again.
func TestMonitorLeaseCircuitBreaker(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI()
	api.node("n1", "z", at(-time.Hour), t0)
	api.node("n2", "z", at(-time.Hour), t0)
	old := mkLease("n1", "5", ptr(t0))
	leases := map[string]*coordinationv1.Lease{"n1": old, "n2": mkLease("n2", "6", ptr(t0))}
	m := drive(api, Config{})
	in := api.input(leases)
	in.LeaseCacheRV = func() string { return "6" }
	_, err := m.Pass(ctx, t0, in)
	require.NoError(t, err)

	api.leases["n1"] = "9" // renewed, but the cache has not seen it
	leases["n2"] = mkLease("n2", "7", ptr(at(55*time.Second)))
	in = api.input(leases)
	in.LeaseCacheRV = func() string { return "7" }
	res, err := m.Pass(ctx, at(55*time.Second), in)
	require.ErrorIs(t, err, ErrNodeSkipped)
	assert.Equal(t, Skipped, res.Nodes[0].Health.Verdict)
	assert.Equal(t, Skipped, res.Nodes[1].Health.Verdict, "the cache is behind the recorded version: n2 too")
	assert.Empty(t, res.Counts)
	assert.Zero(t, api.statusWrites)

	leases["n1"] = mkLease("n1", "9", ptr(at(56*time.Second)))
	in = api.input(leases)
	in.LeaseCacheRV = func() string { return "9" }
	res, err = m.Pass(ctx, at(60*time.Second), in)
	require.NoError(t, err)
	assert.Equal(t, Fresh, res.Nodes[0].Health.Verdict)
	assert.Equal(t, ZoneCounts{Ready: 2}, res.Counts[":\x00:z"])

	// A live lease GET that fails skips the node for this pass only.
	api.failLease = 1
	res, err = m.Pass(ctx, at(2*time.Minute), in)
	require.ErrorIs(t, err, errAPI)
	assert.Equal(t, NeedsLeaseCheck, res.Nodes[0].Health.Verdict)
	assert.False(t, res.Nodes[0].Counted)
}

// Nodes seen for the first time lose their NoExecute taints; the all-zones-down mode strips
// every node's and stops the queues; leaving it restarts every probe at now.
func TestMonitorFirstSeenAndAllZonesDown(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI()
	api.node("n1", "a", at(-time.Hour), t0)
	api.node("n2", "b", at(-time.Hour), t0)
	n1 := api.nodes["n1"].DeepCopy()
	n1.Spec.Taints = []v1.Taint{ne(v1.TaintNodeUnreachable)}
	api.nodes["n1"] = n1
	m := drive(api, Config{DisableLeaseCircuitBreaker: true})
	res, err := m.Pass(ctx, t0, api.input(nil))
	require.NoError(t, err)
	// Then the judgement, on the node as listed (still tainted), removes it again: a no-op
	// write, as upstream's second RemoveTaintOffNode finds nothing to patch.
	unreachable := Swap{Remove: []v1.Taint{ne(v1.TaintNodeUnreachable)}}
	assert.Equal(t, []TaintWrite{{Node: "n1", Swap: unreachable, Reason: FirstSeen}, {Node: "n1", Swap: unreachable, Reason: BecameReady}}, res.Taints)
	assert.Empty(t, api.nodes["n1"].Spec.Taints)

	// Both kubelets go silent: marked Unknown at 55 s, the cluster goes all down.
	res, err = m.Pass(ctx, at(55*time.Second), api.input(nil))
	require.NoError(t, err)
	assert.True(t, res.Disruption.Entered)
	for zone, z := range m.Zones() {
		assert.Equal(t, ZoneFullDisruption, z.State, zone)
		assert.Zero(t, z.Rate, zone)
	}
	ws, err := m.Drain(ctx, at(56*time.Second), func(name string) (*v1.Node, bool) { return api.nodes[name], true })
	require.NoError(t, err)
	assert.Empty(t, ws, "stopped queues taint nothing")

	// n2's kubelet is back: the mode is left and every probe restarts.
	n2 := api.nodes["n2"].DeepCopy()
	n2.Status.Conditions[0] = readyCond(v1.ConditionTrue, at(58*time.Second), at(58*time.Second))
	api.nodes["n2"] = n2
	res, err = m.Pass(ctx, at(60*time.Second), api.input(nil))
	require.NoError(t, err)
	assert.True(t, res.Disruption.Exited)
	p, _ := m.Probe("n1")
	assert.Equal(t, at(60*time.Second), p.ProbeTime)
	assert.Equal(t, float32(DefaultEvictionRate), m.Zones()[":\x00:a"].Rate)
}

// A pod bound to a node whose saved Ready is not True is marked not ready; on a ready or
// unknown node nothing happens.
func TestMonitorPodBound(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI()
	api.node("n1", "z", at(-time.Hour), t0)
	m := drive(api, Config{DisableLeaseCircuitBreaker: true})
	pod := readyPod("p", "n1")
	got, err := m.PodBound(ctx, t0, pod)
	require.NoError(t, err)
	assert.Zero(t, got, "no saved probe yet")

	_, err = m.Pass(ctx, t0, api.input(nil))
	require.NoError(t, err)
	got, err = m.PodBound(ctx, t0, pod)
	require.NoError(t, err)
	assert.Zero(t, got, "node Ready")

	_, err = m.Pass(ctx, at(55*time.Second), api.input(nil))
	require.NoError(t, err)
	api.failPod = 1
	got, err = m.PodBound(ctx, at(56*time.Second), pod)
	require.ErrorIs(t, err, errAPI)
	assert.Nil(t, got.Pod, "not written")
	assert.Equal(t, []events.Event{PodNotReady(pod)}, got.Events, "upstream records the event after a failed write too")
	got, err = m.PodBound(ctx, at(56*time.Second), pod)
	require.NoError(t, err)
	require.NotNil(t, got.Pod)
	assert.Equal(t, v1.ConditionFalse, podReady(got.Pod))
	assert.Equal(t, []events.Event{PodNotReady(pod)}, got.Events)
	api.gone = map[string]bool{"p": true}
	got, err = m.PodBound(ctx, at(57*time.Second), pod)
	require.NoError(t, err, "a pod gone meanwhile is no error")
	assert.Zero(t, got, "and has no event")
	assert.Equal(t, v1.ConditionTrue, podReady(pod), "the caller's pod is not modified")
}

func TestSwapString(t *testing.T) {
	assert.Equal(t, "no change", Swap{}.String())
	assert.Equal(t, "+node.kubernetes.io/not-ready:NoExecute -node.kubernetes.io/unreachable:NoExecute",
		Swap{Add: []v1.Taint{ne(v1.TaintNodeNotReady)}, Remove: []v1.Taint{ne(v1.TaintNodeUnreachable)}}.String())
}

func TestWriteReasonString(t *testing.T) {
	for r, s := range map[WriteReason]string{FirstSeen: "FirstSeen", Swapped: "Swapped", BecameReady: "BecameReady",
		AllZonesDown: "AllZonesDown", Queued: "Queued", WriteReason(9): "WriteReason(9)"} {
		assert.Equal(t, s, r.String())
	}
}

// TestPropertyMonitorNilAPIIsAllSuccess: over random heartbeats, Lease renewals and clock
// steps, a Monitor without an API whose listed writes the caller applies decides exactly what
// a Monitor does whose API performs every write; no pass writes a status whose Ready is not
// Unknown, marks pods of a node that is ready, or leaves a node with both NoExecute taints;
// and every counted node is in its zone's counts.
func TestPropertyMonitorNilAPIIsAllSuccess(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		api := newFakeAPI()
		mirror := newFakeAPI() // the nil-API Monitor's cluster, written by the test
		names := []string{"n1", "n2", "n3"}
		for _, name := range names {
			zone := rapid.SampledFrom([]string{"a", "b"}).Draw(t, name+".zone")
			api.node(name, zone, at(-time.Hour), t0)
			mirror.node(name, zone, at(-time.Hour), t0)
			api.pods["p-"+name] = readyPod("p-"+name, name)
			mirror.pods["p-"+name] = readyPod("p-"+name, name)
		}
		cfg := Config{DisableLeaseCircuitBreaker: rapid.Bool().Draw(t, "noBreaker")}
		withAPI, without := drive(api, cfg), drive(nil, cfg)
		leases := map[string]*coordinationv1.Lease{}
		now := t0
		for i := range rapid.IntRange(1, 30).Draw(t, "ops") {
			switch rapid.IntRange(0, 4).Draw(t, fmt.Sprintf("op%d", i)) {
			case 0:
				name := rapid.SampledFrom(names).Draw(t, fmt.Sprintf("node%d", i))
				s := rapid.SampledFrom([]v1.ConditionStatus{v1.ConditionTrue, v1.ConditionFalse}).Draw(t, fmt.Sprintf("status%d", i))
				for _, a := range []*fakeAPI{api, mirror} {
					n := a.nodes[name].DeepCopy()
					c := findCondition(n.Status.Conditions, v1.NodeReady)
					if c.Status != s {
						c.LastTransitionTime = mt(now)
					}
					c.Status, c.LastHeartbeatTime = s, mt(now)
					a.nodes[name] = n
				}
			case 1:
				name := rapid.SampledFrom(names).Draw(t, fmt.Sprintf("lease%d", i))
				leases[name] = mkLease(name, fmt.Sprint(i), ptr(now))
				api.leases[name] = fmt.Sprint(i)
			case 2:
				now = now.Add(rapid.SampledFrom([]time.Duration{time.Second, 5 * time.Second, 30 * time.Second}).Draw(t, fmt.Sprintf("step%d", i)))
			case 3:
				r1, _ := withAPI.Pass(ctx, now, api.input(leases))
				r2, _ := without.Pass(ctx, now, mirror.input(leases))
				for _, np := range r2.Nodes {
					if np.Status != nil {
						n := mirror.nodes[np.Node.Name].DeepCopy()
						n.Status = *np.Status
						mirror.nodes[n.Name] = n
					}
					for _, p := range np.PodsNotReady {
						mirror.pods[p.Name] = p
					}
				}
				for _, w := range r2.Taints {
					n := mirror.nodes[w.Node].DeepCopy()
					n.Spec.Taints = w.Swap.Apply(n.Spec.Taints, t0)
					mirror.nodes[w.Node] = n
				}
				if r1.Disruption.String() != r2.Disruption.String() {
					t.Fatalf("zones: with API %s, without %s", r1.Disruption, r2.Disruption)
				}
				for z, c := range r1.Counts {
					if r2.Counts[z] != c {
						t.Fatalf("zone %q counts %+v and %+v", z, c, r2.Counts[z])
					}
				}
				counted := 0
				for _, np := range r1.Nodes {
					if np.Counted {
						counted++
					}
					if np.Status != nil && findCondition(np.Status.Conditions, v1.NodeReady).Status != v1.ConditionUnknown {
						t.Fatalf("%s: status written with Ready %v", np.Node.Name, findCondition(np.Status.Conditions, v1.NodeReady))
					}
					if len(np.PodsNotReady) > 0 && np.Health.Current != nil && np.Health.Current.Status == v1.ConditionTrue {
						t.Fatalf("%s: pods marked on a ready node", np.Node.Name)
					}
				}
				total := 0
				for _, c := range r1.Counts {
					total += c.Size()
				}
				if total != counted {
					t.Fatalf("%d counted, %d in the zone counts", counted, total)
				}
			case 4:
				get := func(a *fakeAPI) func(string) (*v1.Node, bool) {
					return func(name string) (*v1.Node, bool) { n, ok := a.nodes[name]; return n, ok }
				}
				_, _ = withAPI.Drain(ctx, now, get(api))
				w2, _ := without.Drain(ctx, now, get(mirror))
				for _, w := range w2 {
					n := mirror.nodes[w.Node].DeepCopy()
					n.Spec.Taints = w.Swap.Apply(n.Spec.Taints, t0)
					mirror.nodes[w.Node] = n
				}
			}
			for _, name := range names {
				a, b := api.nodes[name], mirror.nodes[name]
				if !apiequality.Semantic.DeepEqual(a.Status, b.Status) || !apiequality.Semantic.DeepEqual(a.Spec.Taints, b.Spec.Taints) {
					t.Fatalf("%s differs:\nwith API %+v %v\nwithout  %+v %v", name, a.Status, a.Spec.Taints, b.Status, b.Spec.Taints)
				}
				if taints.Exists(a.Spec.Taints, ptr(ne(v1.TaintNodeNotReady))) && taints.Exists(a.Spec.Taints, ptr(ne(v1.TaintNodeUnreachable))) {
					t.Fatalf("%s carries both NoExecute taints", name)
				}
				if podReady(api.pods["p-"+name]) != podReady(mirror.pods["p-"+name]) {
					t.Fatalf("pod on %s differs", name)
				}
			}
		}
	})
}

// A pass handed the last pass's Nodes to reuse fills that slice and returns what a pass
// with a slice of its own returns, through the node's expiry and its marking.
func TestMonitorPassReusesNodes(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI()
	api.node("n1", "z", at(-time.Hour), t0)
	api.node("n2", "z", at(-time.Hour), t0)
	cfg := Config{DisableLeaseCircuitBreaker: true}
	fresh, reusing := drive(nil, cfg), drive(nil, cfg)
	var last []NodePass
	for i := range 20 {
		now := at(time.Duration(i) * 5 * time.Second)
		want, err := fresh.Pass(ctx, now, api.input(nil))
		require.NoError(t, err)
		in := api.input(nil)
		in.Reuse = last
		got, err := reusing.Pass(ctx, now, in)
		require.NoError(t, err)
		assert.Equal(t, want, got, "pass at %v", now)
		if i > 0 {
			assert.Same(t, &last[0], &got.Nodes[0], "the slice handed back is reused")
		}
		last = got.Nodes
	}
}

// A pass reports the events upstream records, in its order: nodes registered (as listed) and
// removed (by name) first, then node by node the NodeNotReady of a node the pass turned not
// ready and the Warning of each of its pods, written or not, except a pod gone meanwhile.
func TestMonitorPassEvents(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI()
	api.node("n1", "z", at(-time.Hour), t0)
	api.node("n2", "z", at(-time.Hour), t0)
	api.node("n3", "z", at(-time.Hour), at(time.Hour)) // heartbeats throughout
	m := drive(api, Config{DisableLeaseCircuitBreaker: true})
	res, err := m.Pass(ctx, t0, api.input(nil))
	require.NoError(t, err)
	n1, n2, n3 := api.nodes["n1"], api.nodes["n2"], api.nodes["n3"]
	assert.Equal(t, []NodeRef{{"n1", n1.UID}, {"n2", n2.UID}, {"n3", n3.UID}}, res.Registered)
	assert.Equal(t, []events.Event{RegisteredNode("n1", n1.UID), RegisteredNode("n2", n2.UID), RegisteredNode("n3", n3.UID)}, res.Events)

	for _, name := range []string{"a", "b", "c"} {
		api.pods[name] = readyPod(name, "n1")
	}
	api.pods["d"] = readyPod("d", "n2")
	api.gone = map[string]bool{"b": true}
	api.failPod = 1 // the first pod write fails
	delete(api.nodes, "n3")
	res, err = m.Pass(ctx, at(55*time.Second), api.input(nil))
	require.ErrorIs(t, err, errAPI)
	assert.Empty(t, res.Registered)
	assert.Equal(t, []NodeRef{{"n3", n3.UID}}, res.Removed)
	// The fake API lists pods in map order: compare each node's pod events as a set.
	require.GreaterOrEqual(t, len(res.Events), 6)
	assert.Equal(t, RemovingNode("n3", n3.UID), res.Events[0])
	assert.Equal(t, NodeNotReady("n1", n1.UID), res.Events[1])
	assert.ElementsMatch(t, []events.Event{PodNotReady(api.pods["a"]), PodNotReady(api.pods["c"])}, res.Events[2:4], "b is gone: no event")
	assert.Equal(t, []events.Event{NodeNotReady("n2", n2.UID), PodNotReady(api.pods["d"])}, res.Events[4:])
	assert.Len(t, res.Nodes[0].PodsNotReady, 1, "one write of a and c failed, b is gone")
}

// With NoExecute tainting off (v1.26's --enable-taint-manager=false) a pass leaves every
// NoExecute taint alone: none removed from a node seen for the first time, none added to a
// failed node, none removed when the cluster goes all down; Drain does nothing. The rest of
// the pass (status writes, pods marked not ready, zone states) is unchanged.
func TestMonitorNoExecuteTaintingDisabled(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI()
	api.node("n1", "a", at(-time.Hour), t0)
	api.node("n2", "b", at(-time.Hour), t0)
	n1 := api.nodes["n1"].DeepCopy()
	n1.Spec.Taints = []v1.Taint{ne(v1.TaintNodeUnreachable)}
	api.nodes["n1"] = n1
	api.pods["p"] = readyPod("p", "n2")
	m := drive(api, Config{DisableLeaseCircuitBreaker: true, DisableNoExecuteTainting: true})
	res, err := m.Pass(ctx, t0, api.input(nil))
	require.NoError(t, err)
	assert.Empty(t, res.Taints)
	assert.Equal(t, []v1.Taint{ne(v1.TaintNodeUnreachable)}, api.nodes["n1"].Spec.Taints, "kept")

	// n1 stays up, n2 goes silent: marked Unknown, its pod not ready, never tainted.
	n1 = api.nodes["n1"].DeepCopy()
	n1.Status.Conditions[0].LastHeartbeatTime = mt(at(54 * time.Second))
	api.nodes["n1"] = n1
	res, err = m.Pass(ctx, at(55*time.Second), api.input(nil))
	require.NoError(t, err)
	require.Len(t, res.Nodes, 2)
	assert.True(t, res.Nodes[1].TurnedNotReady)
	assert.False(t, res.Nodes[1].Enqueued)
	assert.Equal(t, v1.ConditionFalse, podReady(api.pods["p"]))
	assert.Empty(t, res.Taints)
	ws, err := m.Drain(ctx, at(100*time.Second), func(name string) (*v1.Node, bool) { return api.nodes[name], true })
	require.NoError(t, err)
	assert.Empty(t, ws)
	assert.Empty(t, api.nodes["n2"].Spec.Taints)

	// Both silent: the cluster goes all down; n1's taint is still left alone.
	res, err = m.Pass(ctx, at(120*time.Second), api.input(nil))
	require.NoError(t, err)
	assert.True(t, res.Disruption.Entered)
	assert.Empty(t, res.Taints)
	assert.Equal(t, []v1.Taint{ne(v1.TaintNodeUnreachable)}, api.nodes["n1"].Spec.Taints)
	assert.Zero(t, api.swaps)
}

// blockingAPI holds the first node status write until release is closed,
// as a slow API server would; entered is closed when it starts waiting.
type blockingAPI struct {
	*fakeAPI
	entered, release chan struct{}
	once             sync.Once
}

func (a *blockingAPI) UpdateNodeStatus(ctx context.Context, node *v1.Node) error {
	a.once.Do(func() {
		close(a.entered)
		<-a.release
	})
	return a.fakeAPI.UpdateNodeStatus(ctx, node)
}

// Upstream's tainting pass runs every 100 ms beside its monitor pass, which
// may take seconds on a large cluster (a live Lease GET per silent node, a
// status write per node, every pod marked not ready). A Drain must not wait
// for a running Pass: at a thousand nodes, a Drain that waited tainted one
// node per pass instead of EvictionRate per second.
func TestMonitorDrainRunsBesideAPass(t *testing.T) {
	ctx := context.Background()
	fake := newFakeAPI()
	fake.node("n1", "z", at(-time.Hour), t0)
	fake.node("n2", "z", at(-time.Hour), t0) // healthy throughout: the zone is not all down
	api := &blockingAPI{fakeAPI: fake, entered: make(chan struct{}), release: make(chan struct{})}
	m := drive(api, Config{DisableLeaseCircuitBreaker: true})
	_, err := m.Pass(ctx, t0, fake.input(nil))
	require.NoError(t, err)
	n := fake.nodes["n1"].DeepCopy()
	n.Status.Conditions[0].Status, n.Status.Conditions[0].LastHeartbeatTime = v1.ConditionFalse, mt(at(time.Second))
	fake.nodes["n1"] = n
	// n1 posted Ready=False itself: no status write, it is queued for its taint.
	res, err := m.Pass(ctx, at(5*time.Second), fake.input(nil))
	require.NoError(t, err)
	require.True(t, res.Nodes[0].Enqueued)

	// Long after its last heartbeat the next pass writes n1's status, and
	// the API server holds that write.
	fake.nodes["n2"] = withLabels(mkNode("n2", at(-time.Hour), readyCond(v1.ConditionTrue, at(10*time.Minute), at(-time.Hour))), v1.LabelTopologyZone, "z")
	passed := make(chan error, 1)
	in := fake.input(nil)
	go func() {
		_, err := m.Pass(ctx, at(10*time.Minute), in)
		passed <- err
	}()
	<-api.entered
	get := func(name string) (*v1.Node, bool) { n, ok := fake.nodes[name]; return n, ok }
	drained := make(chan []TaintWrite, 1)
	go func() {
		ws, err := m.Drain(ctx, at(10*time.Minute), get)
		assert.NoError(t, err)
		drained <- ws
	}()
	select {
	case ws := <-drained:
		require.Len(t, ws, 1, "the queued node is tainted while the pass waits on the API server")
		assert.Equal(t, "n1", ws[0].Node)
	case <-time.After(time.Minute):
		t.Error("Drain waited for the Pass's API call")
	}
	close(api.release)
	require.NoError(t, <-passed)
}

// driven is a Monitor whose runs are driven through an API (nil: every call succeeds), with
// the methods of the Monitor before its runs were values, for the tests.
type driven struct {
	*Monitor
	api API
}

func drive(api API, cfg Config) driven { return driven{NewMonitor(cfg), api} }

func (d driven) Pass(ctx context.Context, now time.Time, in PassInput) (PassResult, error) {
	return d.Monitor.Pass(now, in).Do(ctx, d.api)
}

func (d driven) Drain(ctx context.Context, now time.Time, node func(string) (*v1.Node, bool)) ([]TaintWrite, error) {
	return d.Monitor.Drain(now, node).Do(ctx, d.api)
}

func (d driven) PodBound(ctx context.Context, now time.Time, pod *v1.Pod) (PodBoundResult, error) {
	return d.Monitor.PodBound(now, pod).Do(ctx, d.api)
}
