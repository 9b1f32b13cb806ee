package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"sigs.k8s.io/yaml"

	"github.com/evictkit/eviction/podresources"
	"github.com/evictkit/eviction/preemption"
	"github.com/evictkit/eviction/tolerations"
)

// preemptReport is the result of preempt.
type preemptReport struct {
	source     string
	t0         time.Time
	pod        *corev1.Pod
	priority   string // where the priority came from
	requests   preemption.Resources
	nodes      []nodeFit
	fits       []string // nodes the pod fits on without preemption
	result     preemption.Result
	outcome    string // "fits", "preempts", "not-eligible", "no-candidate"
	message    string
	candidates map[string]preemption.Candidate
	budgets    budgetIndex    // the snapshot's PDBs, to name those that select a victim
	config     *preemptConfig // nil: no configuration given, upstream's defaults
}

// nodeFit is one node as the scheduler saw it before preemption.
type nodeFit struct {
	name   string
	status preemption.Status
}

// preemptJSON is the -o json document of preempt.
type preemptJSON struct {
	// Scenario is "preempt".
	Scenario string `json:"scenario"`
	// Input names the snapshot.
	Input string `json:"input"`
	// T0 is the time taken as the start of pods without a start time.
	T0 time.Time `json:"t0"`
	// Model states what is simulated and under which assumptions.
	Model string `json:"model"`
	// Config is the scheduler configuration given (--config or the
	// plugin's flags); absent: upstream's defaults.
	Config *preemptConfigJSON `json:"config,omitempty"`
	// Pod is the preemptor: namespace/name, priority and requests.
	Pod preemptorJSON `json:"pod"`
	// Outcome is "fits" (no preemption needed), "preempts", "not-eligible"
	// or "no-candidate"; Message explains it.
	Outcome string `json:"outcome"`
	Message string `json:"message"`
	// Nodes lists every node: its fit before preemption and, for a
	// candidate, its victims.
	Nodes []preemptNodeJSON `json:"nodes"`
	// Chosen is the node to preempt on ("" unless Outcome is preempts),
	// Criterion the rule that chose it, RunnerUp the best node that rule
	// eliminated.
	Chosen    string `json:"chosen"`
	Criterion string `json:"criterion"`
	RunnerUp  string `json:"runnerUp"`
	// Victims are the pods evicted on the chosen node, most important first.
	Victims []victimJSON `json:"victims"`
}

type preemptConfigJSON struct {
	// Source says where the configuration comes from.
	Source string `json:"source"`
	// Plugin is the profile's preemption plugin: EvictkitPreemption or
	// DefaultPreemption.
	Plugin string `json:"plugin"`
	// Args are the plugin's args, defaults filled in.
	Args preemption.Args `json:"args"`
	// EvictionsRefused is, with evictionAPI, how many of the chosen node's
	// victims violate a PodDisruptionBudget, so that the API server would
	// refuse their eviction.
	EvictionsRefused int `json:"evictionsRefused"`
}

type preemptorJSON struct {
	Name             string            `json:"name"`
	Priority         int32             `json:"priority"`
	PrioritySource   string            `json:"prioritySource"`
	PreemptionPolicy string            `json:"preemptionPolicy"`
	Requests         map[string]string `json:"requests"`
}

type preemptNodeJSON struct {
	Name string `json:"name"`
	// Fit is the scheduler's verdict before preemption: Success,
	// Unschedulable or UnschedulableAndUnresolvable; Reasons say why.
	Fit     string   `json:"fit"`
	Reasons []string `json:"reasons"`
	// Candidate reports whether preemption can make room there.
	Candidate bool `json:"candidate"`
	// Victims, PDBViolations, HighestVictimPriority, VictimPrioritySum and
	// HighestPriorityStart are the candidate's figures for the pick
	// criteria, in their order (zero unless Candidate).
	Victims               []victimJSON `json:"victims,omitempty"`
	PDBViolations         int          `json:"pdbViolations"`
	HighestVictimPriority int32        `json:"highestVictimPriority"`
	VictimPrioritySum     int64        `json:"victimPrioritySum"`
	HighestPriorityStart  *time.Time   `json:"highestPriorityStart"`
}

type victimJSON struct {
	Pod      string `json:"pod"`
	Priority int32  `json:"priority"`
	// PDB names the budgets that select the pod.
	PDB []string `json:"pdb,omitempty"`
}

// preempt finds where the pod in file would preempt, with the scheduler
// configuration flags give.
func preempt(s *snapshot, source, file string, stdin io.Reader, stdinTaken bool, flags *preemptFlags) (report, error) {
	data, input, err := readInput(file, stdin, stdinTaken)
	if err != nil {
		return nil, err
	}
	pod, err := readPod(data, input)
	if err != nil {
		return nil, err
	}
	r := &preemptReport{source: source, t0: s.t0(), pod: pod, candidates: map[string]preemption.Candidate{}, budgets: indexBudgets(s.PDBs)}
	r.priority, err = resolvePriority(pod, s)
	if err != nil {
		return nil, err
	}
	if pod.Spec.PreemptionPolicy == nil {
		p := corev1.PreemptLowerPriority
		pod.Spec.PreemptionPolicy = &p
	}
	r.requests = preemption.PodRequests(pod)
	args := preemption.DefaultArgs()
	if flags.set() {
		cfg, err := flags.resolve(pod.Spec.SchedulerName, readFile)
		if err != nil {
			return nil, err
		}
		r.config, args = &cfg, cfg.args
	}

	nominated := map[string][]*corev1.Pod{}
	for _, p := range s.Pods {
		if p.Spec.NodeName == "" && p.Status.NominatedNodeName != "" {
			nominated[p.Status.NominatedNodeName] = append(nominated[p.Status.NominatedNodeName], p)
		}
	}
	opts := preemption.Options{Offset: preemption.FixedOffset(0), Workers: 1, PriorStatus: map[string]preemption.Code{},
		Sampling: new(args.Sampling()), StrictPDB: args.StrictPDB}
	var snaps []preemption.NodeSnapshot
	for _, name := range s.sortedNodeNames() {
		node, _ := s.node(name)
		snap, err := preemption.NewNodeSnapshot(node, s.podsOn(name), nominated[name])
		if err != nil {
			return nil, badInput("node %s: %v", name, err)
		}
		snaps = append(snaps, snap)
		st, ok := unresolvable(pod, node)
		if !ok {
			st = preemption.CheckFit(pod, snap, opts)
		}
		opts.PriorStatus[name] = st.Code
		r.nodes = append(r.nodes, nodeFit{name: name, status: st})
		if st.IsSuccess() {
			r.fits = append(r.fits, name)
		}
	}
	if len(r.fits) > 0 {
		r.outcome = "fits"
		r.message = fmt.Sprintf("It fits on %s without preemption: the scheduler binds it there and evicts nothing.",
			joinMax(r.fits, 4))
		return r, nil
	}
	pdbs, err := preemption.NewPDBs(s.PDBs)
	if err != nil {
		return nil, badInput("%s: %v", input, err)
	}
	res, err := preemption.Evaluate(pod, snaps, pdbs, r.t0, opts)
	r.result = res
	for _, c := range res.Candidates {
		if args.StrictPDB && c.Victims.NumPDBViolations > 0 {
			continue // rejected: its node status says why
		}
		r.candidates[c.Node] = c
	}
	switch {
	case err == nil:
		r.outcome = "preempts"
		r.message = fmt.Sprintf("Chosen: %s, among %s.", res.Chosen.Node, plural(len(r.candidates), "candidate"))
	case errors.Is(err, preemption.ErrNotEligible):
		r.outcome = "not-eligible"
		r.message = "It may not preempt: " + res.Message
	case errors.Is(err, preemption.ErrNoCandidate):
		r.outcome = "no-candidate"
		r.message = "No node can host it, even after preemption: " + res.Message
	case errors.Is(err, preemption.ErrInvalidInput), errors.Is(err, preemption.ErrInvalidOptions):
		return nil, badInput("%s: %v", input, err)
	default:
		return nil, err
	}
	return r, nil
}

// readPod decodes one v1 Pod in YAML or JSON; name labels errors.
func readPod(data []byte, name string) (*corev1.Pod, error) {
	raw, err := yaml.YAMLToJSON(data)
	if err != nil {
		return nil, badInput("%s: %v", name, err)
	}
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(raw, &meta); err != nil || bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return nil, badInput("%s: not a Kubernetes object (want a v1 Pod)", name)
	}
	if meta.Kind != "Pod" || meta.APIVersion != "v1" {
		return nil, badInput("%s: kind %s %s is not a v1 Pod", name, cmp.Or(meta.APIVersion, `""`), cmp.Or(meta.Kind, `""`))
	}
	pod := &corev1.Pod{}
	if err := json.Unmarshal(raw, pod); err != nil {
		return nil, badInput("%s: Pod: %v", name, err)
	}
	if pod.Name == "" {
		return nil, badInput("%s: the Pod has no metadata.name", name)
	}
	pod.Namespace = cmp.Or(pod.Namespace, "default")
	pod.Spec.NodeName = ""
	return pod, nil
}

// resolvePriority fills in spec.priority as the Priority admission plugin
// would: from the priority class, whose value the snapshot tells through the
// pods that use it; 0 without a class.
func resolvePriority(pod *corev1.Pod, s *snapshot) (string, error) {
	class := pod.Spec.PriorityClassName
	if pod.Spec.Priority != nil {
		return "spec.priority", nil
	}
	if class == "" {
		var zero int32
		pod.Spec.Priority = &zero
		return "no priorityClassName: 0", nil
	}
	for _, p := range s.Pods {
		if p.Spec.PriorityClassName == class && p.Spec.Priority != nil {
			v := *p.Spec.Priority
			pod.Spec.Priority = &v
			return fmt.Sprintf("priority class %s, as its pods in the snapshot carry", class), nil
		}
	}
	switch class {
	case "system-node-critical":
		v := int32(2000001000)
		pod.Spec.Priority = &v
		return "built-in class " + class, nil
	case "system-cluster-critical":
		v := int32(2000000000)
		pod.Spec.Priority = &v
		return "built-in class " + class, nil
	}
	return "", badInput("priority class %q: no pod in the snapshot uses it, so its value is unknown; set spec.priority", class)
}

// unresolvable runs the filters that preemption cannot fix: node
// unschedulable, taints, nodeSelector and required node affinity.
func unresolvable(pod *corev1.Pod, node *corev1.Node) (preemption.Status, bool) {
	fail := func(reason string) (preemption.Status, bool) {
		return preemption.Status{Code: preemption.UnschedulableAndUnresolvable, Reasons: []string{reason}}, true
	}
	if node.Spec.Unschedulable {
		unschedulable := corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule}
		if !tolerations.AnyTolerates(pod.Spec.Tolerations, &unschedulable, tolerations.Options{}) {
			return fail("node(s) were unschedulable")
		}
	}
	if t, ok := tolerations.FindUntolerated(node.Spec.Taints, pod.Spec.Tolerations, tolerations.NoScheduleOrNoExecute, tolerations.Options{}); ok {
		return fail("untolerated taint " + shortTaint(t))
	}
	if !labels.SelectorFromSet(pod.Spec.NodeSelector).Matches(labels.Set(node.Labels)) {
		return fail("node(s) didn't match Pod's node affinity/selector")
	}
	if a := pod.Spec.Affinity; a != nil && a.NodeAffinity != nil && a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution != nil {
		if !matchesNodeSelector(a.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution, node) {
			return fail("node(s) didn't match Pod's node affinity/selector")
		}
	}
	return preemption.Status{}, false
}

// matchesNodeSelector evaluates required node affinity: any term matches
// when all its expressions and fields match.
func matchesNodeSelector(ns *corev1.NodeSelector, node *corev1.Node) bool {
	ops := map[corev1.NodeSelectorOperator]selection.Operator{
		corev1.NodeSelectorOpIn: selection.In, corev1.NodeSelectorOpNotIn: selection.NotIn,
		corev1.NodeSelectorOpExists: selection.Exists, corev1.NodeSelectorOpDoesNotExist: selection.DoesNotExist,
		corev1.NodeSelectorOpGt: selection.GreaterThan, corev1.NodeSelectorOpLt: selection.LessThan,
	}
	term := func(t corev1.NodeSelectorTerm) bool {
		if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
			return false
		}
		for _, e := range t.MatchExpressions {
			req, err := labels.NewRequirement(e.Key, ops[e.Operator], e.Values)
			if err != nil || !req.Matches(labels.Set(node.Labels)) {
				return false
			}
		}
		for _, f := range t.MatchFields {
			if f.Key != "metadata.name" {
				return false
			}
			req, err := labels.NewRequirement("name", ops[f.Operator], f.Values)
			if err != nil || !req.Matches(labels.Set{"name": node.Name}) {
				return false
			}
		}
		return true
	}
	return slices.ContainsFunc(ns.NodeSelectorTerms, term)
}

// figures are a candidate's values for the pick criteria.
type figures struct {
	pdb      int
	top      int32
	sum      int64
	victims  int
	topStart time.Time
}

func (r *preemptReport) figures(c preemption.Candidate) figures {
	f := figures{pdb: c.Victims.NumPDBViolations, victims: len(c.Victims.Pods)}
	if len(c.Victims.Pods) == 0 {
		return f
	}
	f.top = podresources.Priority(c.Victims.Pods[0])
	for i, p := range c.Victims.Pods {
		f.sum += int64(podresources.Priority(p))
		if podresources.Priority(p) == f.top {
			start := r.t0
			if p.Status.StartTime != nil {
				start = p.Status.StartTime.Time
			}
			if i == 0 || start.Before(f.topStart) {
				f.topStart = start
			}
		}
	}
	return f
}

// budgetIndex holds the PodDisruptionBudgets, each with its namespace/name
// and its selector parsed once, looked up by one of the labels its selector
// requires: a pod is matched only against the budgets of its namespace that
// require one of its labels (and those that require none), not against
// every budget.
type budgetIndex struct {
	budgets []namedSelector
	byLabel map[labelKey][]int // budgets requiring the label, in input order
	other   map[string][]int   // by namespace: budgets with no label required
}

type namedSelector struct {
	name     string
	selector labels.Selector
}

// labelKey is a label a selector requires, in a namespace.
type labelKey struct{ namespace, key, value string }

// indexBudgets parses the budgets' selectors; like the scheduler, a nil or
// empty selector matches nothing, and so does one that does not parse.
func indexBudgets(pdbs []*policyv1.PodDisruptionBudget) budgetIndex {
	b := budgetIndex{byLabel: map[labelKey][]int{}, other: map[string][]int{}}
	for _, pdb := range pdbs {
		s, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || s.Empty() || pdb.Spec.Selector == nil {
			continue
		}
		i := len(b.budgets)
		b.budgets = append(b.budgets, namedSelector{pdb.Namespace + "/" + pdb.Name, s})
		// Any one of matchLabels will do; the smallest key, to be deterministic.
		if ml := pdb.Spec.Selector.MatchLabels; len(ml) > 0 {
			k := slices.Min(slices.Collect(maps.Keys(ml)))
			key := labelKey{pdb.Namespace, k, ml[k]}
			b.byLabel[key] = append(b.byLabel[key], i)
			continue
		}
		b.other[pdb.Namespace] = append(b.other[pdb.Namespace], i)
	}
	return b
}

// selecting names the budgets whose selector matches the pod, in input
// order.
func (b budgetIndex) selecting(p *corev1.Pod) []string {
	if len(p.Labels) == 0 {
		return nil
	}
	idx := slices.Clone(b.other[p.Namespace])
	for k, v := range p.Labels {
		idx = append(idx, b.byLabel[labelKey{p.Namespace, k, v}]...)
	}
	slices.Sort(idx) // each budget is under one label: no duplicates
	var out []string
	for _, i := range idx {
		if b.budgets[i].selector.Matches(labels.Set(p.Labels)) {
			out = append(out, b.budgets[i].name)
		}
	}
	return out
}

func (r *preemptReport) model() string {
	return "Model: kube-scheduler v1.37.2, DefaultPreemption after the filters NodeUnschedulable, TaintToleration, " +
		"NodeAffinity (nodeSelector and required terms) and NodeResourcesFit; the snapshot's PodDisruptionBudgets " +
		"as their status says; the dry run visits the nodes in name order from offset 0 (upstream starts at a " +
		"random offset, which only matters for ties); pods without a start time started at t0."
}

func (r *preemptReport) header() string {
	return fmt.Sprintf("What if pod %s (priority %d from %s; requests %s) is pending? Input: %s.",
		podKey(r.pod), podresources.Priority(r.pod), r.priority, formatRequests(r.requests), r.source)
}

func (r *preemptReport) writeTable(w io.Writer) error {
	var b strings.Builder
	b.WriteString(wrapped(r.header()) + wrapped(r.model()))
	if r.config != nil {
		b.WriteString(wrapped(r.configText()))
	}
	b.WriteString(wrapped(r.fitSummary()) + "\n")
	if r.outcome != "fits" && len(r.candidates) > 0 {
		t := newTable(&b, "CANDIDATE", "PDB", "TOP PRIO", "PRIO SUM", "VICTIMS", "TOP STARTED", "")
		for _, n := range r.nodes {
			c, ok := r.candidates[n.name]
			if !ok {
				continue
			}
			f := r.figures(c)
			note := ""
			if r.chosen(n.name) {
				note = "<- chosen"
			} else if n.name == r.result.Decision.RunnerUp {
				note = "<- runner-up"
			}
			t.row(n.name, strconv.Itoa(f.pdb), strconv.Itoa(int(f.top)), strconv.FormatInt(f.sum, 10),
				strconv.Itoa(f.victims), f.topStart.UTC().Format("2006-01-02 15:04"), note)
		}
		t.flush()
		b.WriteString("\n")
	}
	if r.outcome != "fits" {
		var others groups // the nodes that are no candidates, by the reason why
		for _, n := range r.nodes {
			if _, ok := r.candidates[n.name]; !ok {
				others.add(r.notCandidate(n), n.name)
			}
		}
		var parts []string
		for _, why := range others.reasons {
			parts = append(parts, fmt.Sprintf("%s (%s)", joinMax(others.names[why], 4), why))
		}
		if len(parts) > 0 {
			b.WriteString(wrapped("Not candidates: "+strings.Join(parts, "; ")+".") + "\n")
		}
	}
	b.WriteString(wrapped(r.message))
	if r.outcome == "preempts" {
		b.WriteString(wrapped(r.decisionText()))
		if r.config != nil && r.config.args.EvictionAPI {
			b.WriteString(wrapped(r.evictionAPIText()))
		}
	}
	if len(r.candidates) > 0 {
		b.WriteString("\nVictims per candidate, most important first (priority; DS = DaemonSet; PDB = a budget\n" +
			"that selects it):\n")
		for _, n := range r.nodes {
			c, ok := r.candidates[n.name]
			if !ok {
				continue
			}
			var items []string
			for _, p := range c.Victims.Pods {
				notes := []string{strconv.Itoa(int(podresources.Priority(p)))}
				if isDaemonSetPod(p) {
					notes = append(notes, "DS")
				}
				if pdb := r.budgets.selecting(p); len(pdb) > 0 {
					notes = append(notes, "PDB")
				}
				items = append(items, fmt.Sprintf("%s (%s)", podKey(p), strings.Join(notes, ", ")))
			}
			label := n.name
			if r.chosen(n.name) {
				label += " (chosen)"
			}
			for i, l := range wrap(label + ": " + strings.Join(items, ", ")) {
				if i > 0 {
					l = "    " + l
				}
				b.WriteString("  " + l + "\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// configText states the configuration the prediction runs with.
func (r *preemptReport) configText() string {
	c := r.config
	a := c.args
	text := fmt.Sprintf("Configuration (%s): %s with minCandidateNodesPercentage %d, minCandidateNodesAbsolute %d",
		c.source, c.plugin, a.MinCandidateNodesPercentage, a.MinCandidateNodesAbsolute)
	if c.plugin == evictkitPreemption {
		text += fmt.Sprintf(", strictPDB %t, evictionAPI %t", a.StrictPDB, a.EvictionAPI)
	}
	text += "."
	if a.StrictPDB {
		text += " strictPDB: a node whose victims would violate a PodDisruptionBudget is no candidate."
	}
	return text
}

// evictionsRefused is how many of the chosen node's victims the API server
// would refuse to evict: those the scheduler counts as violating a budget.
func (r *preemptReport) evictionsRefused() int {
	if r.config == nil || !r.config.args.EvictionAPI || r.outcome != "preempts" {
		return 0
	}
	return r.result.Chosen.Victims.NumPDBViolations
}

// evictionAPIText says what evicting the chosen victims through the
// Eviction API would do.
func (r *preemptReport) evictionAPIText() string {
	n := r.evictionsRefused()
	if n == 0 {
		return "evictionAPI: the victims go through the Eviction API, which checks their PodDisruptionBudgets " +
			"again; none of them violates one, so the API server would accept every eviction."
	}
	return fmt.Sprintf("evictionAPI: the victims go through the Eviction API, which checks their PodDisruptionBudgets "+
		"again: %s on %s would violate one, so the API server would refuse its eviction (429). The plugin stops at "+
		"the first refusal (victims evicted in parallel before it stay evicted; the last victim is spared), records a "+
		"PreemptionRefused event on the pod and puts it back in the queue, to decide again with the budgets as they "+
		"are then.", plural(n, "victim"), r.result.Chosen.Node)
}

// chosen reports whether node is where the pod preempts.
func (r *preemptReport) chosen(node string) bool {
	return r.outcome == "preempts" && node == r.result.Chosen.Node
}

// notCandidate says why a node is no candidate.
func (r *preemptReport) notCandidate(n nodeFit) string {
	if n.status.Code != preemption.Unschedulable {
		return n.status.Message()
	}
	st, ok := r.result.NodeStatuses[n.name]
	switch {
	case !ok:
		return n.status.Message() + " (not visited)"
	case st.Message() == n.status.Message():
		return n.status.Message() + " even without its lower-priority pods"
	}
	return st.Message()
}

// fitSummary says where the pod fits before preemption, grouping nodes by
// reason.
func (r *preemptReport) fitSummary() string {
	if len(r.fits) > 0 {
		return ""
	}
	var byReason groups
	for _, n := range r.nodes {
		byReason.add(n.status.Message(), n.name)
	}
	var parts []string
	for _, m := range byReason.reasons {
		nodes := byReason.names[m]
		who := joinMax(nodes, 3)
		if len(nodes) > 3 {
			who = plural(len(nodes), "node")
		}
		parts = append(parts, fmt.Sprintf("%s (%s)", m, who))
	}
	return "Without preemption it fits nowhere: " + strings.Join(parts, "; ") + "."
}

// decisionText explains the pick.
func (r *preemptReport) decisionText() string {
	d := r.result.Decision
	if d.RunnerUp == "" {
		return fmt.Sprintf("%s is the only candidate.", r.result.Chosen.Node)
	}
	chosen := r.figures(r.result.Chosen)
	runner := r.figures(r.candidates[d.RunnerUp])
	var why string
	switch d.Criterion {
	case preemption.CriterionPDBViolations:
		why = fmt.Sprintf("%d against %d", chosen.pdb, runner.pdb)
	case preemption.CriterionHighestPriority:
		why = fmt.Sprintf("%d against %d", chosen.top, runner.top)
	case preemption.CriterionPrioritySum:
		why = fmt.Sprintf("%d against %d", chosen.sum, runner.sum)
	case preemption.CriterionVictimCount:
		why = fmt.Sprintf("%d against %d", chosen.victims, runner.victims)
	case preemption.CriterionStartTime:
		why = fmt.Sprintf("%s against %s", stamp(chosen.topStart), stamp(runner.topStart))
	default:
		why = "every criterion tied, and it comes first in name order"
	}
	return fmt.Sprintf("The criteria, in order: fewest PDB violations, lowest top victim priority, lowest priority "+
		"sum, fewest victims, latest start of the top-priority victims. Decided by %s: %s for the runner-up %s.",
		d.Criterion, why, d.RunnerUp)
}

func (r *preemptReport) jsonValue() any {
	doc := preemptJSON{
		Scenario: "preempt", Input: r.source, T0: r.t0, Model: r.model(),
		Pod: preemptorJSON{
			Name: podKey(r.pod), Priority: podresources.Priority(r.pod), PrioritySource: r.priority,
			PreemptionPolicy: string(*r.pod.Spec.PreemptionPolicy), Requests: requestMap(r.requests),
		},
		Outcome: r.outcome, Message: r.message, Nodes: []preemptNodeJSON{}, Victims: []victimJSON{},
	}
	if c := r.config; c != nil {
		doc.Config = &preemptConfigJSON{Source: c.source, Plugin: c.plugin, Args: c.args, EvictionsRefused: r.evictionsRefused()}
	}
	victims := func(c preemption.Candidate) []victimJSON {
		out := []victimJSON{}
		for _, p := range c.Victims.Pods {
			out = append(out, victimJSON{Pod: podKey(p), Priority: podresources.Priority(p), PDB: r.budgets.selecting(p)})
		}
		return out
	}
	for _, n := range r.nodes {
		j := preemptNodeJSON{Name: n.name, Fit: n.status.Code.String(), Reasons: slices.Clone(n.status.Reasons)}
		if j.Reasons == nil {
			j.Reasons = []string{}
		}
		if c, ok := r.candidates[n.name]; ok {
			f := r.figures(c)
			j.Candidate, j.Victims, j.PDBViolations = true, victims(c), f.pdb
			j.HighestVictimPriority, j.VictimPrioritySum, j.HighestPriorityStart = f.top, f.sum, timePtr(f.topStart)
		}
		doc.Nodes = append(doc.Nodes, j)
	}
	if r.outcome == "preempts" {
		doc.Chosen = r.result.Chosen.Node
		doc.Criterion = r.result.Decision.Criterion.String()
		doc.RunnerUp = r.result.Decision.RunnerUp
		doc.Victims = victims(r.result.Chosen)
	}
	return doc
}

// formatRequests prints a request vector: "cpu 3, memory 8Gi".
func formatRequests(res preemption.Resources) string {
	m := requestMap(res)
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+" "+m[k])
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

// requestMap turns a request vector into quantities, leaving zeros out.
func requestMap(res preemption.Resources) map[string]string {
	m := map[string]string{}
	if res.MilliCPU > 0 {
		m["cpu"] = milliString(res.MilliCPU)
	}
	if res.Memory > 0 {
		m["memory"] = byteString(res.Memory)
	}
	if res.EphemeralStorage > 0 {
		m["ephemeral-storage"] = byteString(res.EphemeralStorage)
	}
	for k, v := range res.Scalars {
		if v > 0 {
			m[string(k)] = strconv.FormatInt(v, 10)
		}
	}
	return m
}

// milliString prints millicores as a quantity: "3", "3500m".
func milliString(v int64) string {
	if v%1000 == 0 {
		return strconv.FormatInt(v/1000, 10)
	}
	return strconv.FormatInt(v, 10) + "m"
}

// byteString prints a byte count exactly: "8Gi", "1000".
func byteString(v int64) string {
	if s, ok := exactBinary(v); ok {
		return s
	}
	return strconv.FormatInt(v, 10)
}
