package legacy

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	nl "github.com/evictkit/eviction/nodelifecycle"
)

// ours runs the legacy mode as a controller does: a Monitor with NoExecute tainting off, an
// Evictor beside it and DeletePods, over the world of a cluster (its nodes, leases and pods;
// the cluster's own controller state is unused).
type ours struct {
	w  *cluster
	m  *nl.Monitor
	ev *Evictor
}

func newOurs(w *cluster) *ours {
	cfg := w.cfg
	cfg.DisableNoExecuteTainting = true
	o := &ours{w: w, m: nl.NewMonitor(cfg), ev: NewEvictor(w.lcfg, cfg)}
	for name := range w.nodes {
		o.ev.NodeAdded(name)
	}
	return o
}

// DeletePod and UpdatePodStatus make the world a PodAPI.
func (w *cluster) UpdatePodStatus(_ context.Context, pod *v1.Pod) error {
	w.pods[pod.Name] = pod
	return nil
}

func (w *cluster) DeletePod(_ context.Context, pod *v1.Pod) error {
	if _, ok := w.pods[pod.Name]; !ok {
		return apierrors.NewNotFound(v1.Resource("pods"), pod.Name)
	}
	delete(w.pods, pod.Name)
	w.deleted = append(w.deleted, pod.Name)
	return nil
}

func (o *ours) deletePods(pods []*v1.Pod, node string) error {
	_, err := DeletePods(context.Background(), o.w, pods, node, types.UID("uid-"+node), o.w.daemonSets)
	return err
}

func (o *ours) pass(now time.Time) {
	w := o.w
	var nodes []*v1.Node
	for _, name := range slices.Sorted(maps.Keys(w.nodes)) {
		nodes = append(nodes, w.nodes[name])
	}
	res, err := o.m.Pass(now, nl.PassInput{
		Nodes: nodes,
		Lease: func(name string) *coordinationv1.Lease { return w.leases[name] },
		Pods:  func(name string) ([]*v1.Pod, error) { return w.podsOn(name), nil },
	}).Do(context.Background(), nil)
	if err != nil {
		panic(err)
	}
	for _, np := range res.Nodes {
		if np.Status != nil {
			w.nodes[np.Node.Name] = np.Node
			w.noSchedule(np.Node.Name, now)
		}
		for _, p := range np.PodsNotReady {
			w.pods[p.Name] = p
		}
	}
	acts, err := o.ev.AfterPass(now, res)
	if err != nil {
		panic(err)
	}
	for _, a := range acts {
		if a.Op == OpDeleteNow {
			if err := o.deletePods(w.podsOn(a.Node), a.Node); err != nil {
				panic(err)
			}
		}
	}
}

func (o *ours) try(now time.Time) {
	_, err := o.ev.Drain(now, func(node string, _ types.UID) error { return o.deletePods(o.w.podsOn(node), node) })
	if err != nil {
		panic(err)
	}
}

func (o *ours) podBound(podName string, now time.Time) {
	w := o.w
	pod := w.pods[podName]
	node := pod.Spec.NodeName
	p, ok := o.m.Probe(node)
	if !ok {
		return
	}
	op, _, err := o.ev.PodBound(now, node, w.nodes[node].UID, w.zoneOf(node), &p)
	if err != nil {
		panic(err)
	}
	if op == OpDeleteNow {
		if err := o.deletePods([]*v1.Pod{pod}, node); err != nil {
			panic(err)
		}
	}
	if p, ok := w.pods[podName]; ok {
		if _, err := o.m.PodBound(now, p).Do(context.Background(), nil); err != nil {
			panic(err)
		}
	}
}

// state is what the differential test compares: pods deleted, and per node its eviction state
// and place in its zone's queue.
type state struct {
	Deleted []string
	Nodes   map[string]snapshot
}

func (c *cluster) state(evictions func(name string) EvictionState, queued func(zone string) []string) state {
	s := state{Deleted: slices.Clone(c.deleted), Nodes: map[string]snapshot{}}
	for name := range c.nodes {
		q := queued(c.zoneOf(name))
		s.Nodes[name] = snapshot{Queued: slices.Contains(q, name), State: evictions(name)}
	}
	return s
}

// TestEvictorMatchesTheModel runs random histories of kubelets posting, going silent and coming
// back, pods bound to nodes, monitor passes and queue drains through both the test-only v1.26
// controller (built step by step from the package's decisions, with its own queues) and ours
// (Monitor, Evictor and DeletePods as a controller runs them), and requires the same pods
// deleted in the same order and the same eviction state and queue membership for every node.
func TestEvictorMatchesTheModel(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		model, world := newCluster(), newCluster()
		model.lcfg = Config{PodEvictionTimeout: time.Duration(rapid.IntRange(1, 90).Draw(rt, "timeout_s")) * time.Second}
		world.lcfg = model.lcfg
		names := []string{"n1", "n2", "n3"}
		zones := map[string]string{"n1": "a", "n2": "a", "n3": rapid.SampledFrom([]string{"a", "b"}).Draw(rt, "n3zone")}
		for _, c := range []*cluster{model, world} {
			for _, n := range names {
				c.addNode(n, zones[n], at(-time.Hour), t0)
				c.addPod("p-"+n, n)
			}
			c.daemonSets = NewDaemonSets([]*appsv1.DaemonSet{daemonSet("default", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "p-n2"}})})
		}
		o := newOurs(world)
		status := map[string]v1.ConditionStatus{"n1": tTrue, "n2": tTrue, "n3": tTrue} // "" = silent
		now := t0
		pods := 0
		steps := rapid.IntRange(1, 120).Draw(rt, "steps")
		for i := range steps {
			switch rapid.IntRange(0, 9).Draw(rt, "op") {
			case 0, 1: // a kubelet changes what it posts, or goes silent
				n := rapid.SampledFrom(names).Draw(rt, "node")
				status[n] = rapid.SampledFrom([]v1.ConditionStatus{tTrue, tFalse, ""}).Draw(rt, "status")
			case 2: // a pod is bound to a node
				n := rapid.SampledFrom(names).Draw(rt, "node")
				pods++
				name := fmt.Sprintf("q%d", pods)
				for _, c := range []*cluster{model, world} {
					c.addPod(name, n)
				}
				model.podBound(name, now)
				o.podBound(name, now)
			default: // time passes: kubelets post, then a pass and a drain
				now = now.Add(time.Duration(rapid.IntRange(1, 30).Draw(rt, "advance_s")) * time.Second)
				for _, n := range names {
					if status[n] != "" {
						model.kubelet(n, status[n], now)
						world.kubelet(n, status[n], now)
					}
				}
				model.pass(now)
				o.pass(now)
				drain := now.Add(100 * time.Millisecond)
				model.try(drain)
				o.try(drain)
			}
			want := model.state(func(n string) EvictionState { return model.evictions[n] }, func(z string) []string {
				q := model.queues[z]
				if q == nil {
					return nil
				}
				var out []string
				for _, v := range q.Values() {
					out = append(out, v.Value)
				}
				return out
			})
			got := world.state(func(n string) EvictionState { s, _ := o.ev.State(n); return s }, o.ev.Queued)
			require.Equal(rt, want, got, "after step %d at t0+%v", i, now.Sub(t0))
		}
	})
}

// A node silent from t0 with a 30 s timeout: its pod is deleted from the zone's queue once
// the probe is 30 s old, not before, and the DaemonSet pod stays; a node that comes back
// before the timeout keeps its pods.
func TestEvictorDeletesAfterTimeout(t *testing.T) {
	w := newCluster()
	w.lcfg = Config{PodEvictionTimeout: 30 * time.Second}
	for _, n := range []string{"n1", "n2", "n3"} {
		w.addNode(n, "z", at(-time.Hour), t0)
	}
	w.addPod("web", "n1")
	w.addPod("agent", "n1")
	w.addPod("back", "n3")
	w.daemonSets = NewDaemonSets([]*appsv1.DaemonSet{daemonSet("default", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}})})
	o := newOurs(w)
	var firstDeleted time.Duration
	for d := time.Duration(0); d <= 2*time.Minute; d += 5 * time.Second {
		now := at(d)
		w.kubelet("n2", tTrue, now)
		if d >= time.Minute { // n3 silent from t0 to 1m, shorter than grace + timeout
			w.kubelet("n3", tTrue, now)
		}
		o.pass(now)
		o.try(now.Add(100 * time.Millisecond))
		if len(w.deleted) > 0 && firstDeleted == 0 {
			firstDeleted = d
		}
	}
	assert.Equal(t, []string{"web"}, w.deleted)
	// The probe is t0 (the last heartbeat), so the eviction is due from t0 + 30 s; but the
	// pass at 45 s (past the 40 s grace) writes Unknown while deciding on the True it
	// observed, so the first pass that sees Unknown is at 50 s, and the queue's first token
	// is there at once.
	assert.Equal(t, 50*time.Second, firstDeleted)
	assert.Contains(t, w.pods, "agent")
	assert.Equal(t, PodReasonNodeLost, w.pods["agent"].Status.Reason)
	assert.Contains(t, w.pods, "back")
	s, ok := o.ev.State("n1")
	assert.True(t, ok)
	assert.Equal(t, Evicted, s)
	// The zone's bucket was last drawn from by the drain at 50.1 s: asked at 51 s, its next
	// token is ten seconds after that draw (less float32(0.1)'s rounding); asked later, it is
	// there already.
	q := o.ev.Queues(at(51 * time.Second))[":\x00:z"]
	assert.Zero(t, q.Len)
	assert.WithinRange(t, q.NextToken, at(60100*time.Millisecond-time.Microsecond), at(60100*time.Millisecond))
	assert.Equal(t, at(2*time.Minute), o.ev.Queues(at(2 * time.Minute))[":\x00:z"].NextToken)
}

// A zone going all down stops the queues and cancels every eviction, and nodes the Evictor
// never registered change no state but are still queued.
func TestEvictorAllZonesDownAndUnregistered(t *testing.T) {
	w := newCluster()
	w.lcfg = Config{PodEvictionTimeout: time.Second}
	w.addNode("n1", "z", at(-time.Hour), t0)
	w.addNode("n2", "z", at(-time.Hour), t0)
	o := newOurs(w)
	o.ev.NodeDeleted("n2") // never registered from the Evictor's view
	for d := time.Duration(0); d <= 2*time.Minute; d += 5 * time.Second {
		o.pass(at(d))
		o.try(at(d + 100*time.Millisecond))
	}
	assert.ElementsMatch(t, []string{"n1", "n2"}, o.ev.Queued(":\x00:z"), "queued, then stopped at rate 0")
	_, ok := o.ev.State("n2")
	assert.False(t, ok)
	s, _ := o.ev.State("n1")
	assert.Equal(t, ToBeEvicted, s)
	at0, ok := o.ev.NextDue()
	assert.True(t, ok)
	assert.False(t, at0.IsZero())
}

// DeletePods as upstream's: the node event first, NodeLost on every pod of the node, DaemonSet
// and terminating pods kept, NotFound fine, a Conflict skips the pod and fails the call at the
// end, another delete error stops at once.
func TestDeletePods(t *testing.T) {
	grace := int64(30)
	stopping := podIn("default", "stopping", "n1", nil)
	stopping.DeletionGracePeriodSeconds = &grace
	lost := podIn("default", "lost", "n1", nil)
	lost.Status.Reason = PodReasonNodeLost
	agent := podIn("default", "agent", "n1", map[string]string{"app": "agent"})
	ds := NewDaemonSets([]*appsv1.DaemonSet{daemonSet("default", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}})})
	pods := []*v1.Pod{podIn("default", "web", "n1", nil), agent, stopping, lost, podIn("default", "moved", "n2", nil), podIn("default", "gone", "n1", nil)}

	api := &fakePods{notFound: map[string]bool{"gone": true}}
	got, err := DeletePods(context.Background(), api, pods, "n1", "uid-n1", ds)
	require.NoError(t, err)
	assert.Equal(t, []string{"web", "agent", "stopping", "gone"}, api.statusWrites, "lost has the reason already; moved is not the node's")
	assert.Equal(t, []string{"web", "lost", "gone"}, api.deletes)
	assert.Equal(t, []string{"web", "lost", "gone"}, podNames(got.Deleted))
	assert.True(t, got.Remaining)
	var reasons []string
	for _, e := range got.Events {
		reasons = append(reasons, e.Reason+" "+e.Object.Name+": "+e.Message)
	}
	assert.Equal(t, []string{
		"DeletingAllPods n1: Node n1 event: Deleting all Pods from Node n1.",
		"NodeControllerEviction web: Marking for deletion Pod web from Node n1",
		"NodeControllerEviction lost: Marking for deletion Pod lost from Node n1",
		"NodeControllerEviction gone: Marking for deletion Pod gone from Node n1",
	}, reasons)
	assert.Empty(t, pods[0].Status.Reason, "the caller's pods are not modified")

	api = &fakePods{conflict: map[string]bool{"web": true}}
	got, err = DeletePods(context.Background(), api, pods[:2], "n1", "uid-n1", ds)
	require.ErrorIs(t, err, nl.ErrCallFailed)
	assert.ErrorContains(t, err, `default/web on node "n1"`)
	assert.Empty(t, api.deletes, "the conflicting pod is skipped")
	assert.False(t, got.Remaining)

	api = &fakePods{failDelete: true}
	got, err = DeletePods(context.Background(), api, pods, "n1", "uid-n1", ds)
	require.ErrorIs(t, err, nl.ErrCallFailed)
	assert.Equal(t, []string{"web"}, api.deletes, "stops at the first failed delete")
	assert.Empty(t, got.Deleted)

	got, err = DeletePods(context.Background(), &fakePods{}, nil, "n1", "uid-n1", ds)
	require.NoError(t, err)
	assert.Empty(t, got.Events, "no pods, no node event")
}

type fakePods struct {
	notFound, conflict    map[string]bool
	failDelete            bool
	statusWrites, deletes []string
}

func (f *fakePods) UpdatePodStatus(_ context.Context, pod *v1.Pod) error {
	f.statusWrites = append(f.statusWrites, pod.Name)
	switch {
	case f.conflict[pod.Name]:
		return apierrors.NewConflict(v1.Resource("pods"), pod.Name, errors.New("changed"))
	case f.notFound[pod.Name]:
		return apierrors.NewNotFound(v1.Resource("pods"), pod.Name)
	}
	return nil
}

func (f *fakePods) DeletePod(_ context.Context, pod *v1.Pod) error {
	f.deletes = append(f.deletes, pod.Name)
	switch {
	case f.failDelete:
		return errors.New("etcd down")
	case f.notFound[pod.Name]:
		return apierrors.NewNotFound(v1.Resource("pods"), pod.Name)
	}
	return nil
}

func podNames(pods []*v1.Pod) []string {
	var out []string
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}
