package main

import (
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
)

const mi = 1 << 20

// node simulates the memory of one node: what the system uses outside pods
// plus the working set of every running pod, both scripted over time.
type node struct {
	capacity int64 // bytes: what memory.available is a part of
	pods     []*v1.Pod
	// workingSet gives, t after the start, the working set in bytes of
	// each pod, and of everything outside pods (kernel, kubelet, runtime,
	// system services) for the name "system".
	workingSet func(name string, t time.Duration) int64
}

// summary is what the kubelet's stats provider reports at now: node memory
// available and working set, as makeSignalObservations reads them.
func (n *node) summary(now time.Time) thresholds.Summary {
	used := n.workingSet("system", now.Sub(start))
	for _, p := range n.pods {
		used += n.workingSet(p.Name, now.Sub(start))
	}
	available, ws := uint64(n.capacity-used), uint64(used)
	return thresholds.Summary{Memory: &thresholds.MemoryStats{Time: now, AvailableBytes: &available, WorkingSetBytes: &ws}}
}

// usage reports each pod's stats at now, matched by UID as the kubelet does.
func (n *node) usage(now time.Time) ranking.UsageFunc {
	m := map[types.UID]ranking.Usage{}
	for _, p := range n.pods {
		ws := uint64(n.workingSet(p.Name, now.Sub(start)))
		m[p.UID] = ranking.Usage{
			MemoryWorkingSet: ws,
			Containers:       []ranking.ContainerUsage{{Name: p.Spec.Containers[0].Name, MemoryWorkingSet: ws}},
		}
	}
	return ranking.UsageByUID(m)
}

// remove takes an evicted pod off the node. The scenario assumes it exits
// within the cycle; the kubelet waits up to 30 s for that before its next
// cycle.
func (n *node) remove(pod *v1.Pod) {
	for i, p := range n.pods {
		if p == pod {
			n.pods = append(n.pods[:i:i], n.pods[i+1:]...)
			return
		}
	}
}

// newPod returns a pod with one container. requestMi = limitMi > 0 makes it
// Guaranteed, requestMi > 0 alone Burstable, neither BestEffort.
func newPod(ns, name string, priority *int32, requestMi, limitMi int64, grace int64) *v1.Pod {
	c := v1.Container{Name: name}
	if requestMi > 0 {
		c.Resources.Requests = v1.ResourceList{v1.ResourceMemory: *resource.NewQuantity(requestMi*mi, resource.BinarySI)}
	}
	if limitMi > 0 {
		c.Resources.Limits = v1.ResourceList{v1.ResourceMemory: *resource.NewQuantity(limitMi*mi, resource.BinarySI)}
	}
	if requestMi > 0 && requestMi == limitMi { // Guaranteed needs cpu too
		c.Resources.Requests[v1.ResourceCPU] = resource.MustParse("500m")
		c.Resources.Limits[v1.ResourceCPU] = resource.MustParse("500m")
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(ns + "-" + name)},
		Spec: v1.PodSpec{
			Priority:                      priority,
			TerminationGracePeriodSeconds: &grace,
			Containers:                    []v1.Container{c},
		},
	}
}
