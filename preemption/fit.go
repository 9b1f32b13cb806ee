package preemption

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/podresources"
)

// Filter is an extra fit check, run after the resource check each time the
// package asks whether the preemptor fits a node (see [Options.Filters]). It
// returns fits false to reject the node as [Unschedulable], with the reason
// the node's [Status] reports, worded as the scheduler plugin it stands for
// words it (e.g. "node(s) didn't match pod anti-affinity rules"); an empty
// reason reads "rejected by filter i", i its index in Options.Filters. The
// reason of a fitting node is ignored. remaining describes
// the node as it is at that moment: pods already removed as victims are
// gone, and during the first of the two passes the nominated pods of equal or
// higher priority are present. remaining is valid only during the call.
type Filter func(preemptor *v1.Pod, node *v1.Node, remaining Remaining) (fits bool, reason string)

// Remaining is what a [Filter] sees of a node in the middle of a victim
// search. Its zero value describes an empty node.
type Remaining struct {
	e         *nodeEval
	nominated bool
}

// NumPods returns the number of pods counted on the node.
func (r Remaining) NumPods() int {
	if r.e == nil {
		return 0
	}
	n := r.e.count
	if r.nominated {
		n += r.e.nom.count
	}
	return n
}

// Pods yields the pods counted on the node: the bound pods that are not
// currently removed, then the nominated pods that take part in this pass.
func (r Remaining) Pods() iter.Seq[*v1.Pod] {
	return func(yield func(*v1.Pod) bool) {
		if r.e == nil {
			return
		}
		for i := range r.e.node.pods {
			if !r.e.removed[i] && !yield(r.e.node.pods[i].pod) {
				return
			}
		}
		if !r.nominated {
			return
		}
		for _, i := range r.e.nomIdx {
			if !yield(r.e.node.nominated[i].pod) {
				return
			}
		}
	}
}

// Free returns allocatable minus what the counted pods are charged for
// resource name, in the units of [Resources] ("pods" gives the free pod
// slots). The result is negative on an over-committed node.
func (r Remaining) Free(name v1.ResourceName) int64 {
	e := r.e
	if e == nil {
		return 0
	}
	switch name {
	case v1.ResourcePods:
		return int64(e.node.allowedPods - r.NumPods())
	case v1.ResourceCPU:
		return e.node.alloc.cpu - e.used(r.nominated).cpu
	case v1.ResourceMemory:
		return e.node.alloc.mem - e.used(r.nominated).mem
	case v1.ResourceEphemeralStorage:
		return e.node.alloc.eph - e.used(r.nominated).eph
	}
	used := int64(0)
	for i := range e.node.pods {
		if !e.removed[i] {
			used += scalarValue(e.node.pods[i].req.scalars, name)
		}
	}
	if r.nominated {
		for _, i := range e.nomIdx {
			used += scalarValue(e.node.nominated[i].req.scalars, name)
		}
	}
	return scalarValue(e.node.alloc.scalars, name) - used
}

// CheckFit runs the fit check the scheduler runs for preemptor on the
// unmodified node: NodeResourcesFit and opts.Filters, first with the
// nominated pods of equal or higher priority added and then, if that passes
// and some were added, without them. Its result is what [Evaluate] uses as
// the prior status of a node when [Options.PriorStatus] is nil.
func CheckFit(preemptor *v1.Pod, node NodeSnapshot, opts Options) Status {
	c, err := newNodeCall(preemptor, &node, PDBs{}, &opts, time.Time{})
	if err != nil {
		return errorStatus(err)
	}
	e := c.newEval()
	e.reset(&node)
	return e.checkStatus()
}

// call holds what one decision computes once and shares, read-only, between
// node evaluations.
type call struct {
	pre     *v1.Pod
	prio    int32
	req     vector
	checked []checkedScalar // scalars the resource check looks at
	opts    *Options
	now     time.Time
	pdbs    PDBs
}

type checkedScalar struct {
	name v1.ResourceName
	req  int64
}

func newCall(pre *v1.Pod, pdbs PDBs, opts *Options, now time.Time) (*call, error) {
	if pre == nil {
		return nil, fmt.Errorf("preemption: nil preemptor: %w", ErrInvalidInput)
	}
	c := &call{
		pre:  pre,
		prio: podresources.Priority(pre),
		req:  preemptorVector(pre),
		opts: opts,
		now:  now,
		pdbs: pdbs,
	}
	for _, s := range c.req.scalars {
		if s.value > 0 && !ignored(s.name, opts) {
			c.checked = append(c.checked, checkedScalar{s.name, s.value})
		}
	}
	return c, nil
}

// newNodeCall is newCall for the single-node entry points, which also
// reject the zero NodeSnapshot.
func newNodeCall(pre *v1.Pod, node *NodeSnapshot, pdbs PDBs, opts *Options, now time.Time) (*call, error) {
	c, err := newCall(pre, pdbs, opts, now)
	if err == nil && node.node == nil {
		err = fmt.Errorf("preemption: zero NodeSnapshot: %w", ErrInvalidInput)
	}
	return c, err
}

// errorStatus reports err as an [Error] status.
func errorStatus(err error) Status {
	return Status{Code: Error, Reasons: []string{err.Error()}}
}

// ignored reports whether the resource check skips an extended resource.
func ignored(name v1.ResourceName, opts *Options) bool {
	if !isExtendedName(name) {
		return false
	}
	if slices.Contains(opts.IgnoredResources, string(name)) {
		return true
	}
	prefix, _, _ := strings.Cut(string(name), "/")
	return slices.Contains(opts.IgnoredResourceGroups, prefix)
}

// usage is what the counted pods are charged, restricted to the scalars the
// resource check looks at.
type usage struct {
	cpu, mem, eph int64
	count         int
	scalars       []int64 // parallel to call.checked
}

// nodeEval is the scratch state of one node evaluation. A worker reuses one
// for every node it evaluates, so a victim search allocates only its output.
type nodeEval struct {
	c    *call
	node *NodeSnapshot
	snap NodeSnapshot // the node last loaded from a NodeSource

	removed []bool  // parallel to node.pods
	usage           // bound pods that are not removed
	alloc   []int64 // allocatable of call.checked
	nomIdx  []int   // nominated pods of priority ≥ the preemptor's, not the preemptor
	nom     usage   // what nomIdx are charged

	// Where the last failed check failed: a filter index and its reason,
	// or -1 for the resource check, and in which pass.
	lastFilter int
	lastReason string
	lastNom    bool

	keys    []victimKey
	viol    []victimKey
	nonViol []victimKey
	victims []victimKey
	budgets []int32 // every PDB's budget left, disruptionsAllowed but for charged
	charged []int32 // the budgets charged on the last node, to restore
	cands   []int32 // scratch for PDBs.candidates
	sum     usage   // scratch for used(true)
}

func (c *call) newEval() *nodeEval {
	k := len(c.checked)
	e := &nodeEval{
		c:       c,
		alloc:   make([]int64, k),
		usage:   usage{scalars: make([]int64, k)},
		nom:     usage{scalars: make([]int64, k)},
		sum:     usage{scalars: make([]int64, k)},
		budgets: make([]int32, len(c.pdbs.items)),
	}
	c.pdbs.fillBudgets(e.budgets)
	return e
}

// reset loads node with all its bound pods present.
func (e *nodeEval) reset(node *NodeSnapshot) {
	e.node = node
	n := len(node.pods)
	e.removed = slices.Grow(e.removed[:0], n)[:n]
	clear(e.removed)
	if cap(e.keys) < n {
		e.keys = make([]victimKey, 0, n)
		e.viol = make([]victimKey, 0, n)
		e.nonViol = make([]victimKey, 0, n)
		e.victims = make([]victimKey, 0, n)
	}
	e.cpu, e.mem, e.eph = node.requested.cpu, node.requested.mem, node.requested.eph
	e.count = len(node.pods)
	for i, s := range e.c.checked {
		e.alloc[i] = scalarValue(node.alloc.scalars, s.name)
		e.scalars[i] = scalarValue(node.requested.scalars, s.name)
	}
	e.nomIdx = e.nomIdx[:0]
	e.nom.cpu, e.nom.mem, e.nom.eph, e.nom.count = 0, 0, 0, 0
	clear(e.nom.scalars)
	for i := range node.nominated {
		n := &node.nominated[i]
		if n.priority < e.c.prio || n.pod.UID == e.c.pre.UID {
			continue
		}
		e.nomIdx = append(e.nomIdx, i)
		e.nom.add(n, e.c.checked, 1)
	}
}

func (u *usage) add(p *podEntry, checked []checkedScalar, sign int64) {
	u.cpu += sign * p.req.cpu
	u.mem += sign * p.req.mem
	u.eph += sign * p.req.eph
	u.count += int(sign)
	if len(checked) == 0 {
		return
	}
	for _, s := range p.req.scalars {
		for j := range checked {
			if checked[j].name == s.name {
				u.scalars[j] += sign * s.value
				break
			}
		}
	}
}

func (e *nodeEval) remove(i int32) {
	e.removed[i] = true
	e.usage.add(&e.node.pods[i], e.c.checked, -1)
}

func (e *nodeEval) restore(i int32) {
	e.removed[i] = false
	e.usage.add(&e.node.pods[i], e.c.checked, 1)
}

// used returns the charged usage, with the nominated pods when nominated.
func (e *nodeEval) used(nominated bool) *usage {
	if !nominated {
		return &e.usage
	}
	s := &e.sum
	s.cpu, s.mem, s.eph, s.count = e.cpu+e.nom.cpu, e.mem+e.nom.mem, e.eph+e.nom.eph, e.count+e.nom.count
	for i := range s.scalars {
		s.scalars[i] = e.scalars[i] + e.nom.scalars[i]
	}
	return s
}

// check runs the fit check on the current state of the node
// (RunFilterPluginsWithNominatedPods with NodeResourcesFit and the filters).
func (e *nodeEval) check() Code {
	if len(e.nomIdx) > 0 {
		if code := e.pass(true); code != Success {
			return code
		}
	}
	return e.pass(false)
}

func (e *nodeEval) pass(nominated bool) Code {
	e.lastFilter, e.lastNom = -1, nominated
	if code := e.resourceFit(e.used(nominated), nil); code != Success {
		return code
	}
	for i, f := range e.c.opts.Filters {
		if fits, reason := f(e.c.pre, e.node.node, Remaining{e: e, nominated: nominated}); !fits {
			e.lastFilter, e.lastReason = i, reason
			return Unschedulable
		}
	}
	return Success
}

// checkStatus is check with the reasons of a failure spelled out.
func (e *nodeEval) checkStatus() Status {
	code := e.check()
	if code == Success {
		return Status{Code: Success}
	}
	return e.failure(code)
}

// failure describes the last failed check.
func (e *nodeEval) failure(code Code) Status {
	if e.lastFilter >= 0 {
		reason := e.lastReason
		if reason == "" {
			reason = fmt.Sprintf("rejected by filter %d", e.lastFilter)
		}
		return Status{Code: code, Reasons: []string{reason}}
	}
	var reasons []string
	e.resourceFit(e.used(e.lastNom), &reasons)
	return Status{Code: code, Reasons: reasons}
}

// resourceFit is the NodeResourcesFit filter: every failing item makes the
// node Unschedulable, and UnschedulableAndUnresolvable when the request
// exceeds what the node has in total. With reasons nil it stops at the first
// unresolvable item; otherwise it appends every failing item to *reasons, in
// upstream's order (scalars by name, where upstream follows map order).
func (e *nodeEval) resourceFit(u *usage, reasons *[]string) Code {
	code := Success
	if u.count+1 > e.node.allowedPods {
		code = Unschedulable
		if reasons != nil {
			*reasons = append(*reasons, reasonTooManyPods)
		}
	}
	for i := range 3 + len(e.c.checked) {
		req, alloc, used, name := e.resourceItem(u, i)
		if req <= 0 || req <= alloc-used {
			continue
		}
		if req > alloc {
			code = UnschedulableAndUnresolvable
			if reasons == nil {
				return code
			}
		} else if code == Success {
			code = Unschedulable
		}
		if reasons != nil {
			*reasons = append(*reasons, "Insufficient "+string(name))
		}
	}
	return code
}

// resourceItem returns the i-th item of the resource check: cpu, memory,
// ephemeral-storage, then the checked scalars.
func (e *nodeEval) resourceItem(u *usage, i int) (req, alloc, used int64, name v1.ResourceName) {
	r, a := &e.c.req, &e.node.alloc
	switch i {
	case 0:
		return r.cpu, a.cpu, u.cpu, v1.ResourceCPU
	case 1:
		return r.mem, a.mem, u.mem, v1.ResourceMemory
	case 2:
		return r.eph, a.eph, u.eph, v1.ResourceEphemeralStorage
	}
	s := &e.c.checked[i-3]
	return s.req, e.alloc[i-3], u.scalars[i-3], s.name
}
