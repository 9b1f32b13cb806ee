package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/taints"
	"github.com/evictkit/eviction/tolerations"
)

// timelineReport is the result of node-down and taint: what happens, when.
type timelineReport struct {
	scenario string
	source   string
	m        *sim
	nodes    []string
	taint    string
	header   string
	model    string
	summary  []string
}

// timelineJSON is the -o json document of node-down and taint.
type timelineJSON struct {
	// Scenario is "node-down" or "taint".
	Scenario string `json:"scenario"`
	// Input names the snapshot: "the embedded snapshot", a file name or
	// "standard input".
	Input string `json:"input"`
	// T0 is when the scenario starts: the latest node heartbeat in the
	// snapshot.
	T0 time.Time `json:"t0"`
	// Taint is the applied taint in kubectl syntax (taint only).
	Taint string `json:"taint,omitempty"`
	// Model states what is simulated and under which assumptions.
	Model string `json:"model"`
	// Config holds the node lifecycle controller settings used.
	Config configJSON `json:"config"`
	// Nodes sums up each silent (node-down) or tainted (taint) node.
	Nodes []nodeJSON `json:"nodes"`
	// Events is the timeline, sorted by time; what never happens (pods that
	// stay, nodes never tainted) comes last, with a null time.
	Events []eventJSON `json:"events"`
	// Summary sums up the whole outcome, in words.
	Summary []string `json:"summary"`
	// Notes are remarks about the input or the simulation.
	Notes []string `json:"notes,omitempty"`
}

// configJSON is the node lifecycle controller configuration.
type configJSON struct {
	MonitorPeriodSeconds      float64 `json:"monitorPeriodSeconds"`
	MonitorGracePeriodSeconds float64 `json:"monitorGracePeriodSeconds"`
	EvictionRate              float32 `json:"evictionRate"`
	SecondaryEvictionRate     float32 `json:"secondaryEvictionRate"`
	LargeClusterThreshold     int32   `json:"largeClusterThreshold"`
	UnhealthyZoneThreshold    float32 `json:"unhealthyZoneThreshold"`
}

// nodeJSON is the outcome for one node.
type nodeJSON struct {
	Name string `json:"name"`
	Zone string `json:"zone"`
	// UnknownAt is when the controller marks the node's Ready condition
	// Unknown (node-down only; null otherwise).
	UnknownAt *time.Time `json:"unknownAt"`
	// NoExecuteAt is when the node first gets a NoExecute taint, null if
	// never.
	NoExecuteAt *time.Time `json:"noExecuteAt"`
	// Pods counts the pods bound to the node (finished pods excluded),
	// PodsEvicted those evicted.
	Pods        int `json:"pods"`
	PodsEvicted int `json:"podsEvicted"`
	// LastEviction is when its last evicted pod goes, null if none does.
	LastEviction *time.Time `json:"lastEviction"`
}

// eventJSON is one timeline event.
type eventJSON struct {
	// At is when it happens, null for never.
	At *time.Time `json:"at"`
	// AfterSeconds is At - t0 in seconds, null for never.
	AfterSeconds *float64 `json:"afterSeconds"`
	// Kind is one of last-heartbeat, node-unknown, zone-state,
	// all-zones-down, tainted, taint-removed, eviction-cancelled, evicted,
	// stays, never-tainted, nothing-evicted.
	Kind string `json:"kind"`
	// Node, Zone and Pod (namespace/name) say what the event is about.
	Node string `json:"node,omitempty"`
	Zone string `json:"zone,omitempty"`
	Pod  string `json:"pod,omitempty"`
	// Detail says what happens and why, in words.
	Detail string `json:"detail"`
}

// timePtr returns a pointer to t in UTC, nil for the zero time.
func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

func (r *timelineReport) jsonValue() any {
	m := r.m
	cfg := m.cfg
	doc := timelineJSON{
		Scenario: r.scenario, Input: r.source, T0: m.t0.UTC(), Taint: r.taint, Model: r.model,
		Config: configJSON{
			MonitorPeriodSeconds: cfg.MonitorPeriod.Seconds(), MonitorGracePeriodSeconds: cfg.MonitorGracePeriod.Seconds(),
			EvictionRate: cfg.EvictionRate, SecondaryEvictionRate: cfg.SecondaryEvictionRate,
			LargeClusterThreshold: cfg.LargeClusterThreshold, UnhealthyZoneThreshold: cfg.UnhealthyZoneThreshold,
		},
		Nodes: []nodeJSON{}, Events: []eventJSON{}, Summary: r.summary, Notes: m.notes,
	}
	for _, name := range r.nodes {
		o := m.outcome(name)
		doc.Nodes = append(doc.Nodes, nodeJSON{
			Name: name, Zone: zoneName(nodelifecycle.ZoneKey(m.byName[name])),
			UnknownAt: timePtr(m.unknownAt[name]), NoExecuteAt: timePtr(m.taintedAt[name]),
			Pods: o.pods, PodsEvicted: o.evicted, LastEviction: timePtr(o.last),
		})
	}
	for _, e := range m.events {
		j := eventJSON{At: timePtr(e.At), Kind: e.Kind, Node: e.Node, Zone: e.Zone, Pod: e.Pod, Detail: e.Detail}
		if !e.At.IsZero() {
			s := e.At.Sub(m.t0).Seconds()
			j.AfterSeconds = &s
		}
		doc.Events = append(doc.Events, j)
	}
	return doc
}

func (r *timelineReport) writeTable(w io.Writer) error {
	rows := make([]eventRow, len(r.m.events))
	for i, e := range r.m.events {
		rows[i] = eventRow{e.At, e.object(), e.Detail}
	}
	return writeEventTable(w, r.header, r.model, r.m.t0, rows, r.summary, r.m.notes)
}

// eventRow is one line of a timeline table: when (zero for never), what and
// the event.
type eventRow struct {
	at           time.Time
	what, detail string
}

// writeEventTable writes a timeline report as a table: the header and the
// model, a row per event with its time after t0 ("never" for none), then the
// summary, where an empty line starts a paragraph, and the notes.
func writeEventTable(w io.Writer, header, model string, t0 time.Time, rows []eventRow, summary, notes []string) error {
	var b strings.Builder
	b.WriteString(wrapped(header) + wrapped(model) + "\n")
	t := newTable(&b, "AFTER", "WHAT", "EVENT")
	for _, e := range rows {
		when := "never"
		if !e.at.IsZero() {
			when = formatOffset(e.at.Sub(t0))
		}
		t.row(when, e.what, e.detail)
	}
	t.flush()
	b.WriteString("\n")
	for _, l := range summary {
		if l == "" {
			b.WriteString("\n")
		}
		b.WriteString(wrapped(l))
	}
	for _, n := range notes {
		b.WriteString(wrapped("Note: " + n))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// nodeDown simulates the named nodes going silent at t0.
func nodeDown(s *snapshot, source string, kcm settings, names []string, demo bool) (report, error) {
	return nodeDownTuned(s, source, kcm, names, demo, nil)
}

// nodeDownTuned is nodeDown with tune, when not nil, applied to the
// simulation before it runs (the tests turn its skipping off with it).
func nodeDownTuned(s *snapshot, source string, kcm settings, names []string, demo bool, tune func(*sim)) (report, error) {
	for _, name := range names {
		if _, err := s.node(name); err != nil {
			return nil, err
		}
	}
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	t0 := s.t0()
	m := newSim(s, t0, kcm.cfg)
	for _, name := range names {
		m.silence(name)
	}
	if tune != nil {
		tune(m)
	}
	m.run()

	verb := "stops"
	if len(names) > 1 {
		verb = "stop"
	}
	cfg := m.cfg
	r := &timelineReport{scenario: "node-down", source: source, m: m, nodes: names}
	r.header = fmt.Sprintf("What if %s %s heartbeating at t0 = %s, the latest heartbeat in %s (%s)?",
		strings.Join(names, ", "), verb, stamp(t0), source, s.describe())
	r.model = fmt.Sprintf("Model: kube-controller-manager v1.37.2 %s. A monitor pass every %v (one at t0) "+
		"marks a node Unknown once it has been silent for more than %v; its zone then taints it "+
		"unreachable:NoExecute at %s nodes/s (in a partially disrupted zone: %s if it has more than %d nodes, else 0; "+
		"with every zone down: none), and taint eviction honours each pod's tolerationSeconds. "+
		"The other nodes keep heartbeating.",
		kcm.describe(), cfg.MonitorPeriod, cfg.MonitorGracePeriod, formatRate(cfg.EvictionRate), formatRate(cfg.SecondaryEvictionRate),
		cfg.LargeClusterThreshold)
	r.summary = nodeDownSummary(m, names)
	if demo {
		r.summary = append(r.summary, "", "Try also: whatif node-down worker-a1 worker-a2 worker-a3 (most of a zone), or whatif -h.")
	}
	return r, nil
}

// outcome counts what happened to a node's pods.
type outcome struct {
	pods, evicted int
	last          time.Time
}

// outcome counts what happened to a node's pods once the run is over: the
// evictions of every node are counted in one pass over the events.
func (m *sim) outcome(node string) outcome {
	if m.outcomes == nil {
		m.outcomes = map[string]outcome{}
		for _, e := range m.events {
			if e.Kind == kindEvicted {
				o := m.outcomes[e.Node]
				o.evicted++
				o.last = later(o.last, e.At)
				m.outcomes[e.Node] = o
			}
		}
	}
	o := m.outcomes[node]
	o.pods = len(m.pods(node))
	return o
}

// evictedLine sums up the evictions from a node, o.evicted > 0: "worker-a2:
// 5 of 9 pods evicted, the last at t0+15m55s (2026-11-29T12:15:52Z); 4 stay."
func (m *sim) evictedLine(node string, o outcome) string {
	when := "the last at " + m.offset(o.last) + " (" + stamp(o.last) + ")"
	if o.last.Equal(m.t0) {
		when = "all at once"
	}
	return fmt.Sprintf("%s: %d of %s evicted, %s; %d stay.", node, o.evicted, plural(o.pods, "pod"), when, o.pods-o.evicted)
}

// nodeDownSummary sums the outcome up per silent node.
func nodeDownSummary(m *sim, names []string) []string {
	var out []string
	var stuck groups // never tainted: nodes by the reason why
	stuckPods := map[string]int{}
	for _, name := range names {
		o := m.outcome(name)
		switch {
		case m.taintedAt[name].IsZero():
			why := m.stuckWhy(m.byName[name])
			stuck.add(why, name)
			stuckPods[why] += o.pods
		case o.evicted == 0:
			out = append(out, fmt.Sprintf("%s: tainted, but none of its %s is evicted.", name, plural(o.pods, "pod")))
		default:
			out = append(out, m.evictedLine(name, o))
		}
	}
	if !m.allDown {
		zones := m.mon.Zones()
		for _, key := range slices.Sorted(maps.Keys(m.states)) {
			c := m.zoneCounts[key]
			if m.states[key] != nodelifecycle.ZoneFullDisruption || c.Size() < 2 {
				continue
			}
			rate := zones[key].Rate
			if rate <= 0 {
				continue
			}
			out = append(out, fmt.Sprintf("Zone %s is entirely down (%d/%d nodes not ready) while other zones are up, "+
				"so it keeps the normal rate: %s nodes/s, one node tainted every %v.",
				zoneName(key), c.NotReady, c.Size(), formatRate(rate), time.Duration(float64(time.Second)/float64(rate)).Round(time.Second)))
		}
	}
	for _, why := range stuck.reasons {
		nodes := stuck.names[why]
		their := "their"
		if len(nodes) == 1 {
			their = "its"
		}
		none := "none of " + their + " " + plural(stuckPods[why], "pod") + " is evicted"
		if stuckPods[why] == 1 {
			none = "its pod is not evicted"
		}
		out = append(out, fmt.Sprintf("%s: never tainted NoExecute, because %s; %s.",
			strings.Join(nodes, ", "), why, none))
	}
	if len(stuck.reasons) > 0 {
		caveat := "one node per zone may still be tainted first."
		if m.allDown {
			caveat = "a node tainted then loses the taint again at the end of the pass."
		}
		out = append(out, "Timing caveat: upstream drains the zone queues in a separate loop every 100ms; "+
			"if it runs between a node's enqueueing and the end of the monitor pass (which writes node "+
			"statuses and marks pods NotReady through the API), "+caveat)
	}
	return out
}

// taintNode simulates `kubectl taint nodes NODE SPEC` at t0.
func taintNode(s *snapshot, source string, kcm settings, name, spec string) (report, error) {
	node, err := s.node(name)
	if err != nil {
		return nil, err
	}
	t, err := taints.Parse(spec)
	if err != nil {
		return nil, badInput("bad taint %q: %w", spec, err)
	}
	if t.Effect == "" {
		return nil, badInput("bad taint %q: no effect (want KEY[=VALUE]:EFFECT with NoSchedule, PreferNoSchedule or NoExecute)", spec)
	}
	if _, _, err := taints.Apply(node.Spec.Taints, []corev1.Taint{t}, nil, taints.ApplyOptions{NodeName: name}); err != nil {
		return nil, badInput("taint %s on %s: %w", spec, name, err)
	}
	t0 := s.t0()
	m := newSim(s, t0, kcm.cfg)
	m.start = func() { m.applyTaint(name, t) }
	m.run()

	r := &timelineReport{scenario: "taint", source: source, m: m, nodes: []string{name}, taint: taints.Format(t)}
	r.header = fmt.Sprintf("What if node %s is tainted %s at t0 = %s, the latest heartbeat in %s (%s)?",
		name, taints.Format(t), stamp(t0), source, s.describe())
	version := "v1.37.2"
	if len(kcm.given) > 0 {
		version += " " + kcm.describe()
	}
	r.model = "Model: kube-controller-manager " + version + ". Its taint-eviction controller evicts at once every pod " +
		"on the node that does not tolerate a NoExecute taint, and after tolerationSeconds those that tolerate it " +
		"for a while; NoSchedule and PreferNoSchedule taints evict nothing. Its node lifecycle controller keeps " +
		"managing the node's condition taints (a pass every " + m.cfg.MonitorPeriod.String() + "). The nodes keep heartbeating."
	o := m.outcome(name)
	if !taints.Exists(m.byName[name].Spec.Taints, &t) {
		what := "at once, because the node's conditions do not call for it."
		if t.Effect == corev1.TaintEffectNoExecute {
			what = "at its next pass, because the node is Ready; pod evictions not yet due are cancelled."
		}
		r.summary = append(r.summary, fmt.Sprintf("The node lifecycle controller manages %s taints and removes this one %s",
			t.Key, what))
	}
	switch t.Effect {
	case corev1.TaintEffectNoExecute:
		if o.evicted == 0 {
			r.summary = append(r.summary, fmt.Sprintf("%s: none of its %s is evicted.", name, plural(o.pods, "pod")))
		} else {
			r.summary = append(r.summary, m.evictedLine(name, o))
		}
	default:
		untolerated := 0
		for _, ps := range m.pods(name) {
			if !tolerations.AnyTolerates(ps.pod.Spec.Tolerations, &t, m.opts) {
				untolerated++
			}
		}
		line := fmt.Sprintf("%s: none of its %s is evicted.", name, plural(o.pods, "pod"))
		if taints.Exists(m.byName[name].Spec.Taints, &t) {
			verb := "would not place them there again"
			if t.Effect == corev1.TaintEffectPreferNoSchedule {
				verb = "would rather place them elsewhere next time"
			}
			line = fmt.Sprintf("%s: none of its %s is evicted; %d do not tolerate the taint, and the scheduler %s.",
				name, plural(o.pods, "pod"), untolerated, verb)
		}
		r.summary = append(r.summary, line)
	}
	return r, nil
}

// applyTaint applies a taint as kubectl taint does, and lets the controllers
// react to the node update.
func (m *sim) applyTaint(name string, t corev1.Taint) {
	n := m.byName[name]
	now := m.now()
	list, _, err := taints.Apply(n.Spec.Taints, []corev1.Taint{t}, nil, taints.ApplyOptions{NodeName: name})
	if err != nil {
		m.notes = append(m.notes, err.Error()) // checked by the caller on the same node
		return
	}
	if t.Effect == corev1.TaintEffectNoExecute {
		// The API server stamps NoExecute taints added without a time.
		for i := range list {
			if taints.Match(&list[i], &t) && list[i].TimeAdded == nil {
				list[i].TimeAdded = timeRef(now)
			}
		}
	}
	n.Spec.Taints = list
	zone := zoneName(nodelifecycle.ZoneKey(n))
	m.add(event{At: now, Kind: kindTainted, Node: name, Zone: zone, Detail: "tainted " + taints.Format(t) + " (kubectl taint)"})
	// The node lifecycle controller reacts to every node update on the
	// NoSchedule taints it manages.
	add, remove := nodelifecycle.NoScheduleTaints(n)
	if len(add)+len(remove) > 0 {
		n.Spec.Taints = nodelifecycle.Swap{Add: add, Remove: remove}.Apply(n.Spec.Taints, now)
		if len(remove) > 0 {
			m.add(event{At: now, Kind: kindTaintRemoved, Node: name, Zone: zone,
				Detail: "untainted " + shortTaints(remove) + " (node lifecycle controller)"})
		}
	}
	if t.Effect != corev1.TaintEffectNoExecute {
		m.add(event{At: now, Kind: kindNothingEvicted, Node: name, Zone: zone,
			Detail: "nothing evicted: " + string(t.Effect) + " only affects scheduling"})
		return
	}
	m.nodeTaintsChanged(n, "kubectl taint")
}
