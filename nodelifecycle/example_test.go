package nodelifecycle_test

import (
	"flag"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/taints"
)

// A node stops heartbeating: the controller marks it Unknown once the grace period is over,
// taints it unreachable NoSchedule at once and unreachable NoExecute when its zone's token
// comes, and takes the taints off when the kubelet posts Ready again.
func Example_healthToTaints() {
	cfg := nodelifecycle.Config{}
	t0 := time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC)
	node := &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour))},
		Status: v1.NodeStatus{Conditions: []v1.NodeCondition{{
			Type: v1.NodeReady, Status: v1.ConditionTrue,
			LastHeartbeatTime: metav1.NewTime(t0), LastTransitionTime: metav1.NewTime(t0.Add(-time.Hour)),
		}}},
	}
	renew := metav1.NewMicroTime(t0)
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "7"}, Spec: coordinationv1.LeaseSpec{RenewTime: &renew}}

	// First pass: the controller sees the node and its lease.
	h := nodelifecycle.Evaluate(node, lease, nil, t0, cfg)
	saved := h.Probe
	fmt.Println("t0:", h.Verdict, h.Current.Status)

	// The node goes silent. 50 s later it is still within the grace period.
	h = nodelifecycle.Evaluate(node, lease, &saved, t0.Add(50*time.Second), cfg)
	fmt.Println("t0+50s:", h.Verdict)

	// At the next pass the grace period is over; the breaker asks for the live lease, which
	// has not moved.
	now := t0.Add(55 * time.Second)
	h = nodelifecycle.Evaluate(node, lease, &saved, now, cfg)
	fmt.Println("t0+55s:", h.Verdict)
	h = nodelifecycle.EvaluateWithLiveLease(node, lease, &saved, nodelifecycle.LiveLease{Found: true, ResourceVersion: "7"}, now, cfg)
	fmt.Println("t0+55s:", h.Verdict, h.Current.Status, h.Current.Reason, "pods NotReady:", h.BecameNotReady())
	node.Status = *h.Status // written with UpdateStatus
	saved = h.Saved()

	add, remove := nodelifecycle.NoScheduleTaints(node)
	node.Spec.Taints = nodelifecycle.Swap{Add: add, Remove: remove}.Apply(node.Spec.Taints, now)
	a := nodelifecycle.NoExecuteAction(node, h.Current)
	fmt.Println("NoExecute:", a.Kind)

	// The zone's token comes.
	step := nodelifecycle.TaintQueued(node)
	node.Spec.Taints = step.Swap.Apply(node.Spec.Taints, now.Add(100*time.Millisecond))
	for _, t := range node.Spec.Taints {
		fmt.Println("taint:", taints.Format(t))
	}

	// The kubelet comes back.
	node.Status.Conditions[0] = v1.NodeCondition{Type: v1.NodeReady, Status: v1.ConditionTrue,
		LastHeartbeatTime: metav1.NewTime(now.Add(7 * time.Second)), LastTransitionTime: metav1.NewTime(now.Add(7 * time.Second))}
	h = nodelifecycle.Evaluate(node, lease, &saved, now.Add(10*time.Second), cfg)
	a = nodelifecycle.NoExecuteAction(node, h.Current)
	add, remove = nodelifecycle.NoScheduleTaints(node)
	node.Spec.Taints = nodelifecycle.Swap{Add: add, Remove: append(remove, a.Swap.Remove...)}.Apply(node.Spec.Taints, now)
	fmt.Println("back:", h.Current.Status, a.Kind, len(node.Spec.Taints), "taints")
	// Output:
	// t0: Fresh True
	// t0+50s: Fresh
	// t0+55s: NeedsLeaseCheck
	// t0+55s: Expired Unknown NodeStatusUnknown pods NotReady: true
	// NoExecute: Enqueue
	// taint: node.kubernetes.io/unreachable:NoSchedule
	// taint: node.kubernetes.io/unreachable:NoExecute
	// back: True Untaint 0 taints
}

// Zone states and eviction rates over three passes of a two-zone cluster.
func ExampleHandleDisruption() {
	cfg := nodelifecycle.Config{}
	states := map[string]nodelifecycle.ZoneState{"a": nodelifecycle.ZoneInitial, "b": nodelifecycle.ZoneInitial}

	passes := []map[string]nodelifecycle.ZoneCounts{
		{"a": {Ready: 10}, "b": {Ready: 40, NotReady: 60}}, // b partially disrupted, large
		{"a": {NotReady: 10}, "b": {NotReady: 100}},        // everything down
		{"a": {Ready: 10}, "b": {NotReady: 100}},           // a is back
	}
	for _, counts := range passes {
		d := nodelifecycle.HandleDisruption(states, counts, cfg)
		fmt.Println(d)
		states = d.States
	}
	// Output:
	// entered=false exited=false "a"=Normal@0.1 "b"=PartialDisruption@0.01
	// entered=true exited=false "a"=FullDisruption@0 "b"=FullDisruption@0
	// entered=false exited=true "a"=Normal@0.1 "b"=FullDisruption@0.1
}

// The eviction rate of a zone by state and size.
func ExampleZoneRate() {
	cfg := nodelifecycle.Config{}
	for _, z := range []struct {
		counts nodelifecycle.ZoneCounts
	}{
		{nodelifecycle.ZoneCounts{Ready: 30, NotReady: 2}},
		{nodelifecycle.ZoneCounts{Ready: 20, NotReady: 30}},
		{nodelifecycle.ZoneCounts{Ready: 20, NotReady: 31}},
		{nodelifecycle.ZoneCounts{NotReady: 5}},
	} {
		s := nodelifecycle.ComputeZoneState(z.counts, cfg)
		r, _ := nodelifecycle.ZoneRate(s, z.counts.Size(), cfg)
		fmt.Printf("%d/%d not ready: %s, %g nodes/s\n", z.counts.NotReady, z.counts.Size(), s, r)
	}
	// Output:
	// 2/32 not ready: Normal, 0.1 nodes/s
	// 30/50 not ready: PartialDisruption, 0 nodes/s
	// 31/51 not ready: PartialDisruption, 0.01 nodes/s
	// 5/5 not ready: FullDisruption, 0.1 nodes/s
}

// A controller's monitor: one pass every 5 s, one drain every 100 ms. The Monitor makes no API
// call itself: each pass or drain is a Run that hands out its calls as values, and here the
// caller performs them on its own objects. Node n1 goes silent at t0; n2 keeps renewing its
// Lease.
func ExampleMonitor() {
	t0 := time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC)
	ready := v1.NodeCondition{Type: v1.NodeReady, Status: v1.ConditionTrue,
		LastHeartbeatTime: metav1.NewTime(t0), LastTransitionTime: metav1.NewTime(t0.Add(-time.Hour))}
	nodes := map[string]*v1.Node{}
	for _, name := range []string{"n1", "n2"} {
		nodes[name] = &v1.Node{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelTopologyZone: "z"}},
			Status:     v1.NodeStatus{Conditions: []v1.NodeCondition{ready}},
		}
	}
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}, Spec: v1.PodSpec{NodeName: "n1"},
		Status: v1.PodStatus{Conditions: []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}}}

	// perform is this example's API server: it carries out a call on the objects above.
	perform := func(c nodelifecycle.Call, now time.Time) nodelifecycle.Reply {
		fmt.Printf("t0+%v: %v %s", now.Sub(t0), c.Op, c.Node)
		switch c.Op {
		case nodelifecycle.GetLease:
			fmt.Print(": no Lease") // the Reply's LiveLease says Found: false
		case nodelifecycle.UpdateNodeStatus:
			nodes[c.Node] = c.Status
			fmt.Print(": Ready=", c.Status.Status.Conditions[0].Status)
		case nodelifecycle.SwapTaints:
			n := nodes[c.Node].DeepCopy()
			n.Spec.Taints = c.Swap.Apply(n.Spec.Taints, now)
			nodes[c.Node] = n
			fmt.Print(": ", c.Swap)
		case nodelifecycle.UpdatePodStatus:
			pod = c.Pod
			fmt.Printf(": pod %s Ready=%s", pod.Name, pod.Status.Conditions[0].Status)
		}
		fmt.Println()
		return nodelifecycle.Reply{}
	}

	m := nodelifecycle.NewMonitor(nodelifecycle.Config{})
	for now := t0; !now.After(t0.Add(55 * time.Second)); now = now.Add(5 * time.Second) {
		renew := metav1.NewMicroTime(now)
		pass := m.Pass(now, nodelifecycle.PassInput{
			Nodes: []*v1.Node{nodes["n1"], nodes["n2"]},
			Lease: func(name string) *coordinationv1.Lease {
				if name == "n1" {
					return nil // silent
				}
				return &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{RenewTime: &renew}}
			},
			Pods: func(name string) ([]*v1.Pod, error) {
				if name == "n1" {
					return []*v1.Pod{pod}, nil
				}
				return nil, nil
			},
		})
		for call, ok := pass.Next(); ok; call, ok = pass.Next() {
			pass.Reply(perform(call, now))
		}
		res, err := pass.Result()
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, np := range res.Nodes {
			if np.Enqueued {
				fmt.Printf("t0+%v: %s queued\n", now.Sub(t0), np.Node.Name)
			}
		}
		drain := m.Drain(now, func(name string) (*v1.Node, bool) {
			n, ok := nodes[name]
			return n, ok
		})
		for call, ok := drain.Next(); ok; call, ok = drain.Next() {
			drain.Reply(perform(call, now))
		}
	}
	fmt.Println("zone:", m.Zones()[nodelifecycle.ZoneKey(nodes["n1"])].State)
	// Output:
	// t0+55s: GetLease n1: no Lease
	// t0+55s: UpdateNodeStatus n1: Ready=Unknown
	// t0+55s: UpdatePodStatus n1: pod web Ready=False
	// t0+55s: n1 queued
	// t0+55s: SwapTaints n1: +node.kubernetes.io/unreachable:NoExecute -node.kubernetes.io/not-ready:NoExecute
	// zone: Normal
}

// A program takes kube-controller-manager's node lifecycle flags, with their names, defaults
// and help texts, and turns them into a Config; a value that makes no sense is one line
// naming the flag.
func ExampleFlags() {
	var f nodelifecycle.Flags
	fs := flag.NewFlagSet("node-lifecycle-controller", flag.ContinueOnError)
	f.Register(fs)
	_ = fs.Parse([]string{"--node-monitor-grace-period=40s", "--node-eviction-rate=0"})
	cfg, err := f.Config()
	fmt.Println(cfg.MonitorGracePeriod, cfg.StopEviction, cfg.LargeClusterThreshold, err)

	_ = fs.Parse([]string{"--unhealthy-zone-threshold=1.5"})
	_, err = f.Config()
	fmt.Println(err)
	// Output:
	// 40s true 50 <nil>
	// --unhealthy-zone-threshold 1.5 is not a fraction in (0, 1]
}
