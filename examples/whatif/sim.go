package main

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/tainteviction"
	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/tolerations"
)

// horizon bounds a simulation: past it, whatever is still queued is reported
// as never happening.
const horizon = 24 * time.Hour

// Event kinds, in the order events at the same instant are listed. The
// strings are part of the JSON output.
const (
	kindHeartbeat        = "last-heartbeat"
	kindUnknown          = "node-unknown"
	kindZone             = "zone-state"
	kindMasterDisruption = "all-zones-down"
	kindTainted          = "tainted"
	kindTaintRemoved     = "taint-removed"
	kindCancelled        = "eviction-cancelled"
	kindEvicted          = "evicted"
	kindStays            = "stays"
	kindNotTainted       = "never-tainted"
	kindNothingEvicted   = "nothing-evicted"
)

// kindRank orders events of the same instant: causes before effects.
func kindRank(kind string) int {
	return slices.Index([]string{kindHeartbeat, kindUnknown, kindZone, kindMasterDisruption, kindTainted,
		kindTaintRemoved, kindCancelled, kindEvicted, kindStays, kindNotTainted, kindNothingEvicted}, kind)
}

// event is one line of a timeline. A zero At means "never".
type event struct {
	At     time.Time
	Kind   string
	Node   string
	Zone   string
	Pod    string // namespace/name
	Detail string
}

// object names what the event is about, for the table.
func (e event) object() string {
	switch {
	case e.Pod != "":
		return e.Pod
	case e.Kind == kindZone:
		return "zone/" + e.Zone
	case e.Kind == kindMasterDisruption:
		return "cluster"
	case e.Node != "":
		return "node/" + e.Node
	}
	return ""
}

// podState is what the taint-eviction controller knows about one pod.
type podState struct {
	pod       *corev1.Pod
	scheduled *tainteviction.Scheduled // pending eviction, nil if none
	reason    string                   // why the pending eviction, or why it stays
	decided   bool                     // a NoExecute taint was decided on
	evicted   bool
}

// sim runs the node lifecycle controller (health passes, zone states, the
// rate-limited NoExecute tainting) and the taint-eviction controller over a
// snapshot, on a fake clock. Nothing in it reads the wall clock.
type sim struct {
	cfg   nodelifecycle.Config
	opts  tolerations.Options
	t0    time.Time
	clock *clocktesting.FakeClock

	nodes  []*corev1.Node // deep copies, in name order
	byName map[string]*corev1.Node
	// podsOn holds the pods of the nodes the run has looked at (see pods);
	// the pods of the others are untouched.
	podsOn map[string][]*podState
	snap   *snapshot

	// silent holds the nodes that stop heartbeating at t0: they have no
	// Lease; every other node renews its Lease before every pass.
	silent map[string]bool
	// notReady holds the nodes already not Ready in the snapshot.
	notReady map[string]bool

	// mon is the node lifecycle controller: health passes, zone states,
	// the rate-limited NoExecute tainting.
	mon        *nodelifecycle.Monitor
	states     map[string]nodelifecycle.ZoneState
	zoneCounts map[string]nodelifecycle.ZoneCounts
	allDown    bool
	// passNodes is the last pass's per-node result, handed back to the next.
	passNodes []nodelifecycle.NodePass
	// everyTick turns the skipping of tainting passes off: a tainting pass
	// every 100 ms while some queue holds work, as upstream polls (the
	// reference in tests).
	everyTick bool
	// everyPass turns the skipping of monitor passes off: a pass every
	// MonitorPeriod until the run ends (the reference in tests).
	everyPass bool
	// passes counts the monitor passes run.
	passes int

	// start, if set, runs right after the first monitor pass at t0.
	start func()

	taintedAt map[string]time.Time // first NoExecute taint by the controller
	unknownAt map[string]time.Time // when a silent node was marked Unknown
	events    []event
	notes     []string
	outcomes  map[string]outcome // per node, counted once the run is over
}

// newSim prepares a simulation of s starting at t0 with the node lifecycle
// settings cfg (its zero value: the v1.37 defaults).
func newSim(s *snapshot, t0 time.Time, cfg nodelifecycle.Config) *sim {
	cfg = cfg.Effective()
	m := &sim{
		cfg:        cfg,
		t0:         t0,
		clock:      clocktesting.NewFakeClock(t0),
		byName:     map[string]*corev1.Node{},
		podsOn:     map[string][]*podState{},
		silent:     map[string]bool{},
		notReady:   map[string]bool{},
		mon:        nodelifecycle.NewMonitor(cfg),
		states:     map[string]nodelifecycle.ZoneState{},
		zoneCounts: map[string]nodelifecycle.ZoneCounts{},
		taintedAt:  map[string]time.Time{},
		unknownAt:  map[string]time.Time{},
	}
	for _, n := range s.Nodes {
		c := n.DeepCopy()
		m.nodes = append(m.nodes, c)
		m.byName[c.Name] = c
		if r := readyCondition(c); r == nil || r.Status != corev1.ConditionTrue {
			m.notReady[c.Name] = true
		}
	}
	slices.SortFunc(m.nodes, func(a, b *corev1.Node) int { return cmp.Compare(a.Name, b.Name) })
	m.snap = s
	return m
}

// pods returns the taint-eviction controller's state of the pods bound to
// the node that have not finished (nothing is left to evict of the
// others), sorted by namespace/name. It is made the first time a node is
// looked at: a run touches the pods of the nodes it takes down or taints,
// and of none of the others, whose pods stay as the snapshot has them.
func (m *sim) pods(node string) []*podState {
	if ps, ok := m.podsOn[node]; ok {
		return ps
	}
	pods := m.snap.onNode[node]
	ps := make([]*podState, len(pods))
	states := make([]podState, len(pods))
	for i, p := range pods {
		states[i].pod = p
		ps[i] = &states[i]
	}
	slices.SortFunc(ps, func(a, b *podState) int { return cmp.Compare(podKey(a.pod), podKey(b.pod)) })
	m.podsOn[node] = ps
	return ps
}

// silence makes node stop heartbeating at t0: from then on neither its
// status nor its Lease is renewed, so the controller's pass at t0 is the
// last to hear from it.
func (m *sim) silence(name string) {
	n := m.byName[name]
	m.silent[name] = true
	m.add(event{At: m.t0, Kind: kindHeartbeat, Node: name, Zone: zoneName(nodelifecycle.ZoneKey(n)),
		Detail: "last heartbeat, then silence"})
}

// add records an event.
func (m *sim) add(e event) { m.events = append(m.events, e) }

// now is the simulation's current time.
func (m *sim) now() time.Time { return m.clock.Now() }

// run drives the controller from t0: a monitor pass every MonitorPeriod (but
// for the ones that would repeat the last, see monitorPass) and a tainting
// pass every 100 ms while some zone queue holds work (but for the ones that
// cannot hand out a node, see nextDrain), until the last silent node has
// been handled and every queue that may still move is empty.
func (m *sim) run() {
	for _, n := range m.nodes {
		if m.notReady[n.Name] && !m.silent[n.Name] {
			status := "no Ready condition"
			if r := readyCondition(n); r != nil {
				status = "Ready " + string(r.Status)
			}
			m.notes = append(m.notes, fmt.Sprintf("%s is already not ready in the snapshot (%s): its kubelet keeps "+
				"posting that, so it counts as not ready in its zone and is tainted like any failed node.", n.Name, status))
		}
	}
	limit := m.t0.Add(horizon)
	t := m.t0
	nextPass := m.t0
	// marked: every silent node is marked Unknown, the last at end;
	// recomputed only when a node was marked since.
	marked, end, seen := false, m.t0, -1
	for {
		m.clock.SetTime(t)
		if !t.Before(nextPass) {
			settled, due := m.monitorPass()
			first := nextPass.Equal(m.t0)
			if first && m.start != nil {
				m.start()
			}
			nextPass = t.Add(m.cfg.MonitorPeriod)
			if settled && !first && !m.everyPass {
				nextPass = m.passAfter(due, limit)
			}
		}
		m.taintPass()
		busy := m.busy()
		// Done once every silent node is Unknown, one more pass has run (queue
		// re-adds, zone states settle) and no queue can still move.
		if len(m.unknownAt) != seen {
			seen = len(m.unknownAt)
			marked, end = true, m.t0
			for name := range m.silent {
				at, ok := m.unknownAt[name]
				marked = marked && ok
				end = later(end, at)
			}
		}
		if marked && !busy && t.After(end) {
			break
		}
		next := nextPass
		switch {
		case busy && m.everyTick:
			next = earlier(next, t.Add(nodelifecycle.DrainPeriod))
		case busy:
			next = earlier(next, m.nextDrain(t))
		}
		if next.After(limit) {
			m.notes = append(m.notes, fmt.Sprintf("simulation stopped %v after t0 with work still queued", horizon))
			break
		}
		t = next
	}
	m.finish()
}

// busy reports whether some zone queue holds nodes and may still hand out
// tokens.
func (m *sim) busy() bool {
	for _, q := range m.mon.Queues(m.now()) {
		if q.Len > 0 && q.Rate > 0 {
			return true
		}
	}
	return false
}

// nextDrain returns the first tainting pass after t (every DrainPeriod from
// t) at which some zone queue that holds nodes has a token, as the Monitor
// reports it ([nodelifecycle.QueueStatus.NextToken]): the passes skipped
// would draw no token, and a pass that draws none changes nothing, so the
// timeline is the one polling every DrainPeriod gives.
func (m *sim) nextDrain(t time.Time) time.Time {
	period := nodelifecycle.DrainPeriod
	next := time.Time{}
	for _, q := range m.mon.Queues(t) {
		if q.Len == 0 || q.Rate <= 0 || q.NextToken.IsZero() {
			continue
		}
		at := t.Add(period)
		if q.NextToken.After(at) {
			at = t.Add((q.NextToken.Sub(t) + period - 1) / period * period)
		}
		if next.IsZero() || at.Before(next) {
			next = at
		}
	}
	if next.IsZero() {
		return t.Add(period)
	}
	return next
}

// passAfter returns the first pass of the grid t0 + k·MonitorPeriod
// strictly after due, the earliest time a silent node's grace period runs
// out (zero: none will), or a time past limit when none will.
func (m *sim) passAfter(due, limit time.Time) time.Time {
	period := m.cfg.MonitorPeriod
	if due.IsZero() {
		return limit.Add(period)
	}
	return m.t0.Add((due.Sub(m.t0)/period + 1) * period)
}

// monitorPass is one monitorNodeHealth ([nodelifecycle.Monitor.Pass]):
// every node but the silent ones renews its Lease first; then the status
// writes, the NoExecute taint writes and the zone states it decides become
// events, node by node and then zone by zone.
//
// settled reports that the pass left everything the next one reads as it
// found it: no status or taint written, the zone counts, states and rates
// and the queue sizes unchanged, no silent node newly marked. Every pass
// after it then repeats it, until the first one strictly after due, when the
// grace period of a silent node still judged Fresh runs out (zero: there is
// none), so run skips them and the timeline stays the one of a pass every
// MonitorPeriod:
//
//   - a node that heartbeats renews its Lease before each pass the
//     simulation runs, so it is judged Fresh with the same probe however
//     many passes were skipped;
//   - a silent node keeps its verdict until due: already Unknown, it is
//     Expired with nothing to write; the others are Fresh until then;
//   - the zone states depend on the counts alone, which change only when a
//     verdict does; with no state change no rate is set;
//   - the nodes waiting untainted in a queue are removed and added again by
//     every pass, in node order, behind the ones that are not: skipped or
//     not, they are handed out in the same order, and all of them are due
//     (no node is ever retried later: every queued node has a Ready
//     condition);
//   - a node the tainting passes tainted in between leaves a tombstone that
//     refuses the pass's re-add, skipped or not.
func (m *sim) monitorPass() (settled bool, due time.Time) {
	now := m.now()
	m.passes++
	queuesBefore := m.mon.Queues(now)
	marked := len(m.unknownAt)
	renew := metav1.NewMicroTime(now)
	lease := &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{RenewTime: &renew}} // the Monitor only reads it
	res, err := m.mon.Pass(now, nodelifecycle.PassInput{
		Nodes: m.nodes,
		Lease: func(name string) *coordinationv1.Lease {
			if m.silent[name] {
				return nil
			}
			return lease
		},
		Pods: func(name string) ([]*corev1.Pod, error) {
			states := m.pods(name)
			pods := make([]*corev1.Pod, len(states))
			for i, ps := range states {
				pods[i] = ps.pod
			}
			return pods, nil
		},
		Reuse: m.passNodes,
	}).Do(context.Background(), nil) // the simulation applies the writes itself
	m.passNodes = res.Nodes
	if err != nil {
		m.notes = append(m.notes, err.Error()) // no API: nothing can fail
	}
	byNode := map[string][]nodelifecycle.TaintWrite{}
	for _, w := range res.Taints {
		// FirstSeen writes are not applied: the simulated controller has been
		// running before t0 and knows every node of the snapshot; a restart
		// would strip their NoExecute taints first.
		switch w.Reason {
		case nodelifecycle.Swapped, nodelifecycle.BecameReady:
			byNode[w.Node] = append(byNode[w.Node], w)
		}
	}
	for _, np := range res.Nodes {
		n := m.byName[np.Node.Name]
		if np.Status != nil {
			m.markUnknown(n, *np.Status, len(np.PodsNotReady), now)
		} else if np.Health.Verdict == nodelifecycle.Expired {
			if _, ok := m.unknownAt[n.Name]; !ok && m.silent[n.Name] {
				m.unknownAt[n.Name] = now // already Unknown in the snapshot
			}
		}
		for _, w := range byNode[n.Name] {
			why := "node Ready"
			if w.Reason == nodelifecycle.Swapped {
				why = "swapped, no queue"
			}
			m.swap(n, w.Swap, why)
		}
	}
	d := res.Disruption
	settled = len(res.Taints) == 0 && !d.Entered && !d.Exited && len(d.Rates) == 0 && len(d.Dropped) == 0 &&
		maps.Equal(d.States, m.states) && maps.Equal(res.Counts, m.zoneCounts) && len(m.unknownAt) == marked &&
		maps.EqualFunc(queuesBefore, m.mon.Queues(now), func(a, b nodelifecycle.QueueStatus) bool {
			return a.Len == b.Len && a.Rate == b.Rate
		})
	for _, np := range res.Nodes {
		if np.Status != nil {
			settled = false
		}
		if h := np.Health; h.Verdict == nodelifecycle.Fresh && m.silent[np.Node.Name] {
			if at := h.Probe.ProbeTime.Add(h.Grace); due.IsZero() || at.Before(due) {
				due = at
			}
		}
	}
	m.disruption(res)
	m.zoneCounts = res.Counts
	return settled, due
}

// markUnknown writes the status the controller decided for a silent node
// (Ready, MemoryPressure, DiskPressure and PIDPressure Unknown), then the
// NoSchedule taint that follows on the node update.
func (m *sim) markUnknown(n *corev1.Node, status corev1.NodeStatus, podsNotReady int, now time.Time) {
	n.Status = status
	m.unknownAt[n.Name] = now
	add, remove := nodelifecycle.NoScheduleTaints(n)
	n.Spec.Taints = nodelifecycle.Swap{Add: add, Remove: remove}.Apply(n.Spec.Taints, now)
	detail := "Ready Unknown"
	if podsNotReady > 0 {
		detail += fmt.Sprintf("; %s marked NotReady", plural(podsNotReady, "pod"))
	}
	zone := zoneName(nodelifecycle.ZoneKey(n))
	m.add(event{At: now, Kind: kindUnknown, Node: n.Name, Zone: zone, Detail: detail})
	if len(add) > 0 {
		m.add(event{At: now, Kind: kindTainted, Node: n.Name, Zone: zone, Detail: "tainted " + shortTaints(add)})
	}
}

// swap writes a NoExecute taint change and lets the taint-eviction controller
// react to it.
func (m *sim) swap(n *corev1.Node, s nodelifecycle.Swap, why string) {
	if s.Empty() {
		return
	}
	now := m.now()
	before := taints.OnlyNoExecute(n.Spec.Taints)
	n.Spec.Taints = s.Apply(n.Spec.Taints, now)
	zone := zoneName(nodelifecycle.ZoneKey(n))
	if len(s.Add) > 0 {
		if _, ok := m.taintedAt[n.Name]; !ok {
			m.taintedAt[n.Name] = now
		}
		detail := "tainted " + shortTaints(s.Add)
		if why != "" {
			detail += " (" + why + ")"
		}
		m.add(event{At: now, Kind: kindTainted, Node: n.Name, Zone: zone, Detail: detail})
	}
	var removed []corev1.Taint
	for _, t := range s.Remove {
		if taints.Exists(before, &t) {
			removed = append(removed, t)
		}
	}
	if len(removed) > 0 && len(s.Add) == 0 {
		m.add(event{At: now, Kind: kindTaintRemoved, Node: n.Name, Zone: zone,
			Detail: "untainted " + shortTaints(removed) + " (" + why + ")"})
	}
	m.nodeTaintsChanged(n, why)
}

// taintPass is one doNoExecuteTaintingPass ([nodelifecycle.Monitor.Drain]):
// every zone queue hands its due nodes their NoExecute taint, one per token.
func (m *sim) taintPass() {
	writes, err := m.mon.Drain(m.now(), func(name string) (*corev1.Node, bool) {
		n, ok := m.byName[name]
		return n, ok
	}).Do(context.Background(), nil) // the simulation applies the writes itself
	if err != nil {
		m.notes = append(m.notes, err.Error()) // no API: nothing can fail
	}
	for _, w := range writes {
		m.swap(m.byName[w.Node], w.Swap, "")
	}
}

// disruption turns one pass's zone transition into events.
func (m *sim) disruption(res nodelifecycle.PassResult) {
	now := m.now()
	prev := m.states
	d := res.Disruption
	zones := m.mon.Queues(now)
	for _, zone := range slices.Sorted(maps.Keys(d.States)) {
		state := d.States[zone]
		old, known := prev[zone]
		c := res.Counts[zone]
		changed := known && old != state
		if d.Entered || !(changed || (known && c != m.zoneCounts[zone]) || (!known && state != nodelifecycle.ZoneNormal)) {
			continue
		}
		detail := fmt.Sprintf("%s (%d/%d not ready)", state, c.NotReady, c.Size())
		if !changed && known {
			detail = fmt.Sprintf("still %s (%d/%d not ready)", state, c.NotReady, c.Size())
		}
		if rate := zones[zone].Rate; rate > 0 {
			detail += ": " + formatRate(rate) + " nodes/s"
		} else {
			detail += ": tainting stops"
		}
		m.add(event{At: now, Kind: kindZone, Zone: zoneName(zone), Detail: detail})
	}
	if d.Entered {
		m.allDown = true
		m.add(event{At: now, Kind: kindMasterDisruption,
			Detail: "every zone down: no more NoExecute taints"})
		for _, w := range res.Taints {
			if w.Reason == nodelifecycle.AllZonesDown {
				m.swap(m.byName[w.Node], w.Swap, "all zones down")
			}
		}
	}
	if d.Exited {
		m.allDown = false
	}
	m.states = d.States
}

// nodeTaintsChanged is the taint-eviction controller's reaction to a change of
// the node's NoExecute taints: every pod on the node is decided again with one
// shared now (handleNodeUpdate, processPodOnNode).
func (m *sim) nodeTaintsChanged(n *corev1.Node, why string) {
	now := m.now()
	noExec := taints.OnlyNoExecute(n.Spec.Taints)
	for _, ps := range m.pods(n.Name) {
		if ps.evicted {
			continue
		}
		if ps.scheduled != nil && !ps.scheduled.FireAt.After(now) {
			ps.evicted = true // its eviction ran before this change
			continue
		}
		d := tolerations.NoExecuteDecision(n.Spec.Taints, ps.pod.Spec.Tolerations, m.opts)
		a := tainteviction.Reconcile(d, ps.scheduled, now)
		if a.Cancel && ps.scheduled != nil {
			m.add(event{At: now, Kind: kindCancelled, Node: n.Name, Pod: podKey(ps.pod),
				Detail: "eviction due at " + m.offset(ps.scheduled.FireAt) + " cancelled (" + why + ")"})
			ps.scheduled = nil
		}
		if a.Add {
			ps.scheduled = &tainteviction.Scheduled{CreatedAt: a.CreatedAt, FireAt: a.FireAt}
			ps.reason = evictReason(d, n.Spec.Taints, ps.pod, m.opts)
		}
		if len(noExec) > 0 {
			ps.decided = true
			if d.Kind == tolerations.Never {
				ps.reason = stayReason(n.Spec.Taints, ps.pod, m.opts)
			}
		} else {
			ps.decided = false
		}
	}
}

// finish turns the final state into events: evictions, pods that stay, nodes
// never tainted.
func (m *sim) finish() {
	for _, n := range m.nodes {
		zone := zoneName(nodelifecycle.ZoneKey(n))
		_, silent := m.silent[n.Name]
		hasNoExec := len(taints.OnlyNoExecute(n.Spec.Taints)) > 0
		if silent && !hasNoExec {
			pods := 0
			for _, ps := range m.pods(n.Name) {
				if !ps.evicted && ps.scheduled == nil {
					pods++
				}
			}
			m.add(event{Kind: kindNotTainted, Node: n.Name, Zone: zone,
				Detail: fmt.Sprintf("never tainted NoExecute: %s", stayCount(pods))})
		}
		// A node whose pods the run never looked at has nothing to report.
		for _, ps := range m.podsOn[n.Name] {
			switch {
			case ps.scheduled != nil || ps.evicted:
				at := m.t0
				if ps.scheduled != nil {
					at = ps.scheduled.FireAt
				}
				m.add(event{At: at, Kind: kindEvicted, Node: n.Name, Zone: zone, Pod: podKey(ps.pod), Detail: ps.reason})
			case ps.decided && hasNoExec:
				m.add(event{Kind: kindStays, Node: n.Name, Zone: zone, Pod: podKey(ps.pod), Detail: ps.reason})
			}
		}
	}
	sortEvents(m.events)
}

// sortEvents sorts a timeline by time, keeping the order in which events of
// the same instant happened; events that never happen go last, by kind and
// object.
func sortEvents(events []event) {
	slices.SortStableFunc(events, func(a, b event) int {
		if a.At.IsZero() != b.At.IsZero() {
			if a.At.IsZero() {
				return 1
			}
			return -1
		}
		if a.At.IsZero() {
			return cmp.Or(cmp.Compare(kindRank(a.Kind), kindRank(b.Kind)), cmp.Compare(a.object(), b.object()))
		}
		return a.At.Compare(b.At)
	})
}

// stuckWhy explains why a silent node never got its NoExecute taint.
func (m *sim) stuckWhy(n *corev1.Node) string {
	if m.allDown {
		return "every zone is down, and then the controller assumes that it is the one cut off and stops tainting"
	}
	key := nodelifecycle.ZoneKey(n)
	c := m.zoneCounts[key]
	if m.states[key] == nodelifecycle.ZonePartialDisruption {
		return fmt.Sprintf("zone %s is partially disrupted (%d/%d not ready) and has no more than %d nodes, so tainting stops there",
			zoneName(key), c.NotReady, c.Size(), m.cfg.LargeClusterThreshold)
	}
	if z, ok := m.mon.Queues(m.now())[key]; ok && z.Rate <= 0 {
		return fmt.Sprintf("tainting is stopped in zone %s", zoneName(key))
	}
	return "it was still queued when the simulation ended"
}

// offset formats t as a duration after t0.
func (m *sim) offset(t time.Time) string { return "t0" + formatOffset(t.Sub(m.t0)) }

// evictReason explains an eviction decision d that NoExecuteDecision made
// over nodeTaints, starting with "evicted": it names the taint that decided
// ([tolerations.Decision.DecidingTaint]).
func evictReason(d tolerations.Decision, nodeTaints []corev1.Taint, pod *corev1.Pod, opts tolerations.Options) string {
	t, _ := d.DecidingTaint(nodeTaints)
	if d.Kind == tolerations.EvictNow {
		return "evicted: does not tolerate " + shortTaint(t)
	}
	// The toleration that sets the limit: the first one tolerating t.
	if used, _ := tolerations.Matching([]corev1.Taint{t}, pod.Spec.Tolerations, opts); len(used) == 1 && isDefaultToleration(used[0]) {
		return "evicted: default " + formatSeconds(d.Delay) + " toleration"
	}
	return "evicted: tolerates " + taintKey(t) + " " + formatSeconds(d.Delay)
}

// stayReason explains, starting with "stays", why a pod tolerates the node's
// NoExecute taints forever.
func stayReason(nodeTaints []corev1.Taint, pod *corev1.Pod, opts tolerations.Options) string {
	noExec := taints.OnlyNoExecute(nodeTaints)
	used, _ := tolerations.Matching(noExec, pod.Spec.Tolerations, opts)
	what := "tolerates " + joinTaints(noExec, taintKey) + " forever"
	for _, tol := range used {
		if tol.Key == "" && tol.Operator == corev1.TolerationOpExists {
			what = "tolerates all taints"
			break
		}
	}
	switch {
	case isDaemonSetPod(pod):
		return "stays: DaemonSet, " + strings.TrimSuffix(what, " forever")
	case ranking.IsMirror(pod):
		return "stays: static pod, " + strings.TrimSuffix(what, " forever")
	}
	return "stays: " + what
}

// taintKey names a NoExecute taint for a reason: shortTaint without the
// effect.
func taintKey(t corev1.Taint) string {
	t.Effect = ""
	return shortTaint(t)
}

// isDefaultToleration reports whether tol looks like the one the
// DefaultTolerationSeconds admission plugin adds.
func isDefaultToleration(tol corev1.Toleration) bool {
	return (tol.Key == taints.KeyNotReady || tol.Key == taints.KeyUnreachable) &&
		tol.Operator == corev1.TolerationOpExists && tol.Effect == corev1.TaintEffectNoExecute &&
		tol.TolerationSeconds != nil && *tol.TolerationSeconds == tolerations.DefaultTolerationSeconds
}

// shortTaint prints a taint, shortening the node.kubernetes.io/ keys.
func shortTaint(t corev1.Taint) string {
	return strings.TrimPrefix(taints.Format(t), "node.kubernetes.io/")
}

// shortTaints prints taints with shortTaint, joined by commas.
func shortTaints(ts []corev1.Taint) string { return joinTaints(ts, shortTaint) }

// joinTaints joins show of each taint with commas.
func joinTaints(ts []corev1.Taint, show func(corev1.Taint) string) string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = show(t)
	}
	return strings.Join(out, ",")
}

// readyCondition returns the node's first Ready condition, or nil.
func readyCondition(n *corev1.Node) *corev1.NodeCondition {
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			return &n.Status.Conditions[i]
		}
	}
	return nil
}

// zoneName prints a zone key (region ":\x00:" zone) for people.
func zoneName(key string) string {
	region, zone, _ := strings.Cut(key, ":\x00:")
	switch {
	case zone != "":
		return zone
	case region != "":
		return region
	}
	return "(no zone label)"
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// timeRef returns t as a *metav1.Time.
func timeRef(t time.Time) *metav1.Time {
	mt := metav1.NewTime(t)
	return &mt
}

// stayCount says how many pods stay: "1 pod stays", "3 pods stay".
func stayCount(n int) string {
	if n == 1 {
		return "1 pod stays"
	}
	return plural(n, "pod") + " stay"
}
