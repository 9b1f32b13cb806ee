package nodelifecycle

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/evictkit/eviction/events"
	"github.com/evictkit/eviction/timedqueue"
)

// Pass starts one monitorNodeHealth at now over the listed nodes:
//
//  1. every node not seen before is registered and loses its NoExecute taints
//     ([FirstSeen]); every zone without a state gets a queue at EvictionRate;
//  2. every node is judged ([Evaluate], the lease circuit breaker included: a [GetLease]
//     call) and its status written when the judgement says so ([UpdateNodeStatus]); a failed
//     write is retried up to [StatusAttempts] times on the node read again ([GetNode]), after
//     which the node is left out of the pass;
//  3. every judged node not [ExcludedFromDisruption] is counted in its zone; for a node with a
//     Ready condition, [NoExecuteAction] is carried out (a swap written at once, the zone
//     queue, or the taints removed: [SwapTaints]) and, when the controller itself turned it not
//     ready (or marking its pods failed in an earlier pass), its pods are marked not ready
//     ([UpdatePodStatus]);
//  4. [HandleDisruption] over the counts: zone states, queue rates, the all-zones-down mode
//     entered (every node loses its NoExecute taints) or left (every probe restarts at now).
//
// The calls come one by one from the returned [Run], in upstream's order; [Run.Do] makes them
// through an [API]. With [Config.DisableNoExecuteTainting] the pass writes no NoExecute taint
// (steps 1, 3 and 4 leave taints and queues alone); the rest is the same.
//
// Failed calls never stop the pass; the Run's error joins them (each names its node and wraps
// the API's error) and the Monitor retries each as upstream does: a node not tainted stays in
// or goes back to its queue, pods not marked are marked at the next pass.
func (m *Monitor) Pass(now time.Time, in PassInput) *Run[PassResult] {
	m.mu.Lock()
	p := &passRun{m: m, now: now, in: in, res: PassResult{Nodes: in.Reuse[:0], Counts: map[string]ZoneCounts{}}}
	if cap(p.res.Nodes) < len(in.Nodes) {
		p.res.Nodes = make([]NodePass, 0, len(in.Nodes))
	}
	p.register()
	return newRun[PassResult](p)
}

// The stages of a pass, in order.
const (
	stageFirstSeen    = iota // the NoExecute taints of newly registered nodes
	stageNodes               // judgement and actions, node by node
	stageAllZonesDown        // the NoExecute taints of every node, on entering the all-zones-down mode
	stageOver
)

// The steps of one node's turn in a pass.
const (
	stepJudge     = iota // the breaker's consistency check and the judgement
	stepLease            // awaiting the live Lease
	stepWrite            // the status to write
	stepStatus           // awaiting the status write
	stepRead             // the node to read again
	stepReread           // awaiting the node read again
	stepNoExecute        // the NoExecute action
	stepSwap             // awaiting a NoExecute taint write
	stepPods             // whether the pods are marked
	stepMark             // marking the next pod
	stepPod              // awaiting a pod's status write
	stepDone
)

// passRun is a pass in progress.
type passRun struct {
	m     *Monitor
	now   time.Time
	in    PassInput
	res   PassResult
	errs  []error
	zones []string // each listed node's zone key, computed once

	stage int
	i     int   // the node in hand (an index of in.Nodes, or of firstSeen)
	first []int // the nodes registered by this pass, whose taints go first
	n     nodeTurn
	// taint is the NoExecute taint write awaiting its reply.
	taint pendingTaint
}

// nodeTurn is one node's turn in a pass (upstream updateNodeFunc).
type nodeTurn struct {
	step    int
	np      NodePass
	node    *v1.Node // as judged last
	zone    string
	lease   *coordinationv1.Lease
	saved   *Probe // the probe before this judgement
	h       Health
	attempt int
	turning bool // a failed status write would have turned the node not ready
	written *v1.Node
	pods    []*v1.Pod
	next    int // the next pod to mark
	marked  *v1.Pod
	failed  []error
}

// register is step 1 without its writes: the nodes seen for the first time, the zones, and the
// nodes gone since the last pass.
func (p *passRun) register() {
	m := p.m
	m.passes++
	p.zones = make([]string, len(p.in.Nodes))
	for i, node := range p.in.Nodes {
		if node == nil {
			continue
		}
		ln, known := m.known[node.Name]
		if !known {
			ln = &listedNode{}
			m.known[node.Name] = ln
			p.res.Registered = append(p.res.Registered, NodeRef{node.Name, node.UID})
			p.res.Events = append(p.res.Events, RegisteredNode(node.Name, node.UID))
		}
		ln.pass, ln.uid = m.passes, node.UID
		p.zones[i] = ln.zoneKey(node)
		m.ensureZone(p.zones[i])
		if !known && !m.cfg.DisableNoExecuteTainting {
			p.first = append(p.first, i)
		}
	}
	for name, ln := range m.known {
		if ln.pass != m.passes {
			p.res.Removed = append(p.res.Removed, NodeRef{name, ln.uid})
			delete(m.known, name)
		}
	}
	slices.SortFunc(p.res.Removed, func(a, b NodeRef) int { return strings.Compare(a.Name, b.Name) })
	for _, r := range p.res.Removed {
		p.res.Events = append(p.res.Events, RemovingNode(r.Name, r.UID))
	}
}

func (p *passRun) next() (Call, bool) {
	for {
		switch p.stage {
		case stageFirstSeen:
			if p.i == len(p.first) {
				p.stage, p.i = stageNodes, 0
				continue
			}
			i := p.first[p.i]
			p.i++
			if c, ok := p.startReach(p.in.Nodes[i], p.zones[i], FirstSeen); ok {
				return c, true
			}
		case stageNodes:
			if p.i == len(p.in.Nodes) {
				p.zonesStep()
				continue
			}
			if p.in.Nodes[p.i] == nil {
				p.i++
				continue
			}
			if p.n.node == nil { // the node in hand has not started its turn
				p.startTurn()
			}
			if c, ok := p.turn(); ok {
				return c, true
			}
			p.endTurn()
		case stageAllZonesDown:
			if p.i == len(p.in.Nodes) {
				p.finish()
				continue
			}
			node := p.in.Nodes[p.i]
			p.i++
			if node == nil {
				continue
			}
			if c, ok := p.startReach(node, p.zones[p.i-1], AllZonesDown); ok {
				return c, true
			}
		default:
			return Call{}, false
		}
	}
}

func (p *passRun) reply(r Reply) {
	if p.stage == stageNodes {
		p.turnReply(r)
		return
	}
	p.errs = appendErr(p.errs, p.taintWritten(r))
}

// pendingTaint is a NoExecute taint write handed out and not yet answered.
type pendingTaint struct {
	w    TaintWrite
	zone string
	// reach: the write removes the node's NoExecute taints (upstream
	// markNodeAsReachable), after which the node leaves its zone queue.
	reach bool
}

// writeTaint hands out the taint write w of a node in zone.
func (p *passRun) writeTaint(w TaintWrite, zone string, reach bool) Call {
	p.taint = pendingTaint{w: w, zone: zone, reach: reach}
	return Call{Op: SwapTaints, Node: w.Node, Swap: w.Swap}
}

// taintWritten takes the answer to the pending taint write: it lists the write and returns
// its error.
func (p *passRun) taintWritten(r Reply) error {
	t := p.taint
	t.w.Err = swapErr(t.w.Node, t.w.Swap, r.Err)
	if t.reach && t.w.Err == nil {
		p.m.dequeue(t.zone, t.w.Node)
	}
	p.res.Taints = append(p.res.Taints, t.w)
	p.taint = pendingTaint{}
	return t.w.Err
}

func (p *passRun) result() (PassResult, error) { return p.res, errors.Join(p.errs...) }

func (p *passRun) end() { p.m.mu.Unlock() }

// startReach starts markReachable: the taint removal to write, or, with no NoExecute taint
// to remove, the node leaves its zone queue at once and there is nothing to call.
func (p *passRun) startReach(node *v1.Node, zone string, why WriteReason) (Call, bool) {
	s := MarkReachable(node).Swap
	if s.Empty() {
		p.m.dequeue(zone, node.Name)
		return Call{}, false
	}
	return p.writeTaint(TaintWrite{Node: node.Name, Swap: s, Reason: why}, zone, true), true
}

// startTurn begins the turn of the node in hand.
func (p *passRun) startTurn() {
	node := p.in.Nodes[p.i]
	p.n = nodeTurn{np: NodePass{Node: node}, node: node, zone: p.zones[p.i], attempt: 1}
	if p.in.Lease != nil {
		p.n.lease = p.in.Lease(node.Name)
	}
}

// endTurn counts the node whose turn is over in its zone and moves to the next node.
func (p *passRun) endTurn() {
	np := p.n.np
	if np.Counted {
		zone := p.zones[p.i]
		if np.Node != p.in.Nodes[p.i] {
			zone = ZoneKey(np.Node) // written, or read again after a failed write
		}
		c := p.res.Counts[zone]
		c.Add(np.Health.Current)
		p.res.Counts[zone] = c
	}
	p.errs = appendErr(p.errs, np.Err)
	p.res.Nodes = append(p.res.Nodes, np)
	p.n = nodeTurn{}
	p.i++
}

// turn carries the node's turn on until it needs a call (returned) or is over (false).
func (p *passRun) turn() (Call, bool) {
	m, n := p.m, &p.n
	name := n.node.Name
	for {
		switch n.step {
		case stepJudge:
			if !m.cfg.DisableLeaseCircuitBreaker && m.recorded != "" {
				synced := ""
				if p.in.LeaseCacheRV != nil {
					synced = p.in.LeaseCacheRV()
				}
				if LeaseCacheBehind(m.recorded, synced) {
					n.np.Health = Health{Verdict: Skipped}
					n.np.Err = fmt.Errorf("nodelifecycle: node %q: lease cache at %q, behind the live %q: %w", name, synced, m.recorded, ErrNodeSkipped)
					return Call{}, false
				}
				m.recorded = ""
			}
			n.saved = m.probes[name]
			n.h = evaluate(n.node, n.lease, n.saved, nil, p.now, m.cfg)
			if n.h.Verdict == NeedsLeaseCheck {
				n.step = stepLease
				return Call{Op: GetLease, Node: name, Lease: n.lease}, true
			}
			p.judged()
		case stepWrite:
			n.step = stepStatus
			return Call{Op: UpdateNodeStatus, Node: name, Status: n.written}, true
		case stepRead:
			n.step = stepReread
			return Call{Op: GetNode, Node: name}, true
		case stepNoExecute:
			n.step = stepPods
			if n.np.Health.Current == nil || m.cfg.DisableNoExecuteTainting {
				continue
			}
			a := NoExecuteAction(n.node, n.np.Health.Current)
			switch a.Kind {
			case SwapToNotReady, SwapToUnreachable:
				n.step = stepSwap
				return p.writeTaint(TaintWrite{Node: name, Swap: a.Swap, Reason: Swapped}, n.zone, false), true
			case Enqueue:
				m.qmu.Lock()
				q := m.queues[n.zone]
				if a.ClearTombstone {
					q.Remove(name)
				}
				n.np.Enqueued = q.Add(p.now, name, string(n.node.UID))
				m.qmu.Unlock()
			case Untaint:
				if c, ok := p.startReach(n.node, n.zone, BecameReady); ok {
					n.step = stepSwap
					return c, true
				}
			}
		case stepPods:
			h := n.np.Health
			if h.Current == nil {
				delete(m.retry, name)
				return Call{}, false
			}
			// A write whose answer was lost shows in the node read again: Ready no longer
			// True there, and this judgement sees no change. Upstream then never marks the
			// pods.
			n.np.TurnedNotReady = h.BecameNotReady() || (n.turning && h.Observed.Status != v1.ConditionTrue && h.Current.Status != v1.ConditionTrue)
			_, again := m.retry[name]
			if !n.np.TurnedNotReady && (!again || h.Observed.Status == v1.ConditionTrue) {
				delete(m.retry, name)
				return Call{}, false
			}
			if p.in.Pods != nil {
				pods, err := p.in.Pods(name)
				if err != nil {
					m.retry[name] = struct{}{}
					n.np.Err = errors.Join(n.np.Err, fmt.Errorf("nodelifecycle: node %q: listing its pods: %w: %w", name, ErrCallFailed, err))
					return Call{}, false
				}
				n.pods = pods
			}
			if n.np.TurnedNotReady {
				p.res.Events = append(p.res.Events, NodeNotReady(n.np.Node.Name, n.np.Node.UID))
			}
			n.step = stepMark
		case stepMark:
			for n.next < len(n.pods) {
				pod := n.pods[n.next]
				n.next++
				if marked, ok := MarkPodNotReady(pod, name, p.now); ok {
					n.marked, n.step = marked, stepPod
					return Call{Op: UpdatePodStatus, Node: name, Pod: marked}, true
				}
			}
			if len(n.failed) > 0 {
				m.retry[name] = struct{}{}
				n.np.Err = errors.Join(append([]error{n.np.Err}, n.failed...)...)
				return Call{}, false
			}
			delete(m.retry, name)
			return Call{}, false
		default: // stepDone
			return Call{}, false
		}
	}
}

// judged goes on from a judgement: to the status write (n.written), to the node's actions, or
// to the end of the turn.
func (p *passRun) judged() {
	m, n := p.m, &p.n
	name := n.node.Name
	h := n.h
	switch {
	case h.Verdict == Skipped:
		m.save(name, h.Probe)
		m.recorded = NewerResourceVersion(m.recorded, h.LiveLeaseRV)
		n.np.Health = h
		n.np.Err = fmt.Errorf("nodelifecycle: node %q: live lease at %q, the cache is behind: %w", name, h.LiveLeaseRV, ErrNodeSkipped)
		n.step = stepDone
		return
	case h.Status == nil:
		m.save(name, h.Probe)
		p.settle()
		return
	}
	n.written = n.node.DeepCopy()
	n.written.Status = *h.Status
	n.step = stepWrite
}

// settle ends the judgement: the node is counted (unless excluded) and its actions follow.
func (p *passRun) settle() {
	n := &p.n
	n.np.Health = n.h
	n.np.Counted = !ExcludedFromDisruption(n.node)
	n.step = stepNoExecute
}

// turnReply takes the reply to the call the node's turn made.
func (p *passRun) turnReply(r Reply) {
	m, n := p.m, &p.n
	name := n.node.Name
	switch n.step {
	case stepLease:
		if r.Err != nil {
			m.save(name, n.h.Probe)
			n.np.Health = n.h
			n.np.Err = fmt.Errorf("nodelifecycle: node %q: live lease GET: %w: %w", name, ErrNodeSkipped, r.Err)
			n.step = stepDone
			return
		}
		n.h = evaluate(n.node, n.lease, n.saved, &r.Lease, p.now, m.cfg)
		p.judged()
	case stepStatus:
		h := n.h
		if r.Err == nil {
			m.save(name, h.Written)
			n.np.Node, n.np.Status = n.written, h.Status
			p.settle()
			return
		}
		m.save(name, h.Probe)
		n.turning = n.turning || h.BecameNotReady()
		n.np.Err = errors.Join(n.np.Err, fmt.Errorf("nodelifecycle: node %q: status write %d of %d: %w: %w", name, n.attempt, StatusAttempts, ErrCallFailed, r.Err))
		if n.attempt == StatusAttempts {
			n.np.Health = h
			n.np.Err = errors.Join(n.np.Err, fmt.Errorf("nodelifecycle: node %q: every status write failed: %w", name, ErrNodeSkipped))
			n.step = stepDone
			return
		}
		n.step = stepRead
	case stepReread:
		if r.Err != nil || r.Node == nil {
			n.np.Health = n.h
			n.np.Err = errors.Join(n.np.Err, fmt.Errorf("nodelifecycle: node %q: reading it again: %w: %w", name, ErrNodeSkipped, r.Err))
			n.step = stepDone
			return
		}
		n.node, n.np.Node, n.zone = r.Node, r.Node, ZoneKey(r.Node)
		m.ensureZone(n.zone) // its labels may have moved it (upstream would find no queue and crash)
		n.attempt++
		n.step = stepJudge
	case stepSwap:
		n.np.Err = errors.Join(n.np.Err, p.taintWritten(r))
		n.step = stepPods
	case stepPod:
		n.step = stepMark
		if apierrors.IsNotFound(r.Err) {
			return // gone meanwhile
		}
		p.res.Events = append(p.res.Events, PodNotReady(n.marked)) // written or not, as upstream
		if r.Err != nil {
			n.failed = append(n.failed, fmt.Errorf("nodelifecycle: pod %s/%s on node %q: marking it not ready: %w: %w", n.marked.Namespace, n.marked.Name, name, ErrCallFailed, r.Err))
			return
		}
		n.np.PodsNotReady = append(n.np.PodsNotReady, n.marked)
	}
}

// zonesStep is step 4: the zone transition over the counts.
func (p *passRun) zonesStep() {
	m := p.m
	d := HandleDisruption(m.zones, p.res.Counts, m.cfg)
	p.res.Disruption = d
	p.i = 0
	if d.Entered && !m.cfg.DisableNoExecuteTainting {
		p.stage = stageAllZonesDown
		return
	}
	p.finish()
}

// finish ends the pass: the probes restart when the all-zones-down mode is left, and the
// zones take their new rates and states.
func (p *passRun) finish() {
	m, d := p.m, p.res.Disruption
	if d.Exited {
		for _, node := range p.in.Nodes {
			if node == nil {
				continue
			}
			pr := ResetProbe(m.probes[node.Name], p.now)
			m.probes[node.Name] = &pr
		}
	}
	m.qmu.Lock()
	for _, zone := range slices.Sorted(maps.Keys(d.Rates)) {
		m.queues[zone].SetRate(p.now, d.Rates[zone])
	}
	m.qmu.Unlock()
	m.zones = d.States
	p.stage = stageOver
}

// dequeue takes a node out of its zone queue.
func (m *Monitor) dequeue(zone, name string) {
	m.qmu.Lock()
	m.queues[zone].Remove(name)
	m.qmu.Unlock()
}

func swapErr(name string, s Swap, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("nodelifecycle: node %q: taint write %s: %w: %w", name, s, ErrCallFailed, err)
}

// Drain starts one doNoExecuteTaintingPass at now: every zone queue, in zone order, hands its
// due nodes their NoExecute taint ([TaintQueued]: a [SwapTaints] call), one per token. node
// returns a node from the node cache (ok false: gone, which drops it from the queue). A failed
// taint write keeps the node queued for the next drain, as upstream does; the Run's error
// joins the failures. With [Config.DisableNoExecuteTainting] it does nothing. The Run holds
// the zone queues until its end.
func (m *Monitor) Drain(now time.Time, node func(name string) (*v1.Node, bool)) *Run[[]TaintWrite] {
	m.qmu.Lock()
	d := &drainRun{m: m, now: now, node: node}
	if !m.cfg.DisableNoExecuteTainting {
		d.zones = slices.Sorted(maps.Keys(m.queues))
	}
	return newRun[[]TaintWrite](d)
}

// drainRun is a drain in progress.
type drainRun struct {
	m     *Monitor
	now   time.Time
	node  func(name string) (*v1.Node, bool)
	zones []string // the zones left, in order
	q     *timedqueue.RateLimited[string]
	taken timedqueue.TimedValue[string] // the queued node whose taint write awaits its reply
	w     TaintWrite
	out   []TaintWrite
	errs  []error
}

func (d *drainRun) next() (Call, bool) {
	for {
		if d.q == nil {
			if len(d.zones) == 0 {
				return Call{}, false
			}
			d.q, d.zones = d.m.queues[d.zones[0]], d.zones[1:]
			if d.q.Len() == 0 {
				d.q = nil
				continue
			}
		}
		v, ok := d.q.Take(d.now)
		if !ok {
			d.q = nil
			continue
		}
		n, ok := d.node(v.Value)
		if !ok {
			n = nil
		}
		step := TaintQueued(n)
		if step.Swap.Empty() {
			d.q.Settle(d.now, v, step.Done, step.RetryAfter)
			continue
		}
		d.taken, d.w = v, TaintWrite{Node: v.Value, Swap: step.Swap, Reason: Queued}
		return Call{Op: SwapTaints, Node: v.Value, Swap: step.Swap}, true
	}
}

func (d *drainRun) reply(r Reply) {
	w := d.w
	w.Err = swapErr(w.Node, w.Swap, r.Err)
	d.out = append(d.out, w)
	d.errs = appendErr(d.errs, w.Err)
	d.q.Settle(d.now, d.taken, w.Err == nil, 0)
}

func (d *drainRun) result() ([]TaintWrite, error) { return d.out, errors.Join(d.errs...) }

func (d *drainRun) end() { d.m.qmu.Unlock() }

// PodBound starts upstream's processPod for a pod just bound to a node
// ([PodBindingChanged]): when the Ready condition saved for the node is not True, the pod is
// marked not ready (an [UpdatePodStatus] call). The result holds the written copy (nil when the
// node has no saved Ready condition, the pod needs no change, is gone or the write failed) and
// the pod's Warning NodeNotReady event, recorded as upstream records it: after the write,
// whether it succeeded or not, unless the pod is gone. On an error, retry the pod later
// (upstream requeues it rate-limited).
func (m *Monitor) PodBound(now time.Time, pod *v1.Pod) *Run[PodBoundResult] {
	m.mu.Lock()
	b := &boundRun{m: m}
	if pod == nil {
		return newRun[PodBoundResult](b)
	}
	if _, mark, ok := PodBoundToNode(m.probes[pod.Spec.NodeName]); ok && mark {
		if marked, changed := MarkPodNotReady(pod, pod.Spec.NodeName, now); changed {
			b.marked = marked
		}
	}
	return newRun[PodBoundResult](b)
}

// PodBoundResult is what [Monitor.PodBound] did to a pod.
type PodBoundResult struct {
	// Pod is the copy written, nil when none was.
	Pod *v1.Pod
	// Events are the events to record.
	Events []events.Event
}

// boundRun is a bound pod's marking in progress: one call at most.
type boundRun struct {
	m      *Monitor
	marked *v1.Pod // the copy to write; nil once asked for, or when there is none
	res    PodBoundResult
	err    error
}

func (b *boundRun) next() (Call, bool) {
	if b.marked == nil {
		return Call{}, false
	}
	return Call{Op: UpdatePodStatus, Node: b.marked.Spec.NodeName, Pod: b.marked}, true
}

func (b *boundRun) reply(r Reply) {
	pod := b.marked
	b.marked = nil
	switch {
	case apierrors.IsNotFound(r.Err):
	case r.Err != nil:
		b.res.Events = []events.Event{PodNotReady(pod)}
		b.err = fmt.Errorf("nodelifecycle: pod %s/%s on node %q: marking it not ready: %w: %w", pod.Namespace, pod.Name, pod.Spec.NodeName, ErrCallFailed, r.Err)
	default:
		b.res = PodBoundResult{Pod: pod, Events: []events.Event{PodNotReady(pod)}}
	}
}

func (b *boundRun) result() (PodBoundResult, error) { return b.res, b.err }

func (b *boundRun) end() { b.m.mu.Unlock() }
