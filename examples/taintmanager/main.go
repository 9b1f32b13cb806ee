// Command taintmanager is the NoExecute taint-eviction controller of
// kube-controller-manager (upstream pkg/controller/tainteviction, once called
// the taint manager) in miniature: node and pod events go in, pod evictions
// come out. It is a thin scenario over package tainteviction (the
// controller's core: the tainted-nodes table, the decisions of
// processPodOnNode and the scheduled evictions), stepped on a fake clock,
// printing the timeline.
//
// The scenario shows the rules a reader tends to get wrong:
//
//   - a pod tolerating a taint for 300 s is scheduled for eviction 300 s after
//     the controller sees the taint (the taint's TimeAdded plays no part);
//   - lengthening the toleration later does not postpone that eviction;
//   - a pod that stops tolerating its node's taints is evicted at once,
//     replacing the eviction scheduled for later;
//   - a DaemonSet pod, which tolerates not-ready and unreachable forever, is
//     never evicted;
//   - removing the taint before the time runs out cancels the eviction;
//   - NoSchedule taints, and updates that change neither tolerations nor
//     NoExecute taints, are ignored.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	testclock "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/tolerations"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "taintmanager:", err)
		os.Exit(1)
	}
}

// start is the fake clock's time when the scenario begins.
var start = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// run plays the scenario and writes its timeline to w.
func run(w io.Writer) error {
	clk := testclock.NewFakeClock(start)
	s := &scenario{
		cluster: &cluster{nodes: map[string]*v1.Node{}, pods: map[types.NamespacedName]*v1.Pod{}},
		clock:   clk,
		log:     &timeline{w: w, clock: clk},
	}
	s.tc = newController(s.cluster, s)

	s.say("the informers start: every node and pod arrives as an add")
	s.addNode("node-a")
	s.addNode("node-b")
	s.addPod("kube-system", "agent-a", "node-a", tolerations.DaemonSet(tolerations.DaemonSetOptions{}))
	s.addPod("shop", "web", "node-a", nil)
	s.addPod("shop", "cache", "node-a", []v1.Toleration{tolerate(taints.KeyUnreachable, 600)})
	s.addPod("kube-system", "agent-b", "node-b", tolerations.DaemonSet(tolerations.DaemonSetOptions{}))
	s.addPod("shop", "api", "node-b", nil)
	// batch means to tolerate not-ready, but a not-ready toleration with
	// operator Equal and a value never matches the real, valueless taint.
	// Admission sees the key and adds no default for it.
	notReadyTypo := tolerate(taints.KeyNotReady, 600)
	notReadyTypo.Operator, notReadyTypo.Value = v1.TolerationOpEqual, "true"
	s.addPod("shop", "batch", "node-b", []v1.Toleration{notReadyTypo, tolerate(taints.KeyUnreachable, 120)})

	s.say("node-a stops responding: the node lifecycle controller taints it unreachable")
	s.setTaints("node-a", taints.UnreachableNoExecute())

	s.at(time.Minute)
	s.say("shop/web's tolerations are lengthened to an hour")
	s.updatePod("shop", "web", func(p *v1.Pod) {
		for i := range p.Spec.Tolerations {
			p.Spec.Tolerations[i].TolerationSeconds = seconds(3600)
		}
	})

	s.at(90 * time.Second)
	s.say("shop/cache gets a new label; node-a gets a NoSchedule taint")
	s.updatePod("shop", "cache", func(p *v1.Pod) { p.Labels = map[string]string{"tier": "cache"} })
	s.setTaints("node-a", taints.UnreachableNoExecute(), v1.Taint{Key: taints.KeyMemoryPressure, Effect: v1.TaintEffectNoSchedule})

	s.at(2 * time.Minute)
	s.say("node-b stops responding")
	s.setTaints("node-b", taints.UnreachableNoExecute())

	s.at(3 * time.Minute)
	// The node lifecycle controller swaps unreachable for not-ready in two
	// updates (SwapNodeControllerTaint: add, then remove). A pod whose
	// eviction is already scheduled keeps its time: the new taint does not
	// restart its toleration clock.
	s.say("node-b reports NotReady: unreachable is swapped for not-ready")
	s.setTaints("node-b", taints.UnreachableNoExecute(), taints.NotReadyNoExecute())
	s.setTaints("node-b", taints.NotReadyNoExecute())

	s.at(6 * time.Minute)
	s.say("node-a is back: its taints are removed")
	s.setTaints("node-a")

	s.at(15 * time.Minute)
	s.say("the end; pods left:")
	for _, node := range []string{"node-a", "node-b"} {
		for _, p := range s.cluster.podsOn(node) {
			s.log.printf("  %s on %s", key(p), node)
		}
	}
	return s.log.err
}

// tolerate returns a NoExecute toleration of key for sec seconds.
func tolerate(key string, sec int64) v1.Toleration {
	return v1.Toleration{Key: key, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: seconds(sec)}
}

func seconds(s int64) *int64 { return &s }

// describe prints tolerations briefly: "unreachable for 300s", "not-ready=true forever".
func describe(tols []v1.Toleration) string {
	var parts []string
	for _, t := range tols {
		if t.Effect != v1.TaintEffectNoExecute {
			continue
		}
		s := strings.TrimPrefix(t.Key, "node.kubernetes.io/")
		if t.Operator == v1.TolerationOpEqual {
			s += "=" + t.Value
		}
		if t.TolerationSeconds == nil {
			s += " forever"
		} else {
			s += fmt.Sprintf(" for %ds", *t.TolerationSeconds)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}
