package legacy_test

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/nodelifecycle/legacy"
)

// The legacy mode's decision for a node whose Ready has been False since t0.
func ExampleDecide() {
	var cfg legacy.Config // --pod-eviction-timeout 5m
	t0 := time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC)
	saved := &nodelifecycle.Probe{ProbeTime: t0.Add(5 * time.Minute), ReadyTransitionTime: t0}

	state := legacy.Unmarked
	for _, now := range []time.Time{t0.Add(5 * time.Minute), t0.Add(5*time.Minute + 1)} {
		e, err := legacy.Decide(v1.ConditionFalse, saved, now, cfg)
		if err != nil {
			fmt.Println(err)
			return
		}
		var op legacy.EvictionOp
		state, op = state.Next(e)
		fmt.Println(now.Sub(t0), e, state, op)
	}
	// Output:
	// 5m0s Wait Unmarked None
	// 5m0.000000001s Due ToBeEvicted Enqueue
}

// The legacy mode's plan for the pods of a node whose eviction came due: DaemonSet and
// terminating pods stay, every other pod on the node is deleted, and each first gets the
// status reason NodeLost.
func ExamplePlanPodDeletion() {
	pod := func(name, node string, labels map[string]string) *v1.Pod {
		return &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: labels},
			Spec:       v1.PodSpec{NodeName: node},
		}
	}
	agent := map[string]string{"app": "agent"}
	daemonSets := legacy.NewDaemonSets([]*appsv1.DaemonSet{{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "agent"},
		Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: agent}},
	}})
	grace := int64(30)
	stopping := pod("stopping", "n1", nil)
	stopping.DeletionGracePeriodSeconds = &grace
	pods := []*v1.Pod{pod("web", "n1", nil), pod("agent-x", "n1", agent), stopping, pod("moved", "n2", nil)}

	for _, d := range legacy.PlanPodDeletion(pods, "n1", daemonSets) {
		if d.NodeLost != nil {
			fmt.Printf("%s: %s (%s: %s)\n", d.Pod.Name, d.Fate, d.NodeLost.Status.Reason, d.NodeLost.Status.Message)
			continue
		}
		fmt.Printf("%s: %s\n", d.Pod.Name, d.Fate)
	}
	// Output:
	// web: Delete (NodeLost: Node n1 which was running pod web is unresponsive)
	// agent-x: DaemonSet (NodeLost: Node n1 which was running pod agent-x is unresponsive)
	// stopping: Terminating (NodeLost: Node n1 which was running pod stopping is unresponsive)
	// moved: Elsewhere
}

// podStore is a tiny legacy.PodAPI: it deletes from a map.
type podStore map[string]*v1.Pod

func (s podStore) UpdatePodStatus(_ context.Context, p *v1.Pod) error { s[p.Name] = p; return nil }
func (s podStore) DeletePod(_ context.Context, p *v1.Pod) error       { delete(s, p.Name); return nil }

// The legacy mode run as a controller runs it: a Monitor that writes no NoExecute taint, an
// Evictor beside it, and DeletePods when a zone's queue hands out a node. n2 stops
// heartbeating at t0; with a 2 m timeout its pod goes at the first pass after t0 + 2 m that
// sees it Unknown.
func ExampleEvictor() {
	t0 := time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC)
	cfg := nodelifecycle.Config{DisableNoExecuteTainting: true, DisableLeaseCircuitBreaker: true}
	node := func(name string, heartbeat time.Time) *v1.Node {
		return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour))},
			Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue,
				LastHeartbeatTime: metav1.NewTime(heartbeat), LastTransitionTime: metav1.NewTime(t0.Add(-time.Hour))}}}}
	}
	pods := podStore{"web": {ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: v1.PodSpec{NodeName: "n2"}}}
	mon := nodelifecycle.NewMonitor(cfg)
	ev := legacy.NewEvictor(legacy.Config{PodEvictionTimeout: 2 * time.Minute}, cfg)
	n2 := node("n2", t0)
	ev.NodeAdded("n1")
	ev.NodeAdded("n2")
	evict := func(name string, uid types.UID) error {
		var on []*v1.Pod
		for _, p := range pods {
			if p.Spec.NodeName == name {
				on = append(on, p)
			}
		}
		d, err := legacy.DeletePods(context.Background(), pods, on, name, uid, legacy.DaemonSets{})
		for _, e := range d.Events {
			fmt.Println("  event:", e.Reason, e.Message)
		}
		return err
	}
	for now := t0; now.Before(t0.Add(3 * time.Minute)); now = now.Add(5 * time.Second) {
		res, _ := mon.Pass(now, nodelifecycle.PassInput{Nodes: []*v1.Node{node("n1", now), n2}}).Do(context.Background(), nil) // every call succeeds
		if res.Nodes[1].Status != nil {
			n2 = res.Nodes[1].Node // the status the Monitor wrote
			fmt.Println(now.Sub(t0), "n2 Unknown")
		}
		if _, err := ev.AfterPass(now, res); err != nil {
			fmt.Println(err)
		}
		if evicted, _ := ev.Drain(now, evict); len(evicted) > 0 {
			fmt.Println(now.Sub(t0), "evicted", evicted[0].Node, "pods left:", len(pods))
		}
	}
	// Output:
	// 55s n2 Unknown
	//   event: DeletingAllPods Node n2 event: Deleting all Pods from Node n2.
	//   event: NodeControllerEviction Marking for deletion Pod web from Node n2
	// 2m5s evicted n2 pods left: 0
}
