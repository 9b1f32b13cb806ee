package preemption

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
)

// Result is the whole preemption decision for one preemptor, as the
// DefaultPreemption PostFilter plugin would reach it, without the actuation.
type Result struct {
	// Code is Success when a node was chosen, Unschedulable when preemption
	// cannot help now, and Error when the attempt failed.
	Code Code
	// Message is upstream's status message (without the "preemption: "
	// prefix the plugin adds), e.g. "0/3 nodes are available: 3 Insufficient
	// cpu.", "not eligible due to preemptionPolicy=Never." or, when several
	// nodes failed, their errors as upstream aggregates them ("[e1, e2]").
	// For invalid input or options it is the returned error's text.
	Message string

	// Chosen is the node to preempt on and its victims (Success only).
	Chosen Candidate
	// Decision says which criterion chose it.
	Decision Decision

	// NominatedNode is the preemptor's new status.nominatedNodeName, applied
	// unless KeepNomination is set; "" clears the nomination.
	NominatedNode string
	// KeepNomination means upstream returns no PostFilterResult and leaves
	// the preemptor's nomination unchanged.
	KeepNomination bool
	// ClearNominationOf lists the pods nominated to the chosen node with a
	// priority below the preemptor's; the scheduler clears their
	// nomination.
	ClearNominationOf []*v1.Pod

	// Candidates are the candidates the dry run found: those without PDB
	// violations first, each group in visit order. They are listed before
	// StrictPDB and CandidateFilter remove any.
	Candidates []Candidate
	// NodeStatuses holds why each evaluated node did not become a candidate
	// (and, with StrictPDB, the candidates it rejected).
	NodeStatuses map[string]Status
	// Potential lists, in input order, the nodes whose prior status was
	// Unschedulable: the only ones the dry run may visit.
	Potential []string
	// Offset and NumCandidates are the dry run's sampling parameters; it
	// visited Potential[(Offset+i) % len(Potential)] for i < Evaluated.
	Offset        int32
	NumCandidates int32
	Evaluated     int
}

// Preempt decides where preemptor should preempt among nodes and returns
// the chosen node and its victims. It is [Evaluate] without the details;
// the error wraps [ErrNotEligible], [ErrNoNodes], [ErrNoCandidate],
// [ErrNodeEvaluation], [ErrCandidateFilter], [ErrInvalidInput] or
// [ErrInvalidOptions] whenever no node was chosen.
func Preempt(preemptor *v1.Pod, nodes []NodeSnapshot, pdbs PDBs, now time.Time, opts Options) (Candidate, error) {
	r, err := Evaluate(preemptor, nodes, pdbs, now, opts)
	return r.Chosen, err
}

// Evaluate runs the whole preemption decision: eligibility of the preemptor,
// potential nodes (prior status Unschedulable), candidate sampling from
// Options.Offset, the dry run with the upstream stop rule, the optional
// StrictPDB and CandidateFilter steps, and the node pick. now is the time a
// pod without status.startTime is taken to have started, in the victim
// order and in the pick (upstream reads the clock at each use).
//
// Nodes are evaluated by up to Options.Workers goroutines, but the result is
// always the one a single worker gets: the dry run is reduced in visit order
// and stops where the sequential run stops. The error is nil exactly when
// Result.Code is Success.
//
// Evaluate is [EvaluateSource] over [Snapshots](nodes); a caller that would
// prepare many snapshots the dry run never visits gives a [NodeSource]
// instead.
func Evaluate(preemptor *v1.Pod, nodes []NodeSnapshot, pdbs PDBs, now time.Time, opts Options) (Result, error) {
	seen := make(map[string]struct{}, len(nodes))
	for i := range nodes {
		var err error
		name := nodes[i].Name()
		if nodes[i].node == nil {
			err = fmt.Errorf("preemption: node snapshot %d is the zero value: %w", i, ErrInvalidInput)
		} else if _, dup := seen[name]; dup {
			err = fmt.Errorf("preemption: node %q appears twice: %w", name, ErrInvalidInput)
		}
		if err != nil {
			return Result{Code: Error, KeepNomination: true, Message: err.Error()}, err
		}
		seen[name] = struct{}{}
	}
	return EvaluateSource(preemptor, Snapshots(nodes), pdbs, now, opts)
}

// EvaluateSource is [Evaluate] over nodes given by a [NodeSource], which is
// asked for the snapshot of a node only when the decision looks at it. When
// src is also a [StatusSource], the prior statuses come from it and
// [Options.PriorStatus] is ignored. The result is the one Evaluate gives for
// the same snapshots, in the same order, and the same prior statuses.
//
// Node names must be unique; unlike Evaluate, EvaluateSource does not check
// it (a cluster's worth of names would be hashed on every call), and a
// duplicate name makes the node statuses of the result ambiguous. A node
// without a name fails with [ErrInvalidInput].
func EvaluateSource(preemptor *v1.Pod, src NodeSource, pdbs PDBs, now time.Time, opts Options) (Result, error) {
	failed := func(err error) (Result, error) {
		return Result{Code: Error, KeepNomination: true, Message: err.Error()}, err
	}
	if err := opts.validate(); err != nil {
		return failed(err)
	}
	c, err := newCall(preemptor, pdbs, &opts, now)
	if err != nil {
		return failed(err)
	}
	if src == nil {
		src = Snapshots(nil)
	}
	numNodes := src.Len()
	for i := range numNodes {
		if src.Name(i) == "" {
			return failed(fmt.Errorf("preemption: node %d has no name: %w", i, ErrInvalidInput))
		}
	}

	var known func(i int) Code
	switch ss, ok := src.(StatusSource); {
	case ok:
		known = ss.PriorStatus
	case opts.PriorStatus != nil:
		prior := make([]Code, numNodes)
		for i := range numNodes {
			code, ok := opts.PriorStatus[src.Name(i)]
			if !ok {
				code = UnschedulableAndUnresolvable
			}
			prior[i] = code
		}
		known = func(i int) Code { return prior[i] }
	default:
		prior := make([]Code, numNodes)
		e := c.newEval()
		for i := range numNodes {
			if e.snap, err = nodeSnapshot(src, i); err != nil {
				return failed(fmt.Errorf("preemption: pod %s/%s: %w: %w", preemptor.Namespace, preemptor.Name, ErrNodeEvaluation, err))
			}
			e.reset(&e.snap)
			prior[i] = e.check()
		}
		// A node where the preemptor fits has no entry upstream, and an
		// absent entry reads as UnschedulableAndUnresolvable.
		known = func(i int) Code {
			if prior[i] == Success {
				return UnschedulableAndUnresolvable
			}
			return prior[i]
		}
	}

	ok, msg, err := c.eligible(src, known)
	if err != nil {
		return failed(fmt.Errorf("preemption: pod %s/%s: %w: %w", preemptor.Namespace, preemptor.Name, ErrNodeEvaluation, err))
	}
	if !ok {
		err := fmt.Errorf("preemption: pod %s/%s: %w: %s", preemptor.Namespace, preemptor.Name, ErrNotEligible, msg)
		return Result{Code: Unschedulable, KeepNomination: true, Message: msg}, err
	}
	if numNodes == 0 {
		return Result{Code: Error, KeepNomination: true, Message: "no nodes available"}, fmt.Errorf("preemption: pod %s/%s: %w", preemptor.Namespace, preemptor.Name, ErrNoNodes)
	}

	r := Result{NodeStatuses: map[string]Status{}}
	numPotential := 0
	for i := range numNodes {
		if known(i) == Unschedulable {
			numPotential++
		}
	}
	var potential []int
	if numPotential > 0 {
		potential = make([]int, 0, numPotential)
		r.Potential = make([]string, 0, numPotential)
	}
	for i := range numNodes {
		if known(i) == Unschedulable {
			potential = append(potential, i)
			r.Potential = append(r.Potential, src.Name(i))
		}
	}
	noCandidate := func(r Result) (Result, error) {
		r.Code = Unschedulable
		r.Message = fitErrorMessage(numNodes, r.NodeStatuses)
		return r, fmt.Errorf("preemption: pod %s/%s: %w: %s", preemptor.Namespace, preemptor.Name, ErrNoCandidate, r.Message)
	}
	if len(potential) == 0 {
		return noCandidate(r)
	}

	n := int32(len(potential))
	r.Offset = opts.offset(n)
	r.NumCandidates = opts.sampling().NumCandidates(n)
	var errs []error
	r.Candidates, errs, r.Evaluated = c.dryRun(src, potential, r.Offset, r.NumCandidates, r.NodeStatuses)
	if len(errs) > 0 && len(r.Candidates) == 0 {
		r.Code, r.KeepNomination, r.Message = Error, true, aggregateMessage(errs)
		return r, fmt.Errorf("preemption: pod %s/%s: %w: %w", preemptor.Namespace, preemptor.Name, ErrNodeEvaluation, nodeErrors(errs))
	}
	if len(r.Candidates) == 0 {
		return noCandidate(r)
	}

	usable := r.Candidates
	if opts.StrictPDB {
		usable = nil
		for _, cand := range r.Candidates {
			if cand.Victims.NumPDBViolations > 0 {
				r.NodeStatuses[cand.Node] = Status{Code: Unschedulable, Reasons: []string{reasonStrictPDB}}
				continue
			}
			usable = append(usable, cand)
		}
		if len(usable) == 0 {
			return noCandidate(r)
		}
	}
	if f := opts.CandidateFilter; f != nil {
		out, err := f(preemptor, slices.Clone(usable))
		if err == nil {
			for _, cand := range out {
				if len(cand.Victims.Pods) == 0 {
					err = fmt.Errorf("expected at least one victim pod on node %q", cand.Node)
					break
				}
			}
		}
		if err != nil {
			r.Code, r.KeepNomination, r.Message = Error, true, err.Error()
			return r, fmt.Errorf("preemption: pod %s/%s: %w: %w", preemptor.Namespace, preemptor.Name, ErrCandidateFilter, err)
		}
		usable = out
	}

	r.Chosen, r.Decision = PickNodeExplained(usable, now, opts.ScoreFuncs)
	if r.Chosen.Node == "" {
		// No candidate left, or SelectCandidate's result without a name:
		// only a CandidateFilter can produce either.
		r.Chosen, r.Decision = Candidate{}, Decision{}
		r.Code, r.KeepNomination, r.Message = Unschedulable, true, reasonNoCandidateNode
		return r, fmt.Errorf("preemption: pod %s/%s: %w: %s", preemptor.Namespace, preemptor.Name, ErrNoCandidate, reasonNoCandidateNode)
	}
	r.Code, r.NominatedNode = Success, r.Chosen.Node
	r.Message = fmt.Sprintf("found a potential placement for pod on node %v, preempting %d victims", r.Chosen.Node, len(r.Chosen.Victims.Pods))
	if i, ok := indexOf(src, r.Chosen.Node); ok {
		node, err := nodeSnapshot(src, i)
		if err != nil {
			return failed(fmt.Errorf("preemption: pod %s/%s: %w: %w", preemptor.Namespace, preemptor.Name, ErrNodeEvaluation, err))
		}
		for _, nom := range node.nominated {
			if nom.priority < c.prio {
				r.ClearNominationOf = append(r.ClearNominationOf, nom.pod)
			}
		}
	}
	return r, nil
}

// eligible is PodEligibleToPreemptOthers. It fails only when the snapshot
// of the nominated node cannot be had.
func (c *call) eligible(src NodeSource, prior func(int) Code) (bool, string, error) {
	if p := c.pre.Spec.PreemptionPolicy; p != nil && *p == v1.PreemptNever {
		return false, "not eligible due to preemptionPolicy=Never.", nil
	}
	name := c.pre.Status.NominatedNodeName
	if name == "" {
		return true, "", nil
	}
	i, ok := indexOf(src, name)
	if !ok {
		// Absent from the snapshot: absent from NodeToStatus too, which
		// reads as UnschedulableAndUnresolvable.
		return true, "", nil
	}
	if prior(i) == UnschedulableAndUnresolvable {
		return true, "", nil
	}
	snap, err := nodeSnapshot(src, i)
	if err != nil {
		return false, "", err
	}
	node := &snap
	for j := range node.pods {
		p := &node.pods[j]
		if p.priority >= c.prio || !terminatingByPreemption(p.pod) {
			continue
		}
		if f := c.opts.IsEligibleVictim; f != nil && !f(node, p.pod, c.pre) {
			continue
		}
		return false, "not eligible due to a terminating pod on the nominated node.", nil
	}
	return true, "", nil
}

// terminatingByPreemption is PodTerminatingByPreemption: deleted, and the
// first DisruptionTarget condition is True with reason PreemptionByScheduler.
func terminatingByPreemption(p *v1.Pod) bool {
	if p.DeletionTimestamp == nil {
		return false
	}
	for _, cond := range p.Status.Conditions {
		if cond.Type == v1.DisruptionTarget {
			return cond.Status == v1.ConditionTrue && cond.Reason == v1.PodReasonPreemptionByScheduler
		}
	}
	return false
}

// outcome is the victim search result of one visited node.
type outcome struct {
	victims Victims
	status  Status
	err     error // the snapshot could not be had
	done    bool
}

// dryRun is DryRunPreemption with the result of parallelism 1: nodes are
// visited from offset, candidates go to the non-violating or the violating
// list (each capped at numCandidates, overflow dropped) and the run stops
// once there is a non-violating candidate and the lists hold numCandidates.
// A node whose snapshot cannot be had, or that yields no victim although the
// preemptor then fits, is a node error. It fills statuses and returns the
// candidates, the node errors and the number of nodes visited.
func (c *call) dryRun(src NodeSource, potential []int, offset, numCandidates int32, statuses map[string]Status) ([]Candidate, []error, int) {
	n := len(potential)
	nonViolating := make([]Candidate, 0, min(int(numCandidates), n))
	var violating []Candidate
	var errs []error
	stopped := false
	nodeAt := func(i int) int { return potential[(int(offset)+i)%n] }
	search := func(e *nodeEval, i int) outcome {
		var err error
		if e.snap, err = nodeSnapshot(src, nodeAt(i)); err != nil {
			return outcome{status: errorStatus(err), err: err, done: true}
		}
		v, st := e.selectVictims(&e.snap)
		return outcome{victims: v, status: st, done: true}
	}
	// reduce handles the outcome of visit i, in visit order; it reports
	// whether the run stops after it.
	reduce := func(i int, o *outcome) bool {
		name := src.Name(nodeAt(i))
		switch {
		case o.status.IsSuccess() && len(o.victims.Pods) > 0:
			cand := Candidate{Node: name, Victims: o.victims}
			if o.victims.NumPDBViolations == 0 {
				if len(nonViolating) < int(numCandidates) {
					nonViolating = append(nonViolating, cand)
				}
			} else if len(violating) < int(numCandidates) {
				violating = append(violating, cand)
			}
			return len(nonViolating) > 0 && len(nonViolating)+len(violating) >= int(numCandidates)
		case o.status.IsSuccess():
			msg := fmt.Sprintf("expected at least one victim pod on node %q", name)
			errs = append(errs, errors.New(msg))
			statuses[name] = Status{Code: Error, Reasons: []string{msg}}
		case o.status.Code == Error:
			errs = append(errs, o.err)
			statuses[name] = o.status
		default:
			statuses[name] = o.status
		}
		return false
	}

	workers := min(c.opts.workers(), n)
	evaluated := n
	if workers <= 1 {
		e := c.newEval()
		for i := range n {
			o := search(e, i)
			if reduce(i, &o) {
				evaluated = i + 1
				break
			}
		}
		return joinCandidates(nonViolating, violating), errs, evaluated
	}

	// Workers take visit indices in order; whoever completes the next
	// index in line reduces it, so reduction follows visit order. No
	// worker runs more than workers indices ahead of the next to reduce
	// (it waits instead), so results fit a ring of that size and at most
	// workers-1 nodes past the stop are evaluated for nothing. Once the stop
	// rule fires no index past it is handed out, and results already
	// computed past it are discarded.
	ring := make([]outcome, workers)
	var (
		mu     sync.Mutex
		ahead  = sync.NewCond(&mu)
		cursor int // the next index to reduce
		next   int // the next index to hand out
		limit  = n
		wg     sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		for next < limit && next >= cursor+workers {
			ahead.Wait()
		}
		if next >= limit {
			return 0, false
		}
		next++
		return next - 1, true
	}
	for range workers {
		wg.Go(func() {
			e := c.newEval()
			for {
				i, ok := take()
				if !ok {
					return
				}
				o := search(e, i)
				mu.Lock()
				ring[i%workers] = o
				for !stopped && cursor < next && ring[cursor%workers].done {
					slot := &ring[cursor%workers]
					if reduce(cursor, slot) {
						stopped = true
						evaluated = cursor + 1
						limit = cursor + 1
					}
					*slot = outcome{}
					cursor++
				}
				ahead.Broadcast()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return joinCandidates(nonViolating, violating), errs, evaluated
}

// joinCandidates lists the non-violating candidates, then the violating
// ones; nil when there are none.
func joinCandidates(nonViolating, violating []Candidate) []Candidate {
	if len(nonViolating)+len(violating) == 0 {
		return nil
	}
	return append(nonViolating, violating...)
}

// nodeErrors are the node errors of a dry run without candidates: its text
// is [aggregateMessage]'s and it wraps each of them.
type nodeErrors []error

func (e nodeErrors) Error() string   { return aggregateMessage(e) }
func (e nodeErrors) Unwrap() []error { return e }

// aggregateMessage prints node errors as upstream's utilerrors.NewAggregate
// does: one message alone, otherwise the distinct messages in order, joined
// by ", " inside brackets.
func aggregateMessage(errs []error) string {
	var seen []string
	for _, err := range errs {
		if msg := err.Error(); !slices.Contains(seen, msg) {
			seen = append(seen, msg)
		}
	}
	if len(seen) == 1 {
		return seen[0]
	}
	return "[" + strings.Join(seen, ", ") + "]"
}

// fitErrorMessage is FitError.Error for the preemption failure: a histogram
// of the reasons of the evaluated nodes, the other nodes counted as
// "Preemption is not helpful for scheduling".
func fitErrorMessage(numNodes int, statuses map[string]Status) string {
	counts := map[string]int{}
	for _, st := range statuses {
		for _, reason := range st.Reasons {
			counts[reason]++
		}
	}
	if len(statuses) < numNodes {
		counts[reasonNotHelpful] += numNodes - len(statuses)
	}
	parts := make([]string, 0, len(counts))
	for reason, k := range counts {
		parts = append(parts, fmt.Sprintf("%d %s", k, reason))
	}
	slices.Sort(parts)
	msg := fmt.Sprintf("0/%d nodes are available:", numNodes)
	if len(parts) > 0 {
		msg += " " + strings.Join(parts, ", ") + "."
	}
	return msg
}
