package main

import (
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	testclock "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/taints"
)

// scenario drives the cluster and the controller: it changes objects,
// delivers the matching events and steps the fake clock.
type scenario struct {
	cluster *cluster
	clock   *testclock.FakeClock
	log     *timeline
	tc      *controller
}

func (s *scenario) say(what string) { s.log.printf("» %s", what) }

// at moves the clock forward to start+d one second at a time, so that every
// eviction runs, and is printed, at the second it is due.
func (s *scenario) at(d time.Duration) {
	for s.clock.Since(start) < d {
		s.clock.Step(time.Second)
		s.settle()
	}
}

// settle lets the controller do what is due at the clock's now.
func (s *scenario) settle() { s.tc.settle() }

func (s *scenario) addNode(name string) {
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
	s.cluster.nodes[name] = n
	s.tc.NodeUpdated(nil, n)
	s.settle()
}

func (s *scenario) addPod(ns, name, node string, tols []v1.Toleration) {
	p := s.cluster.createPod(&v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1.PodSpec{NodeName: node, Tolerations: tols},
	})
	s.log.printf("  %s on %s tolerates %s", key(p), node, describe(p.Spec.Tolerations))
	s.tc.PodUpdated(nil, p)
	s.settle()
}

// updatePod changes a copy of a pod and delivers the update.
func (s *scenario) updatePod(ns, name string, change func(*v1.Pod)) {
	p := s.cluster.pods[types.NamespacedName{Namespace: ns, Name: name}].DeepCopy()
	change(p)
	old, err := s.cluster.updatePod(p)
	if err != nil {
		s.log.printf("  update of %s refused: %v", key(p), err)
		return
	}
	s.tc.PodUpdated(old, p)
	s.settle()
}

// setTaints gives a node exactly the taints ts. Taints it already had keep
// their TimeAdded; new ones get the current time, as the node lifecycle
// controller stamps them.
func (s *scenario) setTaints(name string, ts ...v1.Taint) {
	old := s.cluster.nodes[name]
	n := old.DeepCopy()
	n.Spec.Taints = nil
	for _, t := range ts {
		t.TimeAdded = &metav1.Time{Time: s.clock.Now()}
		for _, o := range old.Spec.Taints {
			if taints.Match(&o, &t) {
				t.TimeAdded = o.TimeAdded
			}
		}
		n.Spec.Taints = append(n.Spec.Taints, t)
	}
	s.cluster.nodes[name] = n
	s.tc.NodeUpdated(old, n)
	s.settle()
}
