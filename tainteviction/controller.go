package tainteviction

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/timedqueue"
	"github.com/evictkit/eviction/tolerations"
)

// The errors the handlers return, wrapped with the offending input.
var (
	// ErrUnexpectedObject: a delete handler got neither the object it
	// handles nor a [Tombstone] holding one.
	ErrUnexpectedObject = errors.New("unexpected object")
	// ErrListPods: the [PodLister] failed; the caller's error is wrapped
	// too.
	ErrListPods = errors.New("listing pods failed")
	// ErrPermanent: an evict function wraps it in the error of an attempt
	// that trying again cannot mend (the API server forbids the deletion,
	// say): the eviction is dropped at once, [Options.Retry]
	// notwithstanding, and the error goes to [Options.OnError].
	ErrPermanent = errors.New("eviction cannot succeed")
)

// DefaultName is the queue name of a [Controller] whose Options.Name is
// empty: upstream's controller name.
const DefaultName = "taint-eviction-controller"

// PodLister lists the pods bound to a node: in a controller, the pod
// informer's cache indexed by spec.nodeName (upstream's
// GetPodsByNodeNameFunc). The controller never modifies the pods.
type PodLister interface {
	PodsOnNode(nodeName string) ([]*v1.Pod, error)
}

// PodListerFunc adapts a function to [PodLister].
type PodListerFunc func(nodeName string) ([]*v1.Pod, error)

// PodsOnNode calls f(nodeName).
func (f PodListerFunc) PodsOnNode(nodeName string) ([]*v1.Pod, error) { return f(nodeName) }

var _ PodLister = PodListerFunc(nil)

// Eviction is one pod eviction that the controller asks its caller to
// carry out: upstream's deletePodHandler marks the pod with
// [DisruptedStatus] and deletes it, by namespace and name.
type Eviction struct {
	// Pod names the pod.
	Pod types.NamespacedName
	// UID is the pod's UID when the eviction was decided (upstream deletes
	// by name without a UID precondition).
	UID types.UID
	// Node is the node the pod was bound to.
	Node string
	// CreatedAt is when the eviction was first decided: the start of the
	// pod's toleration clock.
	CreatedAt time.Time
	// FireAt is when the eviction was due.
	FireAt time.Time
	// Taint is the NoExecute taint that caused the eviction: the first one
	// the pod does not tolerate, or else the first one whose toleration ran
	// out first.
	Taint v1.Taint
	// Attempts counts the attempts of this eviction that failed before
	// this one (see [Options.Retry]); 0 on the first.
	Attempts int
}

// Outcome is what a handler did for one pod, as [Options.Observe] reports
// it.
type Outcome struct {
	// Pod names the pod; Node is its node.
	Pod  types.NamespacedName
	Node string
	// At is the clock reading the decision was made at.
	At time.Time
	// Decided is false for a cancellation without a decision: the pod was
	// deleted, or its node lost its last NoExecute taint.
	Decided bool
	// Decision is the verdict on the pod's tolerations ([Decided] only).
	Decision tolerations.Decision
	// Taint is the NoExecute taint behind an EvictNow or EvictAfter
	// decision (see [Eviction.Taint]).
	Taint v1.Taint
	// Before is the eviction that was queued for the pod, nil if none.
	Before *Scheduled
	// Action is what [Reconcile] said to do.
	Action Action
	// Cancelled reports that a scheduled eviction was cancelled (upstream
	// then records [Cancelling]); Added that an eviction was queued.
	Cancelled, Added bool
}

// Verdict is what a [Options.Policy] says about one eviction. The zero
// Verdict lets it happen.
type Verdict struct {
	// Veto drops the eviction: the pod stays until a later pod or node
	// event decides again.
	Veto bool
	// Postpone, if positive (and Veto is false), schedules the eviction
	// again that much later, with the same CreatedAt; the policy is asked
	// again then.
	Postpone time.Duration
}

// Options configures a [Controller]. The zero value is upstream's
// controller on the real clock, with GOMAXPROCS concurrent evictions.
type Options struct {
	// Clock is the clock the controller reads to decide and its queue
	// waits on; nil means the real clock.
	Clock clock.Clock
	// Tolerations are the matching options (the Lt/Gt gate).
	Tolerations tolerations.Options
	// Workers bounds the evictions carried out at once; 0 or less means
	// GOMAXPROCS. Upstream has no bound.
	Workers int
	// Name names the queue in its metrics; empty means [DefaultName].
	Name string
	// Metrics receives the queue's metrics (see
	// [timedqueue.MetricsProvider]); nil reports none.
	Metrics timedqueue.MetricsProvider
	// Events, if set, receives the events upstream records: [Marking]
	// before each eviction, [Cancelling] when a scheduled one is
	// cancelled. It is called outside the controller's lock, from the
	// handler's goroutine or an eviction worker.
	Events func(Event)
	// Policy, if set, is asked before each eviction and may veto or
	// postpone it (see [Verdict]): the hook for deciding with knowledge of
	// the workload. Nil means every eviction happens, as upstream. It runs
	// on an eviction worker.
	Policy func(ctx context.Context, e Eviction) Verdict
	// Observe, if set, receives an [Outcome] for every pod decided and
	// every eviction cancelled, in order with the Events of the same
	// handler call and outside the controller's lock: a hook for logs
	// (upstream logs these at verbosity 2 to 4) and traces.
	Observe func(Outcome)
	// OnError, if set, receives the error of every eviction that failed
	// for good, which is then dropped, as upstream drops it after its
	// retries: at once without Retry, after the last attempt with it, and
	// at once for an error that wraps [ErrPermanent]. It is not called for
	// an attempt that will be retried, nor for one that failed after its
	// eviction was cancelled or while the controller shuts down.
	OnError func(e Eviction, err error)
	// Retry, if set, retries a failed eviction (evict returned an error
	// that does not wrap [ErrPermanent]) as a queue item due after the
	// backoff of [timedqueue.Retry], on Clock: while it waits it is
	// scheduled like any eviction, so that a taint removal, a toleration
	// change or the pod's deletion cancels it, and it holds no worker. The
	// zero value makes one attempt per eviction, as upstream's queue does
	// (upstream's evict function retries its API calls itself, five times
	// 10 ms apart, and then drops the eviction). Each attempt asks
	// [Options.Policy] again; the [Marking] event is recorded before the
	// first attempt only.
	Retry timedqueue.Retry
}

// Controller is the taint-eviction controller's core: it keeps the
// NoExecute taints of every tainted node, decides for each pod event and
// node event, schedules evictions on a [timedqueue.Queue] keyed by pod
// namespace/name, and calls the caller's evict function when one is due.
// Its handlers are safe for concurrent use (informer goroutines); each one
// runs to completion under the controller's lock, so a node's table entry
// is always up to date before its pods are decided.
type Controller struct {
	pods    PodLister
	evict   func(ctx context.Context, e Eviction) error
	clock   clock.Clock
	opts    tolerations.Options
	events  func(Event)
	observe func(Outcome)
	policy  func(ctx context.Context, e Eviction) Verdict
	onError func(Eviction, error)
	retry   timedqueue.Retry
	queue   *timedqueue.Queue[types.NamespacedName, evictMeta]

	mu      sync.Mutex
	tainted map[string]*taintedNode // node → its NoExecute taints, for tainted nodes only
	warmed  uintptr                 // what warm returned, kept so that its loads are made
}

// taintedNode is one entry of the tainted table. An entry is replaced,
// never modified, so the scheduled evictions of its pods may point to it
// after the node's taints change.
type taintedNode struct {
	name   string
	taints []v1.Taint   // the NoExecute taints, not empty
	causes []evictCause // causes[i] is taints[i]; the last one is no taint
}

// newTaintedNode returns the table entry of node name with the NoExecute
// taints noExec.
func newTaintedNode(name string, noExec []v1.Taint) *taintedNode {
	tn := &taintedNode{name: name, taints: noExec, causes: make([]evictCause, len(noExec)+1)}
	for i := range tn.causes {
		tn.causes[i] = evictCause{node: tn, taint: i}
	}
	tn.causes[len(noExec)].taint = -1
	return tn
}

// cause returns the cause for taint i, -1 for none.
func (tn *taintedNode) cause(i int32) *evictCause {
	if i < 0 {
		return &tn.causes[len(tn.taints)]
	}
	return &tn.causes[i]
}

// evictCause is a node and one of its NoExecute taints, the cause of the
// evictions that point to it.
type evictCause struct {
	node  *taintedNode
	taint int // index in node.taints; -1 for none
}

// evictMeta is the value a scheduled eviction carries in its queue item:
// the pod's UID, and its node and cause as a pointer into the tainted
// table (the table's entries are replaced, never changed).
type evictMeta struct {
	uid   types.UID
	cause *evictCause
}

// New returns a controller that reads pods through pods and carries out
// evictions with evict (called from the queue's workers with a context
// that [Controller.Shutdown] cancels). A nil pods lists nothing; a nil
// evict does nothing.
func New(pods PodLister, evict func(ctx context.Context, e Eviction) error, opts Options) *Controller {
	if pods == nil {
		pods = PodListerFunc(func(string) ([]*v1.Pod, error) { return nil, nil })
	}
	if evict == nil {
		evict = func(context.Context, Eviction) error { return nil }
	}
	clk := opts.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	c := &Controller{
		pods: pods, evict: evict, clock: clk, opts: opts.Tolerations,
		events: opts.Events, observe: opts.Observe, policy: opts.Policy, onError: opts.OnError,
		retry: opts.Retry, tainted: map[string]*taintedNode{},
	}
	name := opts.Name
	if name == "" {
		name = DefaultName
	}
	c.queue = timedqueue.New(c.work, timedqueue.Options[types.NamespacedName]{
		Name: name, Clock: clk, Workers: opts.Workers, Metrics: opts.Metrics, Retry: opts.Retry,
	})
	return c
}

// Tombstone is a deleted object whose final state the caller's informer
// may have missed: client-go's cache.DeletedFinalStateUnknown, which a
// controller converts field by field.
type Tombstone struct {
	// Key is the object's cache key ("namespace/name").
	Key string
	// Obj is the last state the cache knew.
	Obj any
}

// PodAdded handles a pod add event.
func (c *Controller) PodAdded(pod *v1.Pod) { c.PodUpdated(nil, pod) }

// PodUpdated handles a pod event as upstream's PodUpdated does: oldPod is
// nil for an add, newPod nil for a delete. An update that changes neither
// the tolerations (semantically, nil equal to empty) nor the node is
// ignored, as upstream ignores it. A pod bound to a tainted node is
// decided at the clock's now; a deleted pod's scheduled eviction is
// cancelled.
func (c *Controller) PodUpdated(oldPod, newPod *v1.Pod) {
	if PodUpdateIgnored(oldPod, newPod) {
		return
	}
	var evs []notice
	c.mu.Lock()
	c.queue.Batch(func(b evictBatch) {
		switch {
		case newPod != nil:
			evs = c.syncPodLocked(b, newPod, evs)
		case oldPod != nil:
			evs = c.cancelLocked(b, podKey(oldPod), oldPod.Spec.NodeName, evs)
		}
	})
	c.mu.Unlock()
	c.emit(evs)
}

// PodDeleted handles a pod delete event: obj is a *v1.Pod or a [Tombstone]
// (or *Tombstone) holding one.
func (c *Controller) PodDeleted(obj any) error {
	pod, ok := unwrap[*v1.Pod](obj)
	if !ok {
		return fmt.Errorf("tainteviction: pod deletion: got %T: %w", obj, ErrUnexpectedObject)
	}
	c.PodUpdated(pod, nil)
	return nil
}

// NodeAdded handles a node add event.
func (c *Controller) NodeAdded(node *v1.Node) error { return c.NodeUpdated(nil, node) }

// NodeUpdated handles a node event as upstream's NodeUpdated does: oldNode
// is nil for an add, newNode nil for a delete. An update that leaves the
// NoExecute taints equal (order, values and TimeAdded included) is
// ignored. Otherwise the node's entry in the tainted table is replaced and
// every pod on it is decided at one clock reading; when the last NoExecute
// taint goes, their scheduled evictions are cancelled. A deleted node only
// leaves the table: evictions already scheduled for its pods still run, as
// upstream's do.
func (c *Controller) NodeUpdated(oldNode, newNode *v1.Node) error {
	if NodeUpdateIgnored(oldNode, newNode) {
		return nil
	}
	switch {
	case newNode != nil:
		return c.syncNode(newNode)
	case oldNode != nil:
		c.mu.Lock()
		delete(c.tainted, oldNode.Name)
		c.mu.Unlock()
	}
	return nil
}

// NodeDeleted handles a node delete event: obj is a *v1.Node or a
// [Tombstone] (or *Tombstone) holding one.
func (c *Controller) NodeDeleted(obj any) error {
	node, ok := unwrap[*v1.Node](obj)
	if !ok {
		return fmt.Errorf("tainteviction: node deletion: got %T: %w", obj, ErrUnexpectedObject)
	}
	return c.NodeUpdated(node, nil)
}

func unwrap[T comparable](obj any) (T, bool) {
	var zero T
	switch o := obj.(type) {
	case T:
		return o, o != zero
	case Tombstone:
		t, ok := o.Obj.(T)
		return t, ok && t != zero
	case *Tombstone:
		if o == nil {
			return zero, false
		}
		t, ok := o.Obj.(T)
		return t, ok && t != zero
	}
	return zero, false
}

// syncNode records node's NoExecute taints and decides for its pods.
func (c *Controller) syncNode(node *v1.Node) error {
	noExec := taints.OnlyNoExecute(node.Spec.Taints)
	var evs []notice
	var tn *taintedNode
	c.mu.Lock()
	if len(noExec) == 0 {
		delete(c.tainted, node.Name)
	} else {
		tn = newTaintedNode(node.Name, noExec)
		c.tainted[node.Name] = tn
	}
	pods, err := c.pods.PodsOnNode(node.Name)
	if err != nil {
		c.mu.Unlock()
		return fmt.Errorf("tainteviction: pods on node %q: %w: %w", node.Name, ErrListPods, err)
	}
	c.queue.Batch(func(b evictBatch) {
		if len(noExec) == 0 {
			for _, p := range pods {
				evs = c.cancelLocked(b, podKey(p), node.Name, evs)
			}
			return
		}
		now := c.clock.Now() // one reading for every pod on the node
		c.warmed += warm(pods)
		for _, p := range pods {
			evs = c.decideLocked(b, p, tn, now, evs)
		}
	})
	c.mu.Unlock()
	c.emit(evs)
	return nil
}

// syncPodLocked decides for pod if its node is tainted.
func (c *Controller) syncPodLocked(b evictBatch, pod *v1.Pod, evs []notice) []notice {
	node := pod.Spec.NodeName
	if node == "" {
		return evs
	}
	tn, ok := c.tainted[node]
	if !ok {
		return evs // no NoExecute taint: any eviction was cancelled when the taints went
	}
	return c.decideLocked(b, pod, tn, c.clock.Now(), evs)
}

// evictBatch is the controller's queue locked by a handler.
type evictBatch = timedqueue.Batch[types.NamespacedName, evictMeta]

// decideLocked is upstream's processPodOnNode for a pod on a node with the
// NoExecute taints of tn.
func (c *Controller) decideLocked(b evictBatch, pod *v1.Pod, tn *taintedNode, now time.Time, evs []notice) []notice {
	key := podKey(pod)
	node, noExec := tn.name, tn.taints
	d := tolerations.NoExecuteDecision(noExec, pod.Spec.Tolerations, c.opts)
	e := b.Entry(key)
	it, queued := e.Get()
	s := Scheduled{CreatedAt: it.CreatedAt, FireAt: it.FireAt, Running: it.State == timedqueue.Running}
	a := reconcile(d, s, queued, now)
	var cancelled, added bool
	if a.Cancel && queued {
		cancelled = e.Cancel()
	}
	why := int32(-1)
	if a.Add || c.observe != nil {
		why = cause(noExec, pod.Spec.Tolerations, d, c.opts)
	}
	if a.Add {
		added = e.Add(evictMeta{uid: pod.UID, cause: tn.cause(why)}, a.CreatedAt, a.FireAt)
	}
	if c.observe != nil {
		o := &Outcome{Pod: key, Node: node, At: now, Decided: true, Decision: d, Action: a, Cancelled: cancelled, Added: added}
		if queued {
			before := s
			o.Before = &before
		}
		if why >= 0 && d.Kind != tolerations.Never {
			o.Taint = noExec[why]
		}
		evs = append(evs, notice{outcome: o})
	}
	if cancelled && c.events != nil {
		evs = append(evs, notice{event: Cancelling(key)})
	}
	return evs
}

// cancelLocked cancels the scheduled eviction of key, with upstream's
// event when there was one.
func (c *Controller) cancelLocked(b evictBatch, key types.NamespacedName, node string, evs []notice) []notice {
	if !b.Entry(key).Cancel() {
		return evs
	}
	if c.observe != nil {
		evs = append(evs, notice{outcome: &Outcome{Pod: key, Node: node, At: c.clock.Now(), Cancelled: true, Action: Action{Cancel: true}}})
	}
	if c.events != nil {
		evs = append(evs, notice{event: Cancelling(key)})
	}
	return evs
}

// notice is one callback a handler makes after releasing its lock.
type notice struct {
	outcome *Outcome // an Observe call, or else
	event   Event    // an Events call
}

func (c *Controller) emit(ns []notice) {
	for _, n := range ns {
		if n.outcome != nil {
			c.observe(*n.outcome)
		} else {
			c.events(n.event)
		}
	}
}

// cause returns the index of the taint behind decision d: the first
// untolerated NoExecute taint, or the first whose first tolerating
// toleration has the smallest seconds; -1 when noExec is empty.
func cause(noExec []v1.Taint, tols []v1.Toleration, d tolerations.Decision, opts tolerations.Options) int32 {
	best := int32(-1)
	bestSec := int64(0)
	for i := range noExec {
		t := &noExec[i]
		j := slices.IndexFunc(tols, func(tol v1.Toleration) bool { return tolerations.Tolerates(&tol, t, opts) })
		if j < 0 {
			return int32(i)
		}
		if d.Kind != tolerations.EvictAfter || tols[j].TolerationSeconds == nil {
			continue
		}
		if s := max(*tols[j].TolerationSeconds, 0); best < 0 || s < bestSec {
			best, bestSec = int32(i), s
		}
	}
	if best < 0 && len(noExec) > 0 {
		best = 0
	}
	return best
}

// work is the queue's work function: it asks the policy, records the
// event and calls evict. It returns evict's error when the queue is to
// retry the eviction (see [Options.Retry]); an eviction that failed for
// good goes to OnError instead.
func (c *Controller) work(ctx context.Context, it timedqueue.Item[types.NamespacedName, evictMeta]) error {
	key, m := it.Key, it.Value
	e := Eviction{Pod: key, UID: m.uid, CreatedAt: it.CreatedAt, FireAt: it.FireAt, Attempts: it.Attempts}
	if why := m.cause; why != nil {
		e.Node = why.node.name
		if why.taint >= 0 {
			e.Taint = why.node.taints[why.taint]
		}
	}
	if c.policy != nil {
		v := c.policy(ctx, e)
		if !v.Veto && v.Postpone > 0 {
			// Held behind this call by the queue, and due later.
			c.queue.Add(key, m, e.CreatedAt, c.clock.Now().Add(v.Postpone))
			return nil
		}
		if v.Veto {
			return nil
		}
	}
	if c.events != nil && it.Attempts == 0 {
		c.events(Marking(key))
	}
	err := c.evict(ctx, e)
	if err == nil || ctx.Err() != nil {
		return err // a shutdown: the queue retries nothing
	}
	if !errors.Is(err, ErrPermanent) && c.retries(it.Attempts+1) {
		return err // due again after the backoff, unless cancelled meanwhile
	}
	if c.onError != nil {
		c.onError(e, err)
	}
	return nil
}

// retries reports whether an eviction that has failed `failed` times in a
// row gets another attempt, as the queue's Retry decides it.
func (c *Controller) retries(failed int) bool {
	return c.retry.MaxAttempts < 0 || failed < c.retry.MaxAttempts
}

// Scheduled returns the eviction queued for pod, pending or running.
func (c *Controller) Scheduled(pod types.NamespacedName) (Scheduled, bool) {
	it, ok := c.queue.Get(pod)
	if !ok {
		return Scheduled{}, false
	}
	return Scheduled{CreatedAt: it.CreatedAt, FireAt: it.FireAt, Running: it.State == timedqueue.Running}, true
}

// NoExecuteTaints returns the NoExecute taints the controller holds for
// node (upstream's taintedNodes entry), and false for a node it does not
// hold as tainted. The slice must not be modified.
func (c *Controller) NoExecuteTaints(node string) ([]v1.Taint, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	tn, ok := c.tainted[node]
	if !ok {
		return nil, false
	}
	return tn.taints, true
}

// Len returns the number of evictions scheduled or running.
func (c *Controller) Len() int { return c.queue.Len() }

// Idle waits until every eviction due at the clock's now has been carried
// out (see [timedqueue.Queue.Idle]): step a fake clock, then call Idle.
func (c *Controller) Idle(ctx context.Context) error { return c.queue.Idle(ctx) }

// Run blocks until ctx ends, then shuts the controller down and returns
// what [Controller.Shutdown] returns (its wait is not bounded). Handlers
// may be called before and while Run runs.
func (c *Controller) Run(ctx context.Context) error {
	<-ctx.Done()
	return c.Shutdown(context.Background())
}

// Shutdown drops the scheduled evictions, cancels the context of the
// running ones and waits for them, bounded by ctx. Later events schedule
// nothing.
func (c *Controller) Shutdown(ctx context.Context) error {
	if err := c.queue.Shutdown(ctx); err != nil {
		return fmt.Errorf("tainteviction: shutdown: %w", errors.Unwrap(err))
	}
	return nil
}

// PodUpdateIgnored reports whether [Controller.PodUpdated] ignores the
// update from oldPod to newPod, as upstream does: both are set and neither
// the node nor the tolerations changed (compared in order, semantically:
// nil equals empty, seconds by value). A controller may use it to skip
// such updates before they reach a work queue.
func PodUpdateIgnored(oldPod, newPod *v1.Pod) bool {
	return oldPod != nil && newPod != nil && oldPod.Spec.NodeName == newPod.Spec.NodeName &&
		slices.EqualFunc(oldPod.Spec.Tolerations, newPod.Spec.Tolerations, tolerationEqual)
}

// NodeUpdateIgnored reports whether [Controller.NodeUpdated] ignores the
// update from oldNode to newNode, as upstream does: both are set and their
// NoExecute taints are equal, in order, TimeAdded included.
func NodeUpdateIgnored(oldNode, newNode *v1.Node) bool {
	return oldNode != nil && newNode != nil && sameNoExecute(oldNode.Spec.Taints, newNode.Spec.Taints)
}

func podKey(p *v1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Name}
}

func tolerationEqual(a, b v1.Toleration) bool { return tolerations.Equal(&a, &b) }

// sameNoExecute reports whether a and b hold equal NoExecute taints in the
// same order, without building the filtered lists.
func sameNoExecute(a, b []v1.Taint) bool {
	i, j := 0, 0
	for {
		for i < len(a) && a[i].Effect != v1.TaintEffectNoExecute {
			i++
		}
		for j < len(b) && b[j].Effect != v1.TaintEffectNoExecute {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if !taints.Equal(&a[i], &b[j]) {
			return false
		}
		i++
		j++
	}
}

// warm reads the parts of every pod that deciding it reads first (its
// name, its tolerations), in loops short enough that the processor
// overlaps the cache misses of many pods, where deciding the pods one after
// another waits for each pod's misses in turn: at 150,000 pods, a fifth of
// the time. It returns a value made of what it read, so that no load is
// dropped.
func warm(pods []*v1.Pod) uintptr {
	var x uintptr
	for _, p := range pods {
		x += uintptr(len(p.Name)) + uintptr(len(p.Spec.Tolerations))
	}
	for _, p := range pods {
		if len(p.Name) > 0 {
			x += uintptr(p.Name[0])
		}
		if len(p.Spec.Tolerations) > 0 {
			x += uintptr(len(p.Spec.Tolerations[0].Key))
		}
	}
	return x
}
