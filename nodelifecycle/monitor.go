package nodelifecycle

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/events"
	"github.com/evictkit/eviction/timedqueue"
)

// Errors a [Monitor] returns wrap one of these, and the API's error when there is one.
var (
	// ErrNodeSkipped: the node was left out of the pass (not counted in its zone, no taint
	// or pod action): the lease circuit breaker held it back, or reading or writing it failed
	// for good. The next pass judges it again.
	ErrNodeSkipped = errors.New("node left out of the pass")
	// ErrCallFailed: an API call (or the caller's pod listing) failed; the Monitor retries
	// it as upstream does.
	ErrCallFailed = errors.New("call failed")
)

// StatusAttempts is how many times a pass tries to write a node's status (upstream polls every
// 20 ms for 100 ms, scheduler.NodeHealthUpdateRetry): after a failed write the node is read
// again ([API.GetNode]) and judged again.
const StatusAttempts = 5

// API is what a [Monitor] reads from and writes to the API server. A controller implements it
// with a clientset; a simulation with its own objects. Every method returns the API error
// unchanged; the Monitor wraps it, carries on with the pass and retries as upstream does.
type API interface {
	// GetLease is the lease circuit breaker's live GET of a node's Lease in kube-node-lease.
	// NotFound is not an error: return LiveLease{Found: false}.
	GetLease(ctx context.Context, nodeName string) (LiveLease, error)
	// GetNode reads a node from the API server after a failed status write.
	GetNode(ctx context.Context, name string) (*v1.Node, error)
	// UpdateNodeStatus writes node.Status (UpdateStatus).
	UpdateNodeStatus(ctx context.Context, node *v1.Node) error
	// SwapTaints writes a taint change to the node as upstream's SwapNodeControllerTaint does:
	// read the node, add s.Add stamped with the current time, remove s.Remove, write, retrying
	// conflicts. [Swap.Apply] computes the result.
	SwapTaints(ctx context.Context, nodeName string, s Swap) error
	// UpdatePodStatus writes pod.Status (UpdateStatus). A NotFound error (as
	// k8s.io/apimachinery's errors.IsNotFound sees it) tells the Monitor the pod is gone: it
	// is neither counted as marked nor given an event, and the pass does not fail for it.
	UpdatePodStatus(ctx context.Context, pod *v1.Pod) error
}

// PassInput is what one [Monitor.Pass] reads from the controller's caches.
type PassInput struct {
	// Nodes are every node of the node cache, processed in this order.
	Nodes []*v1.Node
	// Lease returns a node's Lease from the lease cache, nil when there is none. A nil Lease
	// func means no Lease at all.
	Lease func(nodeName string) *coordinationv1.Lease
	// LeaseCacheRV is the resourceVersion the lease cache has synced to (the informer store's
	// LastStoreSyncResourceVersion); the lease circuit breaker compares it with the newest live
	// resourceVersion it saw.
	LeaseCacheRV string
	// Pods returns the pods bound to a node (the pod cache's index by spec.nodeName). It is
	// called only for the nodes whose pods a pass marks not ready. A nil Pods func means no
	// pods.
	Pods func(nodeName string) ([]*v1.Pod, error)
	// Reuse, if its capacity suffices, holds [PassResult.Nodes] instead of a new slice: a
	// caller done with the last pass's result passes its Nodes back, and a pass allocates no
	// per-node result. Its entries are overwritten.
	Reuse []NodePass
}

// WriteReason says why the Monitor wrote a [TaintWrite].
type WriteReason int

const (
	// FirstSeen: a node the Monitor had never listed loses its NoExecute taints (upstream
	// markNodeAsReachable for every added node, so every node after a controller restart).
	FirstSeen WriteReason = iota
	// Swapped: Ready is False or Unknown and the node carries the opposite NoExecute taint;
	// the swap is written at once, bypassing the zone queue.
	Swapped
	// BecameReady: Ready is True; the NoExecute taints go.
	BecameReady
	// AllZonesDown: the cluster entered the all-zones-down mode; every node loses its
	// NoExecute taints.
	AllZonesDown
	// Queued: the zone queue handed out the node's token ([Monitor.Drain]).
	Queued
)

// String returns the reason's name.
func (r WriteReason) String() string {
	switch r {
	case FirstSeen:
		return "FirstSeen"
	case Swapped:
		return "Swapped"
	case BecameReady:
		return "BecameReady"
	case AllZonesDown:
		return "AllZonesDown"
	case Queued:
		return "Queued"
	}
	return fmt.Sprintf("WriteReason(%d)", int(r))
}

// TaintWrite is one NoExecute taint change the Monitor wrote (or, without an [API], asks the
// caller to write).
type TaintWrite struct {
	Node   string
	Swap   Swap
	Reason WriteReason
	// Err is the write's error; nil when it succeeded or there is no API.
	Err error
}

// NodePass is what one pass did to one node.
type NodePass struct {
	// Node is the node as judged last: as listed, or as read again after a failed status
	// write, with the status written (when Status is non-nil) in place.
	Node *v1.Node
	// Health is the last judgement. Its Verdict is [Skipped] or [NeedsLeaseCheck] when the
	// lease circuit breaker left the node out.
	Health Health
	// Status is the status written (nil: none).
	Status *v1.NodeStatus
	// Counted reports that the node was counted in its zone.
	Counted bool
	// Enqueued reports that the node was added to its zone's queue this pass.
	Enqueued bool
	// TurnedNotReady reports that this pass turned a Ready node not ready: the last
	// judgement's [Health.BecameNotReady], or an earlier attempt's whose status write failed
	// though the node, read again, shows it applied (its answer was lost). The pass then marks
	// the node's pods not ready.
	TurnedNotReady bool
	// PodsNotReady are the pods whose Ready condition this pass set to False, as written.
	PodsNotReady []*v1.Pod
	// Err joins the errors met on this node: a skipped judgement, failed writes, a failed pod
	// listing. Each is retried as upstream retries it.
	Err error
}

// PassResult is what one [Monitor.Pass] did.
type PassResult struct {
	// Nodes holds one entry per listed node, in the order given.
	Nodes []NodePass
	// Registered are the nodes listed for the first time, in the order given; Removed are
	// the nodes the previous pass listed and this one does not, by name.
	Registered, Removed []NodeRef
	// Events are the events to record, in upstream's order: RegisteredNode for each
	// registered node, RemovingNode for each removed one, then node by node the node's
	// NodeNotReady (when the pass turned it not ready and listed its pods) and the Warning
	// NodeNotReady of each pod it marked or tried to mark.
	Events []events.Event
	// Taints are the NoExecute taint changes written this pass, in order.
	Taints []TaintWrite
	// Counts are this pass's zone counts.
	Counts map[string]ZoneCounts
	// Disruption is the cluster-wide zone transition ([HandleDisruption]) of this pass.
	Disruption Disruption
}

// ZoneStatus is a zone as the [Monitor] holds it.
type ZoneStatus struct {
	// State is the zone's state after the last pass ([ZoneInitial] for a zone that got its
	// queue this pass and was not counted).
	State ZoneState
	// Rate is the rate of the zone's queue, 0 when stopped.
	Rate float32
	// Queued lists the nodes waiting in the zone's queue, in the order [Monitor.Drain] takes
	// them.
	Queued []string
}

// Monitor is the node lifecycle controller's monitor (upstream monitorNodeHealth and the state
// it keeps between passes): the nodes it has seen, the [Probe] saved per node, the zone states,
// each zone's rate-limited NoExecute tainting queue and its rate, the lease circuit breaker's
// recorded resourceVersion, and the nodes whose pods must be marked not ready again.
//
// A controller calls [Monitor.Pass] every MonitorPeriod, [Monitor.Drain] every [DrainPeriod], [Monitor.PodBound] for each pod newly bound to a node
// ([PodBindingChanged]), and applies [NoScheduleTaints] on every node add or update; the last
// one keeps no state and is a plain function. Reads come in as arguments, API calls go through
// the [API] given to [NewMonitor]; time is the now of each call.
//
// Its methods are safe for concurrent use. A Drain runs beside a Pass, as upstream's tainting
// pass runs beside its monitor pass: the zone queues have a lock of their own (upstream's
// evictorLock), which Drain holds for its whole run, API calls included, and a Pass only while
// it changes a queue. Every other method holds the Monitor for its whole duration, so a Pass
// waits for another Pass (or a PodBound), never for the queues' API calls beyond one write.
type Monitor struct {
	mu  sync.Mutex // everything but the queues; taken before qmu, never after
	qmu sync.Mutex // queues
	api API
	cfg Config    // effective
	now time.Time // the time of the Pass or PodBound in progress

	known    map[string]*listedNode // every node of the last pass's listing
	passes   uint64                 // passes so far
	probes   map[string]*Probe
	zones    map[string]ZoneState
	queues   map[string]*timedqueue.RateLimited[string]
	retry    map[string]struct{} // nodes whose pods must be marked not ready again
	recorded string              // the breaker's newest live lease resourceVersion
}

// NewMonitor returns a Monitor that knows no node yet. A nil api makes every API call succeed
// without doing anything: live Leases are the cached ones, and the caller applies the writes
// listed in the results.
func NewMonitor(api API, cfg Config) *Monitor {
	return &Monitor{
		api:    api,
		cfg:    cfg.Effective(),
		known:  map[string]*listedNode{},
		probes: map[string]*Probe{},
		zones:  map[string]ZoneState{},
		queues: map[string]*timedqueue.RateLimited[string]{},
		retry:  map[string]struct{}{},
	}
}

// Pass is one monitorNodeHealth at now over the listed nodes:
//
//  1. every node not seen before is registered and loses its NoExecute taints
//     ([FirstSeen]); every zone without a state gets a queue at EvictionRate;
//  2. every node is judged ([Evaluate], the lease circuit breaker included) and its status
//     written when the judgement says so; a failed write is retried up to [StatusAttempts]
//     times on the node read again, after which the node is left out of the pass;
//  3. every judged node not [ExcludedFromDisruption] is counted in its zone; for a node with a
//     Ready condition, [NoExecuteAction] is carried out (a swap written at once, the zone
//     queue, or the taints removed) and, when the controller itself turned it not ready (or
//     marking its pods failed in an earlier pass), its pods are marked not ready;
//  4. [HandleDisruption] over the counts: zone states, queue rates, the all-zones-down mode
//     entered (every node loses its NoExecute taints) or left (every probe restarts at now).
//
// With [Config.DisableNoExecuteTainting] the pass writes no NoExecute taint (steps 1, 3 and 4
// leave taints and queues alone); the rest is the same.
//
// Failed writes never stop the pass; err joins them (each names its node and wraps the API's
// error) and the Monitor retries each as upstream does: a node not tainted stays in or goes
// back to its queue, pods not marked are marked at the next pass.
func (m *Monitor) Pass(ctx context.Context, now time.Time, in PassInput) (PassResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.now = now
	res := PassResult{Nodes: in.Reuse[:0], Counts: map[string]ZoneCounts{}}
	if cap(res.Nodes) < len(in.Nodes) {
		res.Nodes = make([]NodePass, 0, len(in.Nodes))
	}
	var errs []error

	// 1. Registration.
	m.passes++
	zones := make([]string, len(in.Nodes)) // each listed node's zone key, computed once
	for i, node := range in.Nodes {
		if node == nil {
			continue
		}
		ln, known := m.known[node.Name]
		if !known {
			ln = &listedNode{}
			m.known[node.Name] = ln
			res.Registered = append(res.Registered, NodeRef{node.Name, node.UID})
			res.Events = append(res.Events, RegisteredNode(node.Name, node.UID))
		}
		ln.pass, ln.uid = m.passes, node.UID
		zones[i] = ln.zoneKey(node)
		m.ensureZone(zones[i])
		if !known && !m.cfg.DisableNoExecuteTainting {
			if w, ok := m.markReachable(ctx, node, zones[i], FirstSeen); ok {
				res.Taints = append(res.Taints, w)
				errs = appendErr(errs, w.Err)
			}
		}
	}
	for name, ln := range m.known {
		if ln.pass != m.passes {
			res.Removed = append(res.Removed, NodeRef{name, ln.uid})
			delete(m.known, name)
		}
	}
	slices.SortFunc(res.Removed, func(a, b NodeRef) int { return strings.Compare(a.Name, b.Name) })
	for _, r := range res.Removed {
		res.Events = append(res.Events, RemovingNode(r.Name, r.UID))
	}

	// 2 and 3. Judgement and actions, node by node.
	for i, node := range in.Nodes {
		if node == nil {
			continue
		}
		np := m.passNode(ctx, node, zones[i], in, &res)
		if np.Counted {
			zone := zones[i]
			if np.Node != node {
				zone = ZoneKey(np.Node) // written, or read again after a failed write
			}
			c := res.Counts[zone]
			c.Add(np.Health.Current)
			res.Counts[zone] = c
		}
		errs = appendErr(errs, np.Err)
		res.Nodes = append(res.Nodes, np)
	}

	// 4. Zones.
	d := HandleDisruption(m.zones, res.Counts, m.cfg)
	res.Disruption = d
	if d.Entered && !m.cfg.DisableNoExecuteTainting {
		for i, node := range in.Nodes {
			if node == nil {
				continue
			}
			if w, ok := m.markReachable(ctx, node, zones[i], AllZonesDown); ok {
				res.Taints = append(res.Taints, w)
				errs = appendErr(errs, w.Err)
			}
		}
	}
	if d.Exited {
		for _, node := range in.Nodes {
			if node == nil {
				continue
			}
			p := ResetProbe(m.probes[node.Name], now)
			m.probes[node.Name] = &p
		}
	}
	m.qmu.Lock()
	for _, zone := range slices.Sorted(maps.Keys(d.Rates)) {
		m.queues[zone].SetRate(m.now, d.Rates[zone])
	}
	m.qmu.Unlock()
	m.zones = d.States
	return res, errors.Join(errs...)
}

// passNode judges one node and carries out what follows for it (upstream's updateNodeFunc).
func (m *Monitor) passNode(ctx context.Context, node *v1.Node, zone string, in PassInput, res *PassResult) NodePass {
	np := NodePass{Node: node}
	name := node.Name
	var lease *coordinationv1.Lease
	if in.Lease != nil {
		lease = in.Lease(name)
	}
	breaker := !m.cfg.DisableLeaseCircuitBreaker
	var h Health
	turning := false // a failed status write would have turned the node not ready
	for attempt := 1; ; attempt++ {
		if breaker && m.recorded != "" {
			if LeaseCacheBehind(m.recorded, in.LeaseCacheRV) {
				np.Health = Health{Verdict: Skipped}
				np.Err = fmt.Errorf("nodelifecycle: node %q: lease cache at %q, behind the live %q: %w", name, in.LeaseCacheRV, m.recorded, ErrNodeSkipped)
				return np
			}
			m.recorded = ""
		}
		saved := m.probes[name]
		h = evaluate(node, lease, saved, nil, m.now, m.cfg)
		if h.Verdict == NeedsLeaseCheck {
			live, err := m.liveLease(ctx, name, lease)
			if err != nil {
				m.save(name, h.Probe)
				np.Health = h
				np.Err = fmt.Errorf("nodelifecycle: node %q: live lease GET: %w: %w", name, ErrNodeSkipped, err)
				return np
			}
			h = evaluate(node, lease, saved, &live, m.now, m.cfg)
		}
		if h.Verdict == Skipped {
			m.save(name, h.Probe)
			m.recorded = NewerResourceVersion(m.recorded, h.LiveLeaseRV)
			np.Health = h
			np.Err = fmt.Errorf("nodelifecycle: node %q: live lease at %q, the cache is behind: %w", name, h.LiveLeaseRV, ErrNodeSkipped)
			return np
		}
		if h.Status == nil {
			m.save(name, h.Probe)
			break
		}
		written := node.DeepCopy()
		written.Status = *h.Status
		err := m.updateStatus(ctx, written)
		if err == nil {
			m.save(name, h.Written)
			np.Node, np.Status = written, h.Status
			break
		}
		m.save(name, h.Probe)
		turning = turning || h.BecameNotReady()
		np.Err = errors.Join(np.Err, fmt.Errorf("nodelifecycle: node %q: status write %d of %d: %w: %w", name, attempt, StatusAttempts, ErrCallFailed, err))
		if attempt == StatusAttempts {
			np.Health = h
			np.Err = errors.Join(np.Err, fmt.Errorf("nodelifecycle: node %q: every status write failed: %w", name, ErrNodeSkipped))
			return np
		}
		fresh, err := m.api.GetNode(ctx, name)
		if err != nil || fresh == nil {
			np.Health = h
			np.Err = errors.Join(np.Err, fmt.Errorf("nodelifecycle: node %q: reading it again: %w: %w", name, ErrNodeSkipped, err))
			return np
		}
		node, np.Node, zone = fresh, fresh, ZoneKey(fresh)
		m.ensureZone(zone) // its labels may have moved it (upstream would find no queue and crash)
	}
	np.Health = h
	np.Counted = !ExcludedFromDisruption(node)
	if h.Current == nil {
		delete(m.retry, name)
		return np
	}

	if !m.cfg.DisableNoExecuteTainting {
		m.noExecute(ctx, node, zone, h.Current, &np, res)
	}

	// A write whose answer was lost shows in the node read again: Ready no longer True
	// there, and this judgement sees no change. Upstream then never marks the pods.
	np.TurnedNotReady = h.BecameNotReady() || (turning && h.Observed.Status != v1.ConditionTrue && h.Current.Status != v1.ConditionTrue)
	_, again := m.retry[name]
	if np.TurnedNotReady || (again && h.Observed.Status != v1.ConditionTrue) {
		var pods []*v1.Pod
		if in.Pods != nil {
			var err error
			if pods, err = in.Pods(name); err != nil {
				m.retry[name] = struct{}{}
				np.Err = errors.Join(np.Err, fmt.Errorf("nodelifecycle: node %q: listing its pods: %w: %w", name, ErrCallFailed, err))
				return np
			}
		}
		if np.TurnedNotReady {
			res.Events = append(res.Events, NodeNotReady(np.Node.Name, np.Node.UID))
		}
		var failed []error
		for _, pod := range pods {
			marked, ok := MarkPodNotReady(pod, name, m.now)
			if !ok {
				continue
			}
			err := m.updatePod(ctx, marked)
			if apierrors.IsNotFound(err) {
				continue // gone meanwhile
			}
			res.Events = append(res.Events, PodNotReady(marked)) // written or not, as upstream
			if err != nil {
				failed = append(failed, fmt.Errorf("nodelifecycle: pod %s/%s on node %q: marking it not ready: %w: %w", pod.Namespace, pod.Name, name, ErrCallFailed, err))
				continue
			}
			np.PodsNotReady = append(np.PodsNotReady, marked)
		}
		if len(failed) > 0 {
			m.retry[name] = struct{}{}
			np.Err = errors.Join(append([]error{np.Err}, failed...)...)
			return np
		}
	}
	delete(m.retry, name)
	return np
}

// noExecute carries out [NoExecuteAction] for a judged node (upstream
// processTaintBaseEviction).
func (m *Monitor) noExecute(ctx context.Context, node *v1.Node, zone string, ready *v1.NodeCondition, np *NodePass, res *PassResult) {
	a := NoExecuteAction(node, ready)
	switch a.Kind {
	case SwapToNotReady, SwapToUnreachable:
		w := TaintWrite{Node: node.Name, Swap: a.Swap, Reason: Swapped}
		w.Err = m.swap(ctx, node.Name, a.Swap)
		res.Taints = append(res.Taints, w)
		np.Err = errors.Join(np.Err, w.Err)
	case Enqueue:
		m.qmu.Lock()
		q := m.queues[zone]
		if a.ClearTombstone {
			q.Remove(node.Name)
		}
		np.Enqueued = q.Add(m.now, node.Name, string(node.UID))
		m.qmu.Unlock()
	case Untaint:
		if w, ok := m.markReachable(ctx, node, zone, BecameReady); ok {
			res.Taints = append(res.Taints, w)
			np.Err = errors.Join(np.Err, w.Err)
		}
	}
}

// markReachable removes node's NoExecute taints and, once that succeeded, the node from its
// zone queue (upstream markNodeAsReachable). ok reports whether there was a taint to remove.
func (m *Monitor) markReachable(ctx context.Context, node *v1.Node, zone string, why WriteReason) (TaintWrite, bool) {
	s := MarkReachable(node).Swap
	w := TaintWrite{Node: node.Name, Swap: s, Reason: why}
	if !s.Empty() {
		if w.Err = m.swap(ctx, node.Name, s); w.Err != nil {
			return w, true
		}
	}
	m.qmu.Lock()
	m.queues[zone].Remove(node.Name)
	m.qmu.Unlock()
	return w, !s.Empty()
}

// Drain is one doNoExecuteTaintingPass at now: every zone queue, in zone order, hands its due
// nodes their NoExecute taint ([TaintQueued]), one per token. node returns a node from the node
// cache (ok false: gone, which drops it from the queue). A failed taint write keeps the node
// queued for the next Drain, as upstream does; err joins the failures. With
// [Config.DisableNoExecuteTainting] it does nothing.
func (m *Monitor) Drain(ctx context.Context, now time.Time, node func(name string) (*v1.Node, bool)) ([]TaintWrite, error) {
	m.qmu.Lock()
	defer m.qmu.Unlock()
	if m.cfg.DisableNoExecuteTainting {
		return nil, nil
	}
	var out []TaintWrite
	var errs []error
	for _, zone := range slices.Sorted(maps.Keys(m.queues)) {
		q := m.queues[zone]
		if q.Len() == 0 {
			continue
		}
		q.Try(now, func(v timedqueue.TimedValue[string]) (bool, time.Duration) {
			n, ok := node(v.Value)
			if !ok {
				n = nil
			}
			step := TaintQueued(n)
			if step.Swap.Empty() {
				return step.Done, step.RetryAfter
			}
			w := TaintWrite{Node: v.Value, Swap: step.Swap, Reason: Queued}
			w.Err = m.swap(ctx, v.Value, step.Swap)
			out = append(out, w)
			errs = appendErr(errs, w.Err)
			return w.Err == nil, 0
		})
	}
	return out, errors.Join(errs...)
}

// PodBound is upstream processPod for a pod just bound to a node ([PodBindingChanged]): when
// the Ready condition saved for the node is not True, the pod is marked not ready. The result
// holds the written copy (nil when the node has no saved Ready condition, the pod needs no
// change, is gone or the write failed) and the pod's Warning NodeNotReady event, recorded as
// upstream records it: after the write, whether it succeeded or not, unless the pod is gone.
// On an error, retry the pod later (upstream requeues it rate-limited).
func (m *Monitor) PodBound(ctx context.Context, now time.Time, pod *v1.Pod) (PodBoundResult, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if pod == nil {
		return PodBoundResult{}, nil
	}
	_, mark, ok := PodBoundToNode(m.probes[pod.Spec.NodeName])
	if !ok || !mark {
		return PodBoundResult{}, nil
	}
	marked, changed := MarkPodNotReady(pod, pod.Spec.NodeName, now)
	if !changed {
		return PodBoundResult{}, nil
	}
	err := m.updatePod(ctx, marked)
	switch {
	case apierrors.IsNotFound(err):
		return PodBoundResult{}, nil
	case err != nil:
		return PodBoundResult{Events: []events.Event{PodNotReady(marked)}},
			fmt.Errorf("nodelifecycle: pod %s/%s on node %q: marking it not ready: %w: %w", pod.Namespace, pod.Name, pod.Spec.NodeName, ErrCallFailed, err)
	}
	return PodBoundResult{Pod: marked, Events: []events.Event{PodNotReady(marked)}}, nil
}

// PodBoundResult is what [Monitor.PodBound] did to a pod.
type PodBoundResult struct {
	// Pod is the copy written, nil when none was.
	Pod *v1.Pod
	// Events are the events to record.
	Events []events.Event
}

// Probe returns the state saved for a node (upstream nodeHealthMap), and whether there is one.
// Probes outlive their nodes, as upstream's do: a node deleted and created again under the same
// name starts from the old probe.
func (m *Monitor) Probe(name string) (Probe, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.probes[name]
	if !ok {
		return Probe{}, false
	}
	return *p, true
}

// Zones returns every zone the Monitor holds a queue for, by zone key. A zone dropped by
// [HandleDisruption] keeps its queue until it is counted again (upstream then starts it afresh).
func (m *Monitor) Zones() map[string]ZoneStatus {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.qmu.Lock()
	defer m.qmu.Unlock()
	out := make(map[string]ZoneStatus, len(m.queues))
	for zone, q := range m.queues {
		zs := ZoneStatus{State: m.zones[zone], Rate: q.QPS()}
		for _, v := range q.Values() {
			zs.Queued = append(zs.Queued, v.Value)
		}
		out[zone] = zs
	}
	return out
}

// QueueStatus is a zone queue's size and timing, without its contents.
type QueueStatus struct {
	// Len is the number of nodes waiting in the queue (tombstones do not count).
	Len int
	// Rate is the queue's rate, 0 when stopped.
	Rate float32
	// NextDue is the earliest time a waiting node may be handed out (the token bucket
	// permitting); zero when the queue is empty.
	NextDue time.Time
	// NextToken is the earliest time, at or after the now given to [Monitor.Queues], at which
	// the queue's token bucket holds a token ([timedqueue.RateLimited.NextToken]); zero when
	// the queue is stopped or its bucket will not refill. A [Monitor.Drain] before it changes
	// nothing in this queue; one at or after it, while nodes wait, draws the token: it hands
	// out the first node if NextDue has come, and spends the token anyway if not.
	NextToken time.Time
}

// Queues returns the [QueueStatus] of every zone queue at now, by zone key. It costs O(zones)
// (each NextToken a binary search of about 60 steps over the bucket's arithmetic), where
// [Monitor.Zones] lists every queued node in order: call it to decide whether, and when, a
// [Monitor.Drain] may do something, instead of polling every [DrainPeriod].
func (m *Monitor) Queues(now time.Time) map[string]QueueStatus {
	m.qmu.Lock()
	defer m.qmu.Unlock()
	out := make(map[string]QueueStatus, len(m.queues))
	for zone, q := range m.queues {
		qs := QueueStatus{Len: q.Len(), Rate: q.QPS()}
		if at, ok := q.NextDue(); ok {
			qs.NextDue = at
		}
		if at, ok := q.NextToken(now); ok {
			qs.NextToken = at
		}
		out[zone] = qs
	}
	return out
}

// InQueue reports whether a node is waiting in its zone's queue and whether it left a
// tombstone there (it was tainted from the queue, and no re-add is possible until it is
// removed).
func (m *Monitor) InQueue(zone, name string) (queued, tombstone bool) {
	m.qmu.Lock()
	defer m.qmu.Unlock()
	q, ok := m.queues[zone]
	if !ok {
		return false, false
	}
	_, queued = q.Get(name)
	return queued, !queued && q.Has(name)
}

// listedNode is what the Monitor keeps of a listed node between passes: the last pass that
// listed it, and its zone key with the labels it was made of, so that a pass builds the key
// again only when they changed.
type listedNode struct {
	pass              uint64
	uid               types.UID
	region, zone, key string
}

// NodeRef names a node a pass registered or removed.
type NodeRef struct {
	Name string
	UID  types.UID
}

// zoneKey returns [ZoneKey] of node, the listed node.
func (ln *listedNode) zoneKey(node *v1.Node) string {
	region, zone := zoneLabels(node.Labels)
	if region != ln.region || zone != ln.zone {
		ln.region, ln.zone, ln.key = region, zone, joinZoneKey(region, zone)
	}
	return ln.key
}

// ensureZone gives a zone without a state the Initial state and a fresh queue at EvictionRate
// (upstream addPodEvictorForNewZone).
func (m *Monitor) ensureZone(zone string) {
	if _, ok := m.zones[zone]; ok {
		return
	}
	m.zones[zone] = ZoneInitial
	m.qmu.Lock()
	m.queues[zone] = timedqueue.NewRateLimited[string](m.cfg.EvictionRate)
	m.qmu.Unlock()
}

// save remembers p for a node, in place when the node has a probe already.
func (m *Monitor) save(name string, p Probe) {
	if old, ok := m.probes[name]; ok {
		*old = p
		return
	}
	saved := new(Probe) // allocated here only: p itself stays on the stack
	*saved = p
	m.probes[name] = saved
}

func (m *Monitor) liveLease(ctx context.Context, name string, cached *coordinationv1.Lease) (LiveLease, error) {
	if m.api == nil {
		if cached == nil {
			return LiveLease{}, nil
		}
		return LiveLease{Found: true, ResourceVersion: cached.ResourceVersion}, nil
	}
	return m.api.GetLease(ctx, name)
}

func (m *Monitor) updateStatus(ctx context.Context, node *v1.Node) error {
	if m.api == nil {
		return nil
	}
	return m.api.UpdateNodeStatus(ctx, node)
}

func (m *Monitor) swap(ctx context.Context, name string, s Swap) error {
	if m.api == nil {
		return nil
	}
	if err := m.api.SwapTaints(ctx, name, s); err != nil {
		return fmt.Errorf("nodelifecycle: node %q: taint write %s: %w: %w", name, s, ErrCallFailed, err)
	}
	return nil
}

func (m *Monitor) updatePod(ctx context.Context, pod *v1.Pod) error {
	if m.api == nil {
		return nil
	}
	return m.api.UpdatePodStatus(ctx, pod)
}

func appendErr(errs []error, err error) []error {
	if err != nil {
		errs = append(errs, err)
	}
	return errs
}
