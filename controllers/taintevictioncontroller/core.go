package taintevictioncontroller

import (
	"context"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"

	"github.com/evictkit/eviction/timedqueue"
	"github.com/evictkit/eviction/tolerations"
)

// core is upstream's event handling over the library's decisions: the
// tainted-nodes table, the pod and node handlers, and the timed queue of
// evictions. Handlers run one at a time (under mu), so a pod is always judged
// against the latest taints of its node.
type core struct {
	cfg      Config
	recorder record.EventRecorder
	queue    *timedqueue.Queue[types.NamespacedName]

	mu      sync.Mutex
	tainted map[string][]v1.Taint              // node → its NoExecute taints, when any
	uids    map[types.NamespacedName]types.UID // the UID of each queued pod
}

func newCore(cfg Config, recorder record.EventRecorder, evict func(ctx context.Context, ref PodRef, fireAt time.Time) error) *core {
	c := &core{
		cfg:      cfg,
		recorder: recorder,
		tainted:  map[string][]v1.Taint{},
		uids:     map[types.NamespacedName]types.UID{},
	}
	c.queue = timedqueue.New(func(ctx context.Context, key types.NamespacedName, fireAt time.Time) error {
		c.mu.Lock()
		uid := c.uids[key]
		c.mu.Unlock()
		c.event(key, "Marking for deletion Pod %s")
		return evict(ctx, podRef(key, uid), fireAt)
	}, timedqueue.WithClock(cfg.Clock), timedqueue.WithWorkers(0))
	return c
}

func (c *core) shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_ = c.queue.Shutdown(ctx)
}

func (c *core) event(key types.NamespacedName, format string) {
	ref := &v1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: key.Namespace, Name: key.Name}
	c.recorder.Eventf(ref, v1.EventTypeNormal, EventReason, format, key.String())
}

func (c *core) cancel(key types.NamespacedName) {
	if c.queue.Cancel(key) {
		c.event(key, "Cancelling deletion of Pod %s")
	}
}

func noExecute(taints []v1.Taint) []v1.Taint {
	var out []v1.Taint
	for _, t := range taints {
		if t.Effect == v1.TaintEffectNoExecute {
			out = append(out, t)
		}
	}
	return out
}

// podUpdated handles a pod's add (old nil), update or delete (cur nil).
func (c *core) podUpdated(old, cur *v1.Pod) {
	if old == nil && cur == nil {
		return
	}
	if old != nil && cur != nil && old.Spec.NodeName == cur.Spec.NodeName &&
		equality.Semantic.DeepEqual(old.Spec.Tolerations, cur.Spec.Tolerations) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur == nil {
		key := types.NamespacedName{Namespace: old.Namespace, Name: old.Name}
		c.cancel(key)
		delete(c.uids, key)
		return
	}
	if cur.Spec.NodeName == "" {
		return
	}
	taints, ok := c.tainted[cur.Spec.NodeName]
	if !ok {
		return
	}
	c.process(cur, taints, c.cfg.Clock.Now())
}

// nodeUpdated handles a node's add (old nil), update or delete (cur nil).
func (c *core) nodeUpdated(old, cur *v1.Node) {
	if old == nil && cur == nil {
		return
	}
	var oldTaints, curTaints []v1.Taint
	if old != nil {
		oldTaints = noExecute(old.Spec.Taints)
	}
	if cur != nil {
		curTaints = noExecute(cur.Spec.Taints)
	}
	if old != nil && cur != nil && equality.Semantic.DeepEqual(oldTaints, curTaints) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur == nil {
		delete(c.tainted, old.Name)
		return
	}
	if len(curTaints) == 0 {
		delete(c.tainted, cur.Name)
	} else {
		c.tainted[cur.Name] = curTaints
	}
	objs, err := c.cfg.Pods.Informer().GetIndexer().ByIndex(NodeNameIndex, cur.Name)
	if err != nil {
		c.cfg.Logger.Error("listing pods of node", "node", cur.Name, "err", err)
		return
	}
	now := c.cfg.Clock.Now()
	for _, obj := range objs {
		pod, ok := obj.(*v1.Pod)
		if !ok {
			continue
		}
		if len(curTaints) == 0 {
			c.cancel(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
			continue
		}
		c.process(pod, curTaints, now)
	}
}

// process is upstream's processPodOnNode through the library's decision.
func (c *core) process(pod *v1.Pod, taints []v1.Taint, now time.Time) {
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name}
	var existing *tolerations.Scheduled
	if it, ok := c.queue.Get(key); ok {
		existing = &tolerations.Scheduled{CreatedAt: it.CreatedAt, FireAt: it.FireAt, Running: it.State == timedqueue.Running}
	}
	d := tolerations.NoExecuteDecision(taints, pod.Spec.Tolerations, c.cfg.Tolerations)
	a := tolerations.Reconcile(d, existing, now)
	if a.Cancel {
		c.cancel(key)
	}
	if a.Add && c.queue.Add(key, a.CreatedAt, a.FireAt) {
		c.uids[key] = pod.UID
	}
}
