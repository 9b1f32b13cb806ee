package scale

import (
	"context"
	"fmt"
	"iter"
	"maps"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// observer watches the run's nodes and pods and records, with the time it
// saw each: nodes' Ready status, the NoExecute taints added and removed,
// and the pods evicted.
type observer struct {
	mu        sync.Mutex
	ready     map[string]v1.ConditionStatus  // node → Ready status
	readyPods map[string]bool                // pod → Ready=True
	taints    map[string]map[string]v1.Taint // node → key → NoExecute taint
	changes   []taintChange
	evictions map[string]eviction // pod name → first seen evicted
}

// taintChange is a NoExecute taint seen added to or removed from a node.
type taintChange struct {
	Node, Key string
	Added     bool
	At        time.Time
	// TimeAdded is the taint's own timeAdded, as its writer set it.
	TimeAdded time.Time
}

// eviction is a pod seen with a deletionTimestamp (or seen deleted) for the
// first time.
type eviction struct {
	Pod, Node string
	At        time.Time
}

// newObserver is an observer that has seen nothing.
func newObserver() *observer {
	return &observer{
		ready:     map[string]v1.ConditionStatus{},
		readyPods: map[string]bool{},
		taints:    map[string]map[string]v1.Taint{},
		evictions: map[string]eviction{},
	}
}

// observe starts informers on c and returns once their caches have synced.
func observe(ctx context.Context, c kubernetes.Interface) (*observer, error) {
	o := newObserver()
	f := informers.NewSharedInformerFactoryWithOptions(c, 0, informers.WithNamespace(namespace))
	nodes := informers.NewSharedInformerFactory(c, 0).Core().V1().Nodes().Informer()
	if _, err := nodes.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { o.node(obj.(*v1.Node)) },
		UpdateFunc: func(_, obj any) { o.node(obj.(*v1.Node)) },
	}); err != nil {
		return nil, fmt.Errorf("scale: node informer: %w", err)
	}
	pods := f.Core().V1().Pods().Informer()
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { o.pod(obj.(*v1.Pod), false) },
		UpdateFunc: func(_, obj any) { o.pod(obj.(*v1.Pod), false) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if p, ok := obj.(*v1.Pod); ok {
				o.pod(p, true)
			}
		},
	}); err != nil {
		return nil, fmt.Errorf("scale: pod informer: %w", err)
	}
	go nodes.Run(ctx.Done())
	go pods.Run(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), nodes.HasSynced, pods.HasSynced) {
		return nil, fmt.Errorf("scale: the watch caches did not sync: %w", ctx.Err())
	}
	return o, nil
}

func (o *observer) node(n *v1.Node) {
	now := time.Now()
	status := v1.ConditionUnknown
	seen := false
	for _, c := range n.Status.Conditions {
		if c.Type == v1.NodeReady {
			status, seen = c.Status, true
		}
	}
	cur := map[string]v1.Taint{}
	for _, t := range n.Spec.Taints {
		if t.Effect == v1.TaintEffectNoExecute {
			cur[t.Key] = t
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if seen {
		o.ready[n.Name] = status
	}
	old := o.taints[n.Name]
	for key, t := range cur {
		if _, ok := old[key]; !ok {
			c := taintChange{Node: n.Name, Key: key, Added: true, At: now}
			if t.TimeAdded != nil {
				c.TimeAdded = t.TimeAdded.Time
			}
			o.changes = append(o.changes, c)
		}
	}
	for key := range old {
		if _, ok := cur[key]; !ok {
			o.changes = append(o.changes, taintChange{Node: n.Name, Key: key, At: now})
		}
	}
	o.taints[n.Name] = cur
}

func (o *observer) pod(p *v1.Pod, deleted bool) {
	now := time.Now()
	ready := false
	for _, c := range p.Status.Conditions {
		if c.Type == v1.PodReady && c.Status == v1.ConditionTrue {
			ready = true
		}
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if deleted || p.DeletionTimestamp != nil {
		if _, ok := o.evictions[p.Name]; !ok {
			o.evictions[p.Name] = eviction{Pod: p.Name, Node: p.Spec.NodeName, At: now}
		}
		delete(o.readyPods, p.Name)
		return
	}
	if ready {
		o.readyPods[p.Name] = true
	} else {
		delete(o.readyPods, p.Name)
	}
}

// counts returns how many nodes are Ready=True and how many pods Ready=True.
func (o *observer) counts() (readyNodes, readyPods int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range o.ready {
		if s == v1.ConditionTrue {
			readyNodes++
		}
	}
	return readyNodes, len(o.readyPods)
}

// notInStatus returns how many of nodes have a Ready status other than want.
func (o *observer) notInStatus(nodes []string, want v1.ConditionStatus) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, name := range nodes {
		if o.ready[name] != want {
			n++
		}
	}
	return n
}

// tainted returns how many of nodes carry a NoExecute taint with one of keys.
func (o *observer) tainted(nodes []string, keys ...string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, name := range nodes {
		for _, k := range keys {
			if _, ok := o.taints[name][k]; ok {
				n++
				break
			}
		}
	}
	return n
}

// evictedSince returns the evictions seen at or after start, by time.
func (o *observer) evictedSince(start time.Time) []eviction {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := seenSince(maps.Values(o.evictions), func(e eviction) time.Time { return e.At }, start)
	slices.SortFunc(out, func(a, b eviction) int { return a.At.Compare(b.At) })
	return out
}

// changesSince returns the taint changes seen at or after start, in order.
func (o *observer) changesSince(start time.Time) []taintChange {
	o.mu.Lock()
	defer o.mu.Unlock()
	return seenSince(slices.Values(o.changes), func(c taintChange) time.Time { return c.At }, start)
}

// seenSince returns the items of seq seen (at) at or after start.
func seenSince[T any](seq iter.Seq[T], at func(T) time.Time, start time.Time) []T {
	var out []T
	for x := range seq {
		if !at(x).Before(start) {
			out = append(out, x)
		}
	}
	return out
}
