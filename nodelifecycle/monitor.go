package nodelifecycle

import (
	"errors"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
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
// again ([GetNode]) and judged again.
const StatusAttempts = 5

// PassInput is what one [Monitor.Pass] reads from the controller's caches.
type PassInput struct {
	// Nodes are every node of the node cache, processed in this order.
	Nodes []*v1.Node
	// Lease returns a node's Lease from the lease cache, nil when there is none. A nil Lease
	// func means no Lease at all.
	Lease func(nodeName string) *coordinationv1.Lease
	// LeaseCacheRV returns the resourceVersion the lease cache has synced to (the informer
	// store's LastStoreSyncResourceVersion); the lease circuit breaker compares it with the
	// newest live resourceVersion it saw. It is called at each node's turn while the breaker
	// holds a version, as upstream reads its store then: the cache catches up during a long
	// pass. A nil func, or an empty version, never holds a node back.
	LeaseCacheRV func() string
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
// A controller runs [Monitor.Pass] every MonitorPeriod, [Monitor.Drain] every [DrainPeriod],
// [Monitor.PodBound] for each pod newly bound to a node ([PodBindingChanged]), and applies
// [NoScheduleTaints] on every node add or update; the last one keeps no state and is a plain
// function. Reads come in as arguments and time as the now of each call; the first three
// return a [Run], which hands the API calls to make to the caller one by one as values, takes
// their answers and ends with a result. The Monitor reads no clock and makes no call.
//
// Its methods are safe for concurrent use. A drain runs beside a pass, as upstream's tainting
// pass runs beside its monitor pass: the zone queues have a lock of their own (upstream's
// evictorLock), which a drain's Run holds from its creation to its end, API calls included,
// and a pass only while it changes a queue. A pass's or a bound pod's Run holds the rest of
// the Monitor from its creation to its end, so a pass waits for another pass (or a bound
// pod), never for the queues' API calls beyond one write.
type Monitor struct {
	mu  sync.Mutex // everything but the queues, held by a pass or bound pod run; taken before qmu, never after
	qmu sync.Mutex // queues, held by a drain run
	cfg Config     // effective

	known    map[string]*listedNode // every node of the last pass's listing
	passes   uint64                 // passes so far
	probes   map[string]*Probe
	zones    map[string]ZoneState
	queues   map[string]*timedqueue.RateLimited[string]
	retry    map[string]struct{} // nodes whose pods must be marked not ready again
	recorded string              // the breaker's newest live lease resourceVersion
}

// NewMonitor returns a Monitor with cfg's settings that knows no node yet.
func NewMonitor(cfg Config) *Monitor {
	return &Monitor{
		cfg:    cfg.Effective(),
		known:  map[string]*listedNode{},
		probes: map[string]*Probe{},
		zones:  map[string]ZoneState{},
		queues: map[string]*timedqueue.RateLimited[string]{},
		retry:  map[string]struct{}{},
	}
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

func appendErr(errs []error, err error) []error {
	if err != nil {
		errs = append(errs, err)
	}
	return errs
}
