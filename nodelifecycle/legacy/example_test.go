package legacy_test

import (
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

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
