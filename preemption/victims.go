package preemption

import (
	"cmp"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
)

// Victims is the outcome of a victim search on one node
// (extenderv1.Victims upstream).
type Victims struct {
	// Pods are the pods to evict, most important first.
	Pods []*v1.Pod
	// NumPDBViolations is the number of victims that upstream counts as
	// violating a PodDisruptionBudget. Like upstream it can exceed the real
	// number: budgets are charged for every potential victim, including
	// those that are later reprieved.
	NumPDBViolations int
}

// SelectVictims finds the pods to evict from node so that preemptor fits,
// as DefaultPreemption.SelectVictimsOnNode does. It reports false when the
// node cannot become a candidate: it has no lower-priority pod that may be
// a victim, or the preemptor does not fit even without all of them.
//
// The search removes every pod of lower priority (equal priority is never
// preempted; terminating pods count like the others), checks that the
// preemptor fits, then adds the pods back one by one, most important first,
// starting with those whose eviction would violate a PodDisruptionBudget;
// a pod that can stay without breaking the fit is reprieved, the others are
// victims. true with no victims means the preemptor fits without evicting
// anything (upstream returns Success there too; [Evaluate] turns it into a
// node error).
//
// Victims come most important first; a pod without status.startTime is
// taken to have started at now. Both sorts are stable, so equally important
// pods are tried in the order of the node's pods in the snapshot, and
// equally important victims keep the order they were found in: those that
// violate a PodDisruptionBudget first, then the others. With at most 12
// potential victims of which at most one per priority lacks a start time,
// and now later than every start time, this is exactly upstream's order (its sort.Slice is an insertion sort
// there); with more potential victims, upstream's order among ties is not
// specified and ours is one it allows.
//
// Two or more equally important pods without a start time are the
// exception. Upstream reads the clock anew at every comparison, so of two
// such pods the one read first counts as started earlier: its insertion sort
// puts the later of them in its input first (reversing snapshot order, and
// in the final sort putting non-violating victims before violating ones),
// as long as successive clock readings differ. Here they tie and keep the
// stable order above, so their order, and which of them is reprieved, may
// differ from upstream's.
//
// Use [SelectVictimsWithStatus] to learn why a node was rejected.
func SelectVictims(preemptor *v1.Pod, node NodeSnapshot, pdbs PDBs, now time.Time, opts Options) (Victims, bool) {
	v, st := SelectVictimsWithStatus(preemptor, node, pdbs, now, opts)
	return v, st.IsSuccess()
}

// SelectVictimsWithStatus is [SelectVictims] returning the status upstream
// returns with it: Success, UnschedulableAndUnresolvable "No preemption
// victims found for incoming pod", the failed fit check, or Error for
// invalid input.
func SelectVictimsWithStatus(preemptor *v1.Pod, node NodeSnapshot, pdbs PDBs, now time.Time, opts Options) (Victims, Status) {
	c, err := newNodeCall(preemptor, &node, pdbs, &opts, now)
	if err != nil {
		return Victims{}, errorStatus(err)
	}
	return c.newEval().selectVictims(&node)
}

// victimKey is the sort key of a potential victim, computed once. It holds
// no pointer, so sorting moves plain words.
type victimKey struct {
	sec   int64 // start time: Unix seconds
	nsec  int32 // and nanoseconds
	idx   int32 // into node.pods; the final tie-break
	prio  int32
	count int32 // violating pods: 1 once classified as violating a PDB, else 0
}

func newVictimKey(idx int, p *podEntry, now time.Time) victimKey {
	t := p.startAt(now)
	return victimKey{sec: t.Unix(), nsec: int32(t.Nanosecond()), idx: int32(idx), prio: p.priority}
}

// selectVictims is the victim search on node.
func (e *nodeEval) selectVictims(node *NodeSnapshot) (Victims, Status) {
	e.reset(node)
	c := e.c
	keys := e.keys[:0]
	for i := range node.pods {
		p := &node.pods[i]
		if p.priority >= c.prio {
			continue
		}
		if f := c.opts.IsEligibleVictim; f != nil && !f(node, p.pod, c.pre) {
			continue
		}
		keys = append(keys, newVictimKey(i, p, c.now))
	}
	e.keys = keys
	if len(keys) == 0 {
		return Victims{}, Status{Code: UnschedulableAndUnresolvable, Reasons: []string{reasonNoVictims}}
	}
	for _, k := range keys {
		e.remove(k.idx)
	}
	if code := e.check(); code != Success {
		return Victims{}, e.failure(code)
	}
	e.sortKeys(keys)

	viol, nonViol := e.viol[:0], e.nonViol[:0]
	if len(c.pdbs.items) == 0 {
		nonViol = append(nonViol, keys...)
	} else {
		c.pdbs.restoreBudgets(e.budgets, e.charged)
		e.charged = e.charged[:0]
		for _, k := range keys {
			if c.pdbs.violates(node.pods[k.idx].pod, e.budgets, &e.charged, &e.cands) {
				k.count = 1
				viol = append(viol, k)
			} else {
				nonViol = append(nonViol, k)
			}
		}
	}
	e.viol, e.nonViol = viol, nonViol

	victims := e.victims[:0]
	violations := 0
	for _, k := range viol {
		if !e.reprieve(k.idx) {
			victims = append(victims, k)
			violations += int(k.count)
		}
	}
	for _, k := range nonViol {
		if !e.reprieve(k.idx) {
			victims = append(victims, k)
		}
	}
	// Like upstream, re-sort only when both groups were tried; otherwise
	// the victims are already in order.
	if len(viol) > 0 && len(nonViol) > 0 {
		e.sortKeys(victims)
	}
	e.victims = victims

	out := Victims{NumPDBViolations: violations}
	if len(victims) > 0 {
		out.Pods = make([]*v1.Pod, len(victims))
		for i, k := range victims {
			out.Pods[i] = node.pods[k.idx].pod
		}
	}
	return out, Status{Code: Success}
}

// reprieve puts pod i back and keeps it there if the preemptor still fits.
func (e *nodeEval) reprieve(i int32) bool {
	e.restore(i)
	if e.check() == Success {
		return true
	}
	e.remove(i)
	return false
}

// sortKeys orders keys most important first, as a stable sort of keys in
// their current order would. It is called on the potential victims, in
// snapshot order with count 0, and on the victims, appended violating first
// (count 1), each group in the order of the first sort. Upstream's sort.Slice
// is an insertion sort up to 12 elements, hence stable: its order there.
func (e *nodeEval) sortKeys(keys []victimKey) {
	if more := e.c.opts.MoreImportant; more != nil {
		// A stable sort: up to 12 keys it is the same insertion sort as
		// upstream's, so even a comparator that is not a strict weak
		// order gives upstream's result.
		pods := e.node.pods
		slices.SortStableFunc(keys, func(a, b victimKey) int {
			pa, pb := pods[a.idx].pod, pods[b.idx].pod
			switch {
			case more(pa, pb):
				return -1
			case more(pb, pa):
				return 1
			}
			return 0
		})
		return
	}
	slices.SortFunc(keys, compareImportance)
}

// compareImportance is MoreImportantVictim for single pods (higher priority
// first, then the earlier start time) made a strict total order whose ties
// fall as a stable sort's would in sortKeys' two calls: violating pods
// first, then snapshot order. Being total, it needs no stable algorithm.
func compareImportance(a, b victimKey) int {
	if a.prio != b.prio {
		return cmp.Compare(b.prio, a.prio)
	}
	if a.sec != b.sec {
		return cmp.Compare(a.sec, b.sec)
	}
	if a.nsec != b.nsec {
		return cmp.Compare(a.nsec, b.nsec)
	}
	if a.count != b.count {
		return cmp.Compare(b.count, a.count)
	}
	return cmp.Compare(a.idx, b.idx)
}
