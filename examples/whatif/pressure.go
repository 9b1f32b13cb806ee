package main

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"sigs.k8s.io/yaml"

	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/statsummary"
	"github.com/evictkit/eviction/thresholds"
)

// pressureReport is the result of pressure.
type pressureReport struct {
	source      string
	node        string
	t0          time.Time
	usageSource string
	summary     string // the --summary file the signals come from, if any
	obs         []observed
	ts          []thresholds.Threshold
	met         []thresholds.Threshold
	res         thresholds.Result
	signal      thresholds.Signal // the signal whose ranking is shown
	resource    corev1.ResourceName
	hypothetic  bool // no threshold met: the ranking is what would happen
	target      resource.Quantity
	start       resource.Quantity // the ranked signal's observed amount
	rows        []pressureRow
	message     string
	notes       []string
}

// observed is one --signal.
type observed struct {
	text      string // the amount as given
	signal    thresholds.Signal
	available resource.Quantity
	capacity  *resource.Quantity
}

// pressureInput says where pressure reads the node's signals and the pods'
// usage: --signal and --usage, or --summary.
type pressureInput struct {
	signals     []string
	usageFile   string
	summaryFile string
}

// pressureRow is one pod in eviction order.
type pressureRow struct {
	pod            *corev1.Pod
	qos            corev1.PodQOSClass
	priority       int32
	oomScoreAdj    []containerOOM
	request, usage resource.Quantity
	fromRequests   bool
	evictable      bool
	skip           string
	availableAfter resource.Quantity
	enough         bool // the threshold is no longer met after this eviction
	needed         bool // the kubelet gets to this pod
}

// pressureJSON is the -o json document of pressure.
type pressureJSON struct {
	// Scenario is "pressure".
	Scenario string `json:"scenario"`
	// Input names the snapshot; Node the node under pressure.
	Input string `json:"input"`
	Node  string `json:"node"`
	// T0 is the time of the observations.
	T0 time.Time `json:"t0"`
	// Model states what is simulated and under which assumptions.
	Model string `json:"model"`
	// UsageSource says where pod usage comes from.
	UsageSource string `json:"usageSource"`
	// Observations are the --signal values.
	Observations []observationJSON `json:"observations"`
	// Thresholds are the kubelet's configured thresholds and whether each
	// is met.
	Thresholds []thresholdJSON `json:"thresholds"`
	// Reclaim is the threshold the kubelet reclaims for, null when none is
	// met.
	Reclaim *reclaimJSON `json:"reclaim"`
	// RankedFor is the signal whose ranking Pods follow: Reclaim's, or, when
	// nothing is met, the first observed signal (the order is then
	// hypothetical).
	RankedFor    string `json:"rankedFor"`
	Hypothetical bool   `json:"hypothetical"`
	// Pods are the node's pods in the kubelet's eviction order.
	Pods []pressurePodJSON `json:"pods"`
	// Message is the eviction message the first victim would get.
	Message string `json:"message,omitempty"`
	// Notes are remarks about the model.
	Notes []string `json:"notes,omitempty"`
}

type observationJSON struct {
	Signal    string `json:"signal"`
	Available string `json:"available"`
	Capacity  string `json:"capacity,omitempty"`
}

type thresholdJSON struct {
	Threshold string `json:"threshold"`
	Met       bool   `json:"met"`
	Observed  bool   `json:"observed"`
}

type reclaimJSON struct {
	Threshold string `json:"threshold"`
	Signal    string `json:"signal"`
	Resource  string `json:"resource"`
}

type pressurePodJSON struct {
	Pod      string `json:"pod"`
	QOS      string `json:"qos"`
	Priority int32  `json:"priority"`
	// Request and Usage are of the starved resource; UsageFromRequests
	// tells that the usage was taken from the requests.
	Request           string `json:"request"`
	Usage             string `json:"usage"`
	UsageFromRequests bool   `json:"usageFromRequests"`
	// Evictable is false for critical pods, which the kubelet skips;
	// SkipReason says why.
	Evictable  bool   `json:"evictable"`
	SkipReason string `json:"skipReason,omitempty"`
	// OOMScoreAdj is the oom_score_adj the kubelet gives each regular
	// container, in spec order.
	OOMScoreAdj []containerOOM `json:"oomScoreAdj"`
	// AvailableAfter is the signal's available amount once this pod and
	// the evictable pods before it are gone (usage freed at once); Enough
	// is true from the first pod after which no threshold is met; Needed
	// is true for the pods the kubelet evicts before that.
	AvailableAfter string `json:"availableAfter"`
	Enough         bool   `json:"enough"`
	Needed         bool   `json:"needed"`
}

// containerOOM is one container's oom_score_adj.
type containerOOM struct {
	Container   string `json:"container"`
	OOMScoreAdj int    `json:"oomScoreAdj"`
}

// usageEntry is one pod of a --usage file: resource → quantity.
type usageEntry map[string]json.RawMessage

// pressure evaluates the kubelet's thresholds and eviction order on node.
func pressure(s *snapshot, source, nodeName string, in pressureInput, stdin io.Reader, stdinTaken bool) (report, error) {
	node, err := s.node(nodeName)
	if err != nil {
		return nil, err
	}
	r := &pressureReport{source: source, node: nodeName, t0: s.t0()}
	pods := s.podsOn(nodeName)
	var obs thresholds.Observations
	var given map[string]ranking.Usage
	if in.summaryFile != "" {
		obs, given, err = readSummary(in.summaryFile, stdin, stdinTaken, pods, r)
	} else {
		obs, err = r.readSignals(in.signals, node)
		if err == nil {
			given, err = readUsage(in.usageFile, stdin, stdinTaken, pods, r)
		}
	}
	if err != nil {
		return nil, err
	}
	memCapacity := node.Status.Capacity[corev1.ResourceMemory]

	// The kubelet's defaults: --eviction-hard for Linux, node allocatable
	// enforced for pods.
	r.ts, err = thresholds.ParseConfig(thresholds.Config{EnforceNodeAllocatable: []string{thresholds.NodeAllocatablePods}})
	if err != nil {
		return nil, err
	}
	ev, err := thresholds.NewEvaluator(r.ts, thresholds.Options{})
	if err != nil {
		return nil, err
	}
	r.res = ev.Observe(r.t0, obs)
	r.met = thresholds.Met(r.ts, obs, false)

	r.signal = r.obs[0].signal
	if r.res.Reclaim {
		r.signal = r.res.Signal
	} else {
		r.hypothetic = true
	}
	res, _ := r.signal.Resource()
	r.resource = res
	usageOf := func(p *corev1.Pod) (ranking.Usage, bool) {
		if u, ok := given[podKey(p)]; ok {
			return u, true
		}
		return requestUsage(p), true
	}
	if err := ranking.ForSignal(pods, usageOf, r.signal, thresholds.Layout{}, ranking.Options{}); err != nil {
		return nil, badInput("--signal %s: %v", r.signal, err)
	}

	// Walk the order as the kubelet would, one eviction per cycle, freeing
	// each victim's usage of the starved resource.
	o := obs[r.signal]
	avail := o.Available.DeepCopy()
	r.start = avail.DeepCopy()
	r.target = r.thresholdFor(r.signal, o)
	done := r.hypothetic || avail.Cmp(r.target) >= 0
	for _, p := range pods {
		u, _ := usageOf(p)
		_, fromFile := given[podKey(p)]
		row := pressureRow{
			pod: p, qos: ranking.QOSClass(p, ranking.Options{}), priority: ranking.Priority(p),
			request: ranking.Request(p, r.requestResource(), ranking.Options{}), usage: usageFigure(u, r.resource),
			fromRequests: !fromFile, evictable: ranking.Evictable(p),
		}
		for i := range p.Spec.Containers {
			c := &p.Spec.Containers[i]
			row.oomScoreAdj = append(row.oomScoreAdj, containerOOM{c.Name, ranking.OOMScoreAdjust(p, c, memCapacity.Value(), ranking.Options{})})
		}
		if !row.evictable {
			row.skip = skipReason(p)
		} else {
			avail.Add(row.usage)
			if !done {
				row.needed = true
				if avail.Cmp(r.target) >= 0 {
					row.enough, done = true, true
				}
			}
		}
		row.availableAfter = avail.DeepCopy()
		r.rows = append(r.rows, row)
	}
	if victim, ok := ranking.Victim(pods); ok && !r.hypothetic {
		r.message, _ = ranking.EvictionMessage(r.resource, victim, usageOf,
			[]thresholds.Threshold{r.res.Threshold}, obs, ranking.Options{})
	}
	if actions := thresholds.NodeReclaimActions(r.signal, thresholds.Layout{}); len(actions) > 0 && !r.hypothetic {
		names := make([]string, len(actions))
		for i, a := range actions {
			names[i] = string(a)
		}
		r.notes = append(r.notes, fmt.Sprintf("Before evicting pods for %s the kubelet runs %s; this assumes "+
			"they free nothing.", r.signal, strings.Join(names, " and ")))
	}
	return r, nil
}

// readSignals reads the --signal values into r.obs and the observations.
func (r *pressureReport) readSignals(signals []string, node *corev1.Node) (thresholds.Observations, error) {
	obs := thresholds.Observations{}
	for _, sig := range signals {
		o, err := parseSignal(sig, node)
		if err != nil {
			return nil, err
		}
		if _, dup := obs[o.signal]; dup {
			return nil, badInput("--signal %s: given twice", o.signal)
		}
		r.obs = append(r.obs, o)
		avail := o.available.DeepCopy()
		obs[o.signal] = thresholds.Observation{Available: &avail, Capacity: o.capacity, Time: r.t0}
	}
	return obs, nil
}

// readSummary reads a --summary file, the kubelet's stats summary: the
// signals observed from its node figures (as the kubelet's eviction manager
// observes them on Linux) and the usage of each pod of the node it lists,
// joined by namespace and name (statsummary.Summary.Usage).
func readSummary(file string, stdin io.Reader, stdinTaken bool, pods []*corev1.Pod, r *pressureReport) (thresholds.Observations, map[string]ranking.Usage, error) {
	data, name, err := readInput(file, stdin, stdinTaken)
	if err != nil {
		return nil, nil, err
	}
	sum, err := statsummary.Decode(data)
	if err != nil {
		return nil, nil, badInput("--summary %s: %v", name, err)
	}
	if sum.NodeName != "" && sum.NodeName != r.node {
		r.notes = append(r.notes, fmt.Sprintf("--summary %s is node %s's, not %s's.", name, sum.NodeName, r.node))
	}
	obs := thresholds.MakeObservations(sum.Node, thresholds.Linux)
	for _, sig := range thresholds.Signals() {
		o, ok := obs[sig]
		if !ok {
			continue
		}
		r.obs = append(r.obs, observed{text: display(*o.Available), signal: sig, available: o.Available.DeepCopy(), capacity: o.Capacity})
		o.Time = r.t0 // the scenario's one cycle happens at t0
		obs[sig] = o
	}
	if len(r.obs) == 0 {
		return nil, nil, badInput("--summary %s: no eviction signal can be observed from its node figures", name)
	}
	given := map[string]ranking.Usage{}
	for _, p := range pods {
		if u, ok := sum.Usage(p); ok {
			given[podKey(p)] = u
		}
	}
	r.summary = name
	r.usageSource = fmt.Sprintf("the stats summary %s for %s, the requests for the others", name, plural(len(given), "pod"))
	return obs, given, nil
}

// thresholdFor returns the amount the signal must reach for every
// threshold on it to be no longer met.
func (r *pressureReport) thresholdFor(sig thresholds.Signal, o thresholds.Observation) resource.Quantity {
	var q resource.Quantity
	for _, t := range r.ts {
		if t.Signal != sig {
			continue
		}
		v := t.Value.Resolve(o.Capacity)
		if v.Cmp(q) > 0 {
			q = v
		}
	}
	return q
}

// requestResource is the resource whose request the ranking compares usage
// with: for inodes the kubelet compares with the ephemeral-storage request
// (an upstream quirk the ranking package reproduces); processes have none.
func (r *pressureReport) requestResource() corev1.ResourceName {
	if r.resource == thresholds.ResourceInodes {
		return corev1.ResourceEphemeralStorage
	}
	return r.resource
}

// requestText prints a row's request; PIDs have none.
func (r *pressureReport) requestText(row pressureRow) string {
	if r.resource == thresholds.ResourcePIDs {
		return "-"
	}
	return display(row.request)
}

// hasThreshold reports whether some configured threshold watches sig.
func (r *pressureReport) hasThreshold(sig thresholds.Signal) bool {
	return slices.ContainsFunc(r.ts, func(t thresholds.Threshold) bool { return t.Signal == sig })
}

// parseSignal reads SIGNAL=AMOUNT[/CAPACITY].
func parseSignal(arg string, node *corev1.Node) (observed, error) {
	name, amount, ok := strings.Cut(arg, "=")
	if !ok {
		return observed{}, badInput("--signal %q: want SIGNAL=AMOUNT, e.g. memory.available=200Mi", arg)
	}
	sig := thresholds.Signal(strings.TrimSpace(name))
	if !sig.Valid() {
		var all []string
		for _, s := range thresholds.Signals() {
			all = append(all, string(s))
		}
		return observed{}, badInput("--signal %q: unknown signal %q (want one of %s)", arg, sig, strings.Join(all, ", "))
	}
	amount, capText, hasCap := strings.Cut(strings.TrimSpace(amount), "/")
	o := observed{signal: sig, text: amount}
	if hasCap {
		c, err := resource.ParseQuantity(capText)
		if err != nil || c.Sign() <= 0 {
			return observed{}, badInput("--signal %q: capacity %q is not a positive quantity", arg, capText)
		}
		o.capacity = &c
	} else if c, ok := nodeCapacity(sig, node); ok {
		o.capacity = &c
	}
	if pct, ok := strings.CutSuffix(amount, "%"); ok {
		f, err := strconv.ParseFloat(pct, 64)
		if err != nil || f < 0 || f > 100 {
			return observed{}, badInput("--signal %q: %q is not a percentage between 0%% and 100%%", arg, amount)
		}
		if o.capacity == nil {
			return observed{}, badInput("--signal %q: a percentage needs a capacity; write %s=AMOUNT/CAPACITY", arg, sig)
		}
		o.available = *resource.NewQuantity(int64(float64(o.capacity.Value())*f/100), o.capacity.Format)
		return o, nil
	}
	q, err := resource.ParseQuantity(amount)
	if err != nil {
		return observed{}, badInput("--signal %q: %q is not a quantity (e.g. 200Mi) or a percentage", arg, amount)
	}
	if q.Sign() < 0 && sig != thresholds.PIDAvailable {
		return observed{}, badInput("--signal %q: a negative amount", arg)
	}
	o.available = q
	return o, nil
}

// nodeCapacity is the capacity a percentage of sig refers to, from the node.
func nodeCapacity(sig thresholds.Signal, node *corev1.Node) (resource.Quantity, bool) {
	var q resource.Quantity
	var ok bool
	switch sig {
	case thresholds.MemoryAvailable:
		q, ok = node.Status.Capacity[corev1.ResourceMemory]
	case thresholds.AllocatableMemoryAvailable:
		q, ok = node.Status.Allocatable[corev1.ResourceMemory]
	case thresholds.NodeFsAvailable, thresholds.ImageFsAvailable, thresholds.ContainerFsAvailable:
		q, ok = node.Status.Capacity[corev1.ResourceEphemeralStorage]
	}
	return q, ok
}

// readUsage reads a --usage file: namespace/name → {memory, ephemeral-storage, inodes, pids}.
func readUsage(file string, stdin io.Reader, stdinTaken bool, pods []*corev1.Pod, r *pressureReport) (map[string]ranking.Usage, error) {
	r.usageSource = "the pods' requests (memory and ephemeral-storage; no processes, no inodes)"
	if file == "" {
		return nil, nil
	}
	data, name, err := readInput(file, stdin, stdinTaken)
	if err != nil {
		return nil, err
	}
	raw, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, badInput("--usage %s: %v", name, err)
	}
	var entries map[string]usageEntry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, badInput("--usage %s: want a map from namespace/name to {memory: 1Gi, ...}: %v", name, err)
	}
	byKey := map[string]*corev1.Pod{}
	for _, p := range pods {
		byKey[podKey(p)] = p
	}
	out := map[string]ranking.Usage{}
	var elsewhere []string
	for _, key := range slices.Sorted(maps.Keys(entries)) {
		if ns, n, ok := strings.Cut(key, "/"); !ok || ns == "" || n == "" {
			return nil, badInput("--usage %s: key %q is not namespace/name", name, key)
		}
		u := ranking.Usage{}
		var c ranking.ContainerUsage
		for _, k := range slices.Sorted(maps.Keys(entries[key])) {
			v := entries[key][k]
			if !slices.Contains([]string{"memory", "ephemeral-storage", "inodes", "pids"}, k) {
				return nil, badInput("--usage %s: %s: unknown key %q (want memory, ephemeral-storage, inodes or pids)", name, key, k)
			}
			var q resource.Quantity
			if err := json.Unmarshal(v, &q); err != nil || q.Sign() < 0 {
				return nil, badInput("--usage %s: %s: %s %s is not a quantity", name, key, k, strings.Trim(string(v), `"`))
			}
			n := uint64(q.Value())
			switch k {
			case "memory":
				u.MemoryWorkingSet = n
				c.MemoryWorkingSet = n
			case "ephemeral-storage":
				u.EphemeralStorage = n
				c.Rootfs.UsedBytes = n
			case "inodes":
				c.Rootfs.InodesUsed = n
			case "pids":
				u.Processes = n
			}
		}
		p, ok := byKey[key]
		if !ok {
			elsewhere = append(elsewhere, key)
			continue
		}
		if len(p.Spec.Containers) > 0 {
			c.Name = p.Spec.Containers[0].Name
		}
		u.Containers = []ranking.ContainerUsage{c}
		out[key] = u
	}
	r.usageSource = fmt.Sprintf("%s for %s, the requests for the others", name, plural(len(out), "pod"))
	if len(elsewhere) > 0 {
		r.notes = append(r.notes, fmt.Sprintf("--usage %s lists %s not on %s: %s.", name,
			plural(len(elsewhere), "pod"), r.node, joinMax(elsewhere, 3)))
	}
	return out, nil
}

// requestUsage takes a pod's requests as its usage.
func requestUsage(p *corev1.Pod) ranking.Usage {
	mem := ranking.Request(p, corev1.ResourceMemory, ranking.Options{})
	disk := ranking.Request(p, corev1.ResourceEphemeralStorage, ranking.Options{})
	c := ranking.ContainerUsage{MemoryWorkingSet: uint64(mem.Value()), Rootfs: ranking.FSUsage{UsedBytes: uint64(disk.Value())}}
	if len(p.Spec.Containers) > 0 {
		c.Name = p.Spec.Containers[0].Name
	}
	return ranking.Usage{
		MemoryWorkingSet: uint64(mem.Value()), EphemeralStorage: uint64(disk.Value()),
		Containers: []ranking.ContainerUsage{c},
	}
}

// usageFigure is the usage of res in u, as a quantity.
func usageFigure(u ranking.Usage, res corev1.ResourceName) resource.Quantity {
	var n uint64
	format := resource.BinarySI
	switch res {
	case corev1.ResourceMemory:
		n = u.MemoryWorkingSet
	case corev1.ResourceEphemeralStorage:
		for _, c := range u.Containers {
			n += c.Rootfs.UsedBytes + c.Logs.UsedBytes
		}
	case thresholds.ResourceInodes:
		for _, c := range u.Containers {
			n += c.Rootfs.InodesUsed + c.Logs.InodesUsed
		}
		format = resource.DecimalSI
	case thresholds.ResourcePIDs:
		n = u.Processes
		format = resource.DecimalSI
	}
	return *resource.NewQuantity(int64(min(n, 1<<62)), format)
}

// skipReason says why the kubelet never evicts p.
func skipReason(p *corev1.Pod) string {
	switch {
	case ranking.IsStatic(p):
		return "static pod"
	case ranking.IsMirror(p):
		return "mirror pod"
	}
	return "critical"
}

func (r *pressureReport) model() string {
	return "Model: the kubelet v1.37.2 with its default hard thresholds for Linux (--eviction-hard " +
		"memory.available<100Mi, nodefs.available<10%, nodefs.inodesFree<5%, imagefs.available<15%, " +
		"imagefs.inodesFree<5%; node allocatable enforced for pods). Each cycle it reclaims for the met threshold " +
		"of highest priority and evicts the first evictable pod of the ranking; the table assumes each eviction " +
		"frees the pod's usage at once. Usage: " + r.usageSource + "."
}

func (r *pressureReport) writeTable(w io.Writer) error {
	var b strings.Builder
	var given []string
	for _, o := range r.obs {
		g := fmt.Sprintf("%s=%s", o.signal, o.text)
		if d := display(o.available); d != o.text {
			g += " (" + d + ")"
		}
		given = append(given, g)
	}
	header := fmt.Sprintf("What if node %s observes %s at t0 = %s? Input: %s.",
		r.node, strings.Join(given, ", "), stamp(r.t0), r.source)
	if r.summary != "" {
		header = fmt.Sprintf("What if node %s observes what the stats summary %s reports (%s) at t0 = %s? Input: %s.",
			r.node, r.summary, strings.Join(given, ", "), stamp(r.t0), r.source)
	}
	b.WriteString(wrapped(header) + wrapped(r.model()))
	var met []string
	for _, t := range r.ts {
		if slices.ContainsFunc(r.met, t.Equal) {
			met = append(met, t.String())
		}
	}
	verdict := "Thresholds met: " + cmp.Or(strings.Join(met, ", "), "none") + "."
	switch {
	case r.hypothetic && !r.hasThreshold(r.signal):
		verdict += fmt.Sprintf(" No default threshold watches %s, so the kubelet never evicts for it; were one met, "+
			"it would evict in this order:", r.signal)
	case r.hypothetic:
		verdict += fmt.Sprintf(" So nothing is evicted now. Were %s to fall below %s, the kubelet would evict in this order:",
			r.signal, display(r.target))
	default:
		verdict += fmt.Sprintf(" The kubelet reclaims %s and evicts in this order, one pod per cycle, until %s ≥ %s:",
			r.resource, r.signal, display(r.target))
	}
	b.WriteString("\n" + wrapped(verdict) + "\n")
	cols := []string{"#", "POD", "QOS", "PRIORITY", "OOM_SCORE_ADJ", "USAGE/REQUEST", "AVAILABLE AFTER", ""}
	if r.hypothetic {
		cols = slices.Delete(cols, 6, 7)
	}
	t := newTable(&b, cols...)
	i := 0
	for _, row := range r.rows {
		rank, note, after := "-", "", ""
		switch {
		case !row.evictable:
			note = "skipped (" + row.skip + ")"
		default:
			i++
			rank = strconv.Itoa(i)
			after = display(row.availableAfter)
			if row.enough {
				note = "<- enough"
			}
		}
		var oom []string
		for _, c := range row.oomScoreAdj {
			oom = append(oom, strconv.Itoa(c.OOMScoreAdj))
		}
		cells := []string{rank, podKey(row.pod), string(row.qos), strconv.Itoa(int(row.priority)), strings.Join(oom, ","),
			display(row.usage) + "/" + r.requestText(row), after, note}
		if r.hypothetic {
			cells = slices.Delete(cells, 6, 7)
		}
		t.row(cells...)
	}
	t.flush()
	if !r.hypothetic && !slices.ContainsFunc(r.rows, func(row pressureRow) bool { return row.enough }) {
		last := r.start
		for _, row := range r.rows {
			if row.evictable {
				last = row.availableAfter
			}
		}
		b.WriteString("\n" + wrapped(fmt.Sprintf("Even with every evictable pod gone, %s would reach only %s by the usage "+
			"above: the kubelet evicts them all, one per cycle, and the threshold stays met.", r.signal, display(last))))
	}
	if r.message != "" {
		b.WriteString("\n" + wrapped("The first victim's status message: "+r.message))
	}
	for _, n := range r.notes {
		b.WriteString(wrapped("Note: " + n))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *pressureReport) jsonValue() any {
	doc := pressureJSON{
		Scenario: "pressure", Input: r.source, Node: r.node, T0: r.t0, Model: r.model(), UsageSource: r.usageSource,
		RankedFor: string(r.signal), Hypothetical: r.hypothetic, Message: strings.TrimSpace(r.message), Notes: r.notes,
		Observations: []observationJSON{}, Thresholds: []thresholdJSON{}, Pods: []pressurePodJSON{},
	}
	observedSig := map[thresholds.Signal]bool{}
	for _, o := range r.obs {
		j := observationJSON{Signal: string(o.signal), Available: o.available.String()}
		if o.capacity != nil {
			j.Capacity = o.capacity.String()
		}
		doc.Observations = append(doc.Observations, j)
		observedSig[o.signal] = true
	}
	for _, t := range r.ts {
		doc.Thresholds = append(doc.Thresholds, thresholdJSON{
			Threshold: t.String(), Met: slices.ContainsFunc(r.met, t.Equal), Observed: observedSig[t.Signal],
		})
	}
	if r.res.Reclaim {
		doc.Reclaim = &reclaimJSON{Threshold: r.res.Threshold.String(), Signal: string(r.res.Signal), Resource: string(r.res.Resource)}
	}
	for _, row := range r.rows {
		doc.Pods = append(doc.Pods, pressurePodJSON{
			Pod: podKey(row.pod), QOS: string(row.qos), Priority: row.priority, OOMScoreAdj: row.oomScoreAdj,
			Request: r.requestText(row), Usage: row.usage.String(), UsageFromRequests: row.fromRequests,
			Evictable: row.evictable, SkipReason: row.skip, AvailableAfter: row.availableAfter.String(),
			Enough: row.enough, Needed: row.needed,
		})
	}
	return doc
}

// display prints a quantity for people: exact when it is a whole number of
// Ki, Mi, Gi or Ti (or has no binary format), else rounded to 0.1 of the
// largest binary unit it reaches.
func display(q resource.Quantity) string {
	if q.Format != resource.BinarySI {
		return q.String()
	}
	v := q.Value()
	if s, ok := exactBinary(v); ok {
		return s
	}
	for _, u := range binaryUnits {
		if v >= u.n || -v >= u.n {
			return strconv.FormatFloat(float64(v)/float64(u.n), 'f', 1, 64) + u.s
		}
	}
	return strconv.FormatInt(v, 10)
}
