package legacy

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	nl "github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/timedqueue"
)

// Evictor is what the legacy mode keeps between passes, beside the [nl.Monitor] that judges
// the nodes: every registered node's [EvictionState] (upstream nodeEvictionMap) and one
// rate-limited queue of nodes per zone (upstream zonePodEvictor), at the rates the Monitor's
// [nl.HandleDisruption] sets. It carries out the decisions of [Decide] and
// [EvictionState.Next]; the caller deletes pods ([DeletePods]).
//
// A controller runs its Monitor with [nl.Config.DisableNoExecuteTainting] and, beside it:
//
//	ev.NodeAdded(name) / ev.NodeDeleted(name)         // node informer add / delete
//	acts, err := ev.AfterPass(now, res)             // after every Monitor.Pass
//	ev.Drain(now, evict)                            // every 100 ms: evict lists the node's pods and DeletePods them
//	op, err := ev.PodBound(now, node, uid, zone, &probe) // a pod newly bound to a node
//
// Its methods are safe for concurrent use; each holds the Evictor for its whole duration,
// callbacks included.
type Evictor struct {
	mu     sync.Mutex
	cfg    Config
	rate   float32                 // the effective EvictionRate of a new zone's queue
	zones  map[string]nl.ZoneState // the zone states after the last pass
	queues map[string]*timedqueue.RateLimited[string]
	states map[string]EvictionState // registered nodes
}

// NewEvictor returns an Evictor with no node and no zone; nodes are the node lifecycle
// settings of the Monitor it follows (their EvictionRate starts every zone's queue).
func NewEvictor(cfg Config, nodes nl.Config) *Evictor {
	return &Evictor{
		cfg:    cfg,
		rate:   nodes.Effective().EvictionRate,
		zones:  map[string]nl.ZoneState{},
		queues: map[string]*timedqueue.RateLimited[string]{},
		states: map[string]EvictionState{},
	}
}

// NodeAdded registers a node as [Unmarked] (upstream: on the node informer's add); a node
// registered already keeps its state. Only registered nodes change state: the others are
// still queued and dequeued, as upstream's are.
func (e *Evictor) NodeAdded(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.states[name]; !ok {
		e.states[name] = Unmarked
	}
}

// NodeDeleted forgets a node's state (upstream: on the node informer's delete). Its queue
// entry, if any, stays until its token comes.
func (e *Evictor) NodeDeleted(name string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.states, name)
}

// State returns a node's state and whether it is registered.
func (e *Evictor) State(name string) (EvictionState, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s, ok := e.states[name]
	return s, ok
}

// Queued lists the nodes waiting in a zone's queue, in the order [Evictor.Drain] takes them.
func (e *Evictor) Queued(zone string) []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	q, ok := e.queues[zone]
	if !ok {
		return nil
	}
	var out []string
	for _, v := range q.Values() {
		out = append(out, v.Value)
	}
	return out
}

// NextDue returns the earliest time a queued node of any zone may be handed out by
// [Evictor.Drain] (the zone's token bucket permitting), and false when every queue is empty.
func (e *Evictor) NextDue() (time.Time, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var first time.Time
	found := false
	for _, q := range e.queues {
		if at, ok := q.NextDue(); ok && (!found || at.Before(first)) {
			first, found = at, true
		}
	}
	return first, found
}

// Queues returns the size, rate, next due time and next token at now of every zone's queue,
// by zone key, as [nl.Monitor.Queues] does for the taint mode's queues.
func (e *Evictor) Queues(now time.Time) map[string]nl.QueueStatus {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]nl.QueueStatus, len(e.queues))
	for zone, q := range e.queues {
		qs := nl.QueueStatus{Len: q.Len(), Rate: q.QPS()}
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

// Action is one node's eviction decision of a pass, and what the Evictor did about it.
type Action struct {
	// Node and UID name the node; Zone is its zone key.
	Node string
	UID  types.UID
	Zone string
	// Decision is [Decide]'s answer; Op the operation it called for. The Evictor carried out
	// OpEnqueue and OpDequeue itself; OpDeleteNow is the caller's: delete the node's pods at
	// once ([DeletePods]), without a token.
	Decision PodEviction
	Op       EvictionOp
}

// AfterPass carries out, at the pass's now, the legacy mode's part of the Monitor pass whose
// result res is (upstream v1.26 monitorNodeHealth with the taint manager off), in upstream's
// order:
//
//  1. every zone of a listed node that had no state after the last pass gets a fresh queue
//     at EvictionRate (upstream addPodEvictorForNewZone);
//  2. every registered node ([nl.PassResult.Registered]) has its eviction cancelled;
//  3. every node judged with a Ready condition, and not left out of the pass, is decided
//     ([Decide] on [nl.Health.Observed], with the probe the pass saved) and the decision
//     carried out;
//  4. when the cluster entered the all-zones-down mode, every listed node has its eviction
//     cancelled; then the queues get the pass's rates.
//
// It returns one [Action] per node decided with something to do (an op other than OpNone),
// in the pass's order; the caller carries out the OpDeleteNow ones. err joins the decisions
// that failed (none do for a result of [nl.Monitor.Pass]).
func (e *Evictor) AfterPass(now time.Time, res nl.PassResult) ([]Action, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	zoneOf := make(map[string]string, len(res.Nodes))
	for _, np := range res.Nodes {
		if np.Node == nil {
			continue
		}
		zone := nl.ZoneKey(np.Node)
		zoneOf[np.Node.Name] = zone
		e.ensureZone(zone)
	}
	for _, r := range res.Registered {
		if zone, ok := zoneOf[r.Name]; ok {
			e.cancel(r.Name, zone)
		}
	}
	var acts []Action
	var errs []error
	for i := range res.Nodes {
		np := &res.Nodes[i]
		if np.Node == nil || np.Health.Current == nil || errors.Is(np.Err, nl.ErrNodeSkipped) {
			continue
		}
		saved := np.Health.Saved()
		d, err := Decide(np.Health.Observed.Status, &saved, now, e.cfg)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		a := Action{Node: np.Node.Name, UID: np.Node.UID, Zone: zoneOf[np.Node.Name], Decision: d}
		a.Op = e.carry(now, a.Node, a.UID, a.Zone, d)
		if a.Op != OpNone {
			acts = append(acts, a)
		}
	}
	if res.Disruption.Entered {
		for _, np := range res.Nodes {
			if np.Node != nil {
				e.cancel(np.Node.Name, zoneOf[np.Node.Name])
			}
		}
	}
	for _, zone := range slices.Sorted(maps.Keys(res.Disruption.Rates)) {
		if q, ok := e.queues[zone]; ok {
			q.SetRate(now, res.Disruption.Rates[zone])
		}
	}
	e.zones = maps.Clone(res.Disruption.States) // the Monitor keeps the map
	if e.zones == nil {
		e.zones = map[string]nl.ZoneState{}
	}
	return acts, errors.Join(errs...)
}

// PodBound decides, at now, for a pod newly bound to a node (upstream v1.26 processPod with
// the taint manager off): saved is the probe the Monitor holds for the node
// ([nl.Monitor.Probe]), zone its zone key. ok is false when there is nothing to decide (no
// probe, or no saved Ready condition). OpDeleteNow means: delete this pod at once
// ([DeletePods] with just it); the Evictor carried out the other ops. Then mark the pod not
// ready as the Monitor does ([nl.Monitor.PodBound]).
func (e *Evictor) PodBound(now time.Time, node string, uid types.UID, zone string, saved *nl.Probe) (op EvictionOp, ok bool, err error) {
	ready, _, ok := nl.PodBoundToNode(saved)
	if !ok {
		return OpNone, false, nil
	}
	d, err := Decide(ready, saved, now, e.cfg)
	if err != nil {
		return OpNone, false, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ensureQueue(zone)
	return e.carry(now, node, uid, zone, d), true, nil
}

// EvictedNode names a node whose pods [Evictor.Drain] deleted, with its zone key.
type EvictedNode struct {
	Node string
	Zone string
}

// Drain is one doEvictionPass at now: every zone's queue, in zone order, hands out its due
// nodes, one per token, to evict, which lists the node's pods and deletes them
// ([DeletePods]). A node whose evict succeeded becomes [Evicted] (if registered) and leaves a
// tombstone in its queue until its eviction is cancelled; one whose evict failed stays queued
// for the next Drain. It returns the nodes evicted, in order, and the failures joined.
func (e *Evictor) Drain(now time.Time, evict func(node string, uid types.UID) error) ([]EvictedNode, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []EvictedNode
	var errs []error
	for _, zone := range slices.Sorted(maps.Keys(e.queues)) {
		q := e.queues[zone]
		if q.Len() == 0 {
			continue
		}
		q.Try(now, func(v timedqueue.TimedValue[string]) (bool, time.Duration) {
			uid, _ := v.UID.(types.UID)
			if err := evict(v.Value, uid); err != nil {
				errs = append(errs, fmt.Errorf("legacy: evicting node %q: %w", v.Value, err))
				return false, 0
			}
			if _, ok := e.states[v.Value]; ok {
				e.states[v.Value] = Evicted
			}
			out = append(out, EvictedNode{Node: v.Value, Zone: zone})
			return true, 0
		})
	}
	return out, errors.Join(errs...)
}

// carry moves a node's state by decision d and carries out the queue operation.
func (e *Evictor) carry(now time.Time, node string, uid types.UID, zone string, d PodEviction) EvictionOp {
	cur, registered := e.states[node]
	next, op := cur.Next(d)
	if registered {
		e.states[node] = next
	}
	switch op {
	case OpEnqueue:
		e.queues[zone].Add(now, node, uid)
	case OpDequeue:
		e.queues[zone].Remove(node)
	}
	return op
}

// cancel is upstream cancelPodEviction.
func (e *Evictor) cancel(node, zone string) {
	if _, ok := e.states[node]; ok {
		e.states[node] = Unmarked
	}
	if q, ok := e.queues[zone]; ok {
		q.Remove(node)
	}
}

// ensureZone gives a zone that had no state after the last pass a fresh queue (upstream
// addPodEvictorForNewZone, which replaces the queue of a zone that lost its state).
func (e *Evictor) ensureZone(zone string) {
	if _, ok := e.zones[zone]; ok {
		return
	}
	e.zones[zone] = nl.ZoneInitial
	e.queues[zone] = timedqueue.NewRateLimited[string](e.rate)
}

// ensureQueue gives a zone without a queue one (upstream never drops a zone's queue).
func (e *Evictor) ensureQueue(zone string) {
	if _, ok := e.queues[zone]; !ok {
		e.queues[zone] = timedqueue.NewRateLimited[string](e.rate)
	}
}
