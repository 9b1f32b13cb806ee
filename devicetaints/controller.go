package devicetaints

import (
	"cmp"
	"container/heap"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/events"
)

// Controller is the device-taint eviction controller's core: the objects
// its informers deliver go in through the handlers, and [Controller.Step]
// says, for a given now, which pods to evict, which rule statuses to write
// and when to call it next. It holds no clock, starts no goroutine and is
// not safe for concurrent use: an adapter calls it under one lock. It keeps
// (and never modifies) the objects it is given, as an informer cache does;
// do not modify them afterwards.
//
// Handlers record work whose delay counts from the next Step: call Step
// after every handler call (or batch of them) and after every report
// ([Controller.Evicted], [Controller.Retry], [Controller.RetryStatus]).
type Controller struct {
	w      world
	pods   map[types.NamespacedName]*podEntry
	groups map[types.NamespacedName]map[string]struct{} // PodGroup → its pods' names (WorkloadResourceClaims only)
	claims map[types.NamespacedName]*claimEntry         // the allocated claims
	order  []*claimEntry                                // the allocated claims by namespace and name; nil when stale
	rules  map[string]*Rule                             // every rule, as the rule lister holds them
	stats  map[types.UID]int64                          // rule UID → pods evicted for it since the start

	due      schedHeap              // the scheduled evictions that are neither running nor done
	running  map[types.UID]struct{} // pods whose eviction Step handed out and that is not reported yet
	evicted  map[types.UID]struct{} // pods evicted (until their deletion)
	work     map[ruleRef]*ruleWork
	pending  []pendingRule
	events   []events.Event
	scratchR []ruleRef
}

// podEntry is what the controller holds for a pod name: the pod, as the
// pod cache holds it (nil once deleted), and its scheduled evictions by
// UID (upstream's deletePodAt), rarely more than one.
type podEntry struct {
	pod   *v1.Pod
	sched []*scheduled
}

// find returns the scheduled eviction of the pod with uid, if any.
func (e *podEntry) find(uid types.UID) (*scheduled, int) {
	for i, s := range e.sched {
		if s.ref.uid == uid {
			return s, i
		}
	}
	return nil, -1
}

type podRef struct {
	ns, name string
	uid      types.UID
}

// scheduled is a pod's pending eviction.
type scheduled struct {
	ref podRef
	ev  *eviction
	// due is when to hand it out: ev.at, or a retry time after a failure.
	due time.Time
	// redecided: the pod was decided again while its eviction ran.
	redecided bool
	idx       int // in Controller.due, -1 if not there
}

type ruleRef struct {
	name string
	uid  types.UID
}

// ruleWork is a rule's pending status check, as upstream's work queue holds
// it: ready now, and/or waiting until a time (the earliest asked for).
type ruleWork struct {
	ready bool
	wait  time.Time
}

type pendingRule struct {
	ref   ruleRef
	after time.Duration
}

// NewController returns a controller with empty caches.
func NewController(opts Options) *Controller {
	return &Controller{
		w:       world{opts: opts, pools: make(map[poolKey]*pool)},
		pods:    make(map[types.NamespacedName]*podEntry),
		groups:  make(map[types.NamespacedName]map[string]struct{}),
		claims:  make(map[types.NamespacedName]*claimEntry),
		rules:   make(map[string]*Rule),
		stats:   make(map[types.UID]int64),
		running: make(map[types.UID]struct{}),
		evicted: make(map[types.UID]struct{}),
		work:    make(map[ruleRef]*ruleWork),
	}
}

// Eviction is a pod to evict now. The adapter gets the pod; if it is gone
// or has another UID, it reports [Controller.Evicted] with counted false;
// if it is being deleted already, counted true; otherwise it records
// [Marking], writes [DisruptedStatus] if that changes the status, deletes
// the pod with a UID precondition and reports counted true (not found:
// false), or [Controller.Retry] on an error.
type Eviction struct {
	// Pod and UID identify the pod.
	Pod types.NamespacedName
	UID types.UID
	// At is when the eviction was due (upstream measures its deletion
	// latency from it).
	At time.Time
	// Taint is the taint that made it due at At; Taints are all of
	// upstream's reasons (see [Decision.Taints]).
	Taint  Taint
	Taints []Taint
}

// RuleStatus is a DeviceTaintRule status write: the EvictionInProgress
// condition to apply (server-side apply of status.conditions with the
// rule's UID, forced, as field manager [DefaultName] or the controller's
// name). On failure, report [Controller.RetryStatus].
type RuleStatus struct {
	Rule      string
	UID       types.UID
	Condition metav1.Condition
}

// Result is what one Step decided.
type Result struct {
	// Statuses are the rule status writes, by rule name. They are
	// computed before the evictions of the same Step are handed out.
	Statuses []RuleStatus
	// Evictions are the pods to evict now, by due time, namespace and
	// name.
	Evictions []Eviction
	// Events are the [Cancelling] events recorded by the handlers since
	// the last Step, in order.
	Events []events.Event
	// Next is when to call Step again at the latest (unless a handler or
	// a report comes first); zero if nothing is scheduled.
	Next time.Time
}

// Decision returns what the controller decides for pod with the objects it
// holds: the same as a [Snapshot] of them would.
func (c *Controller) Decision(pod *v1.Pod) Decision { return c.podEviction(pod).decision() }

func (c *Controller) podEviction(pod *v1.Pod) *eviction { return c.w.podEviction(pod, c.claims) }

func keyOf(ns, name string) types.NamespacedName {
	return types.NamespacedName{Namespace: ns, Name: name}
}

// PodChanged handles a pod added (old nil), updated, or deleted (pod nil;
// old is the last state known, from a tombstone if need be). An update
// that changes neither the pod's node nor its claim statuses changes
// nothing.
func (c *Controller) PodChanged(old, pod *v1.Pod) {
	if pod == nil {
		if old == nil {
			return
		}
		e := c.storePod(old, nil)
		c.cancel(e, old.UID, false)
		if e.pod == nil && len(e.sched) == 0 {
			delete(c.pods, keyOf(old.Namespace, old.Name))
		}
		delete(c.evicted, old.UID)
		return
	}
	e := c.storePod(old, pod)
	if old != nil && claimsUnchanged(old, pod) {
		return
	}
	c.handlePod(e)
}

// storePod keeps the pod cache (and its PodGroup index) as an informer
// would, and returns the pod's entry.
func (c *Controller) storePod(old, pod *v1.Pod) *podEntry {
	if old != nil {
		if g, ok := podGroup(old); ok {
			k := keyOf(old.Namespace, g)
			delete(c.groups[k], old.Name)
			if len(c.groups[k]) == 0 {
				delete(c.groups, k)
			}
		}
	}
	p := pod
	if p == nil {
		p = old
	}
	k := keyOf(p.Namespace, p.Name)
	e := c.pods[k]
	if e == nil {
		e = &podEntry{}
		c.pods[k] = e
	}
	e.pod = pod
	if pod == nil {
		return e
	}
	if g, ok := podGroup(pod); ok && c.w.opts.WorkloadResourceClaims {
		k := keyOf(pod.Namespace, g)
		if c.groups[k] == nil {
			c.groups[k] = make(map[string]struct{})
		}
		c.groups[k][pod.Name] = struct{}{}
	}
	return e
}

// ClaimChanged handles a ResourceClaim added (old nil), updated, or deleted
// (claim nil).
func (c *Controller) ClaimChanged(old, claim *resourceapi.ResourceClaim) {
	switch {
	case old == nil && claim == nil:
		return
	case claim == nil:
		c.setClaim(old, nil)
		c.handlePods(old)
		return
	case old == nil:
		if claim.Status.Allocation == nil {
			return
		}
		c.setClaim(claim, &claimEntry{claim: claim, ev: c.w.claimEviction(claim, c.w.evicting)})
		c.handlePods(claim)
		return
	case old.UID != claim.UID:
		c.ClaimChanged(old, nil)
		c.ClaimChanged(nil, claim)
		return
	}
	switch before, after := old.Status.Allocation != nil, claim.Status.Allocation != nil; {
	case !before && after:
		c.setClaim(claim, &claimEntry{claim: claim, ev: c.w.claimEviction(claim, c.w.evicting)})
	case before && !after:
		c.setClaim(claim, nil)
	case after:
		// An allocation never changes: keep its eviction.
		if e := c.claims[keyOf(claim.Namespace, claim.Name)]; e != nil {
			e.claim = claim
		} else {
			c.setClaim(claim, &claimEntry{claim: claim})
		}
	default:
		return
	}
	if !slices.Equal(old.Status.ReservedFor, claim.Status.ReservedFor) {
		c.handlePods(old)
	}
	c.handlePods(claim)
}

// setClaim stores e as claim's entry, or drops it if e is nil.
func (c *Controller) setClaim(claim *resourceapi.ResourceClaim, e *claimEntry) {
	k := keyOf(claim.Namespace, claim.Name)
	if e == nil {
		if _, ok := c.claims[k]; ok {
			delete(c.claims, k)
			c.order = nil
		}
		return
	}
	e.key = k
	c.claims[k] = e
	c.order = nil
}

// sortedClaims returns the allocated claims in order: upstream re-decides
// claims in map order; here in namespace and name order.
func (c *Controller) sortedClaims() []*claimEntry {
	if c.order == nil {
		c.order = make([]*claimEntry, 0, len(c.claims))
		for _, e := range c.claims {
			c.order = append(c.order, e)
		}
		slices.SortFunc(c.order, func(a, b *claimEntry) int {
			return cmp.Or(strings.Compare(a.key.Namespace, b.key.Namespace), strings.Compare(a.key.Name, b.key.Name))
		})
	}
	return c.order
}

// SliceChanged handles a ResourceSlice added (old nil), updated, or
// deleted (slice nil). The claims that use a device whose NoExecute taints
// changed (as upstream finds them) are decided again, and their pods if
// that changes the claim's eviction.
func (c *Controller) SliceChanged(old, slice *resourceapi.ResourceSlice) {
	s := slice
	if s == nil {
		s = old
	}
	if s == nil {
		return
	}
	k := poolKey{s.Spec.Driver, s.Spec.Pool.Name}
	p := c.w.pools[k]
	if p == nil {
		p = &pool{}
	}
	before := p.noExecuteTaints()
	p.remove(old)
	p.add(slice)
	if len(p.slices) == 0 {
		delete(c.w.pools, k)
	} else {
		c.w.pools[k] = p
	}
	after := p.noExecuteTaints()
	if len(before) == 0 && len(after) == 0 {
		return
	}
	mod := modifiedDevices(before, after)
	for _, e := range c.sortedClaims() {
		if !usesDevice(e.claim, k, mod) {
			continue
		}
		ev := c.w.claimEviction(e.claim, c.w.evicting)
		if sameEviction(ev, e.ev) {
			continue
		}
		e.ev = ev
		c.handlePods(e.claim)
	}
}

func usesDevice(claim *resourceapi.ResourceClaim, k poolKey, mod map[string]struct{}) bool {
	for i := range claim.Status.Allocation.Devices.Results {
		r := &claim.Status.Allocation.Devices.Results[i]
		if r.Pool != k.pool || r.Driver != k.driver {
			continue
		}
		if _, ok := mod[r.Device]; ok {
			return true
		}
	}
	return false
}

// RuleChanged handles a DeviceTaintRule added (old nil), updated, or
// deleted (rule nil). A new rule, or a change of its spec, asks for a
// status update at once; every allocated claim is decided again, and the
// pods of those whose eviction changed (or that have none).
func (c *Controller) RuleChanged(old, rule *Rule) {
	if rule != nil {
		c.rules[rule.Name] = rule
	} else if old != nil {
		delete(c.rules, old.Name)
	}
	switch {
	case old == nil && rule == nil:
		return
	case old == nil:
		c.ask(ruleRef{rule.Name, rule.UID}, 0)
	case rule == nil:
		delete(c.stats, old.UID)
		c.w.dropEvicting(old.Name)
	case old.UID == rule.UID:
		if sameSpec(old, rule) {
			return
		}
		c.ask(ruleRef{rule.Name, rule.UID}, 0)
	}
	if old != nil && old.Taint.Effect == resourceapi.DeviceTaintEffectNoExecute {
		c.w.dropEvicting(old.Name)
	}
	if rule != nil && rule.Taint.Effect == resourceapi.DeviceTaintEffectNoExecute {
		c.w.setEvicting(rule)
	}
	for _, e := range c.sortedClaims() {
		ev := c.w.claimEviction(e.claim, c.w.evicting)
		same := sameEviction(ev, e.ev)
		e.ev = ev
		if !same {
			c.handlePods(e.claim)
		}
	}
}

// handlePods decides the pods a claim is reserved for: pods by name and
// UID, and (with WorkloadResourceClaims) every pod of a PodGroup, by name.
func (c *Controller) handlePods(claim *resourceapi.ResourceClaim) {
	for _, r := range claim.Status.ReservedFor {
		switch {
		case r.APIGroup == "" && r.Resource == "pods":
			if e := c.pods[keyOf(claim.Namespace, r.Name)]; e != nil && e.pod != nil && e.pod.UID == r.UID {
				c.handlePod(e)
			}
		case r.APIGroup == schedulingGroup && r.Resource == "podgroups" && c.w.opts.WorkloadResourceClaims:
			members := c.groups[keyOf(claim.Namespace, r.Name)]
			names := make([]string, 0, len(members))
			for n := range members {
				names = append(names, n)
			}
			slices.Sort(names)
			for _, n := range names {
				if e := c.pods[keyOf(claim.Namespace, n)]; e != nil && e.pod != nil {
					c.handlePod(e)
				}
			}
		}
	}
}

// handlePod decides a pod: cancel its eviction (with an event if there was
// one), or schedule it and ask for a status update of each rule behind it
// in RuleStatusPeriod.
func (c *Controller) handlePod(e *podEntry) {
	pod := e.pod
	ev := c.podEviction(pod)
	if ev == nil {
		c.cancel(e, pod.UID, true)
		return
	}
	s, _ := e.find(pod.UID)
	if s == nil {
		s = &scheduled{ref: podRef{ns: pod.Namespace, name: pod.Name, uid: pod.UID}, idx: -1}
		e.sched = append(e.sched, s)
	}
	s.ev, s.due = ev, ev.at
	running, done := c.has(c.running, pod.UID), c.has(c.evicted, pod.UID)
	switch {
	case running:
		s.redecided = true
	case done:
		// Upstream keeps the entry (so that a later cancellation records
		// an event) but never acts on it.
	case s.idx >= 0:
		heap.Fix(&c.due, s.idx)
	default:
		heap.Push(&c.due, s)
	}
	for i := range ev.reasons {
		if r := ev.reasons[i].rule; r != nil {
			c.ask(ruleRef{r.Name, r.UID}, RuleStatusPeriod)
		}
	}
}

// ask records a status check of rule ref, due after the given delay from
// the next Step (0: at once). A repeat of the last request is dropped: a
// rule change re-decides many pods one after the other.
func (c *Controller) ask(ref ruleRef, after time.Duration) {
	if n := len(c.pending); n > 0 && c.pending[n-1] == (pendingRule{ref, after}) {
		return
	}
	c.pending = append(c.pending, pendingRule{ref: ref, after: after})
}

// has reports whether set holds uid, without hashing when set is empty.
func (c *Controller) has(set map[types.UID]struct{}, uid types.UID) bool {
	if len(set) == 0 {
		return false
	}
	_, ok := set[uid]
	return ok
}

// cancel drops the scheduled eviction of the pod with uid and reports
// whether there was one; with event, it records [Cancelling] then.
func (c *Controller) cancel(e *podEntry, uid types.UID, event bool) bool {
	s, i := e.find(uid)
	if s == nil {
		return false
	}
	if s.idx >= 0 {
		heap.Remove(&c.due, s.idx)
	}
	e.sched = slices.Delete(e.sched, i, i+1)
	if event {
		c.events = append(c.events, Cancelling(keyOf(s.ref.ns, s.ref.name), uid))
	}
	return true
}

// Step does the work due at now: the status checks of rules (each writes
// the rule's condition if it changed, unless the condition was written
// less than [RuleStatusPeriod] ago for the rule's generation, in which
// case the check waits), then the evictions due. An eviction handed out is
// not handed out again until it is reported.
func (c *Controller) Step(now time.Time) Result {
	var res Result
	for _, p := range c.pending {
		w := c.workFor(p.ref)
		if p.after <= 0 {
			w.ready = true
		} else {
			w.waitUntil(now.Add(p.after))
		}
	}
	c.pending = c.pending[:0]

	refs := c.scratchR[:0]
	for ref, w := range c.work {
		if !w.wait.IsZero() && !w.wait.After(now) {
			w.ready, w.wait = true, time.Time{}
		}
		if w.ready {
			refs = append(refs, ref)
		}
	}
	slices.SortFunc(refs, func(a, b ruleRef) int {
		return cmp.Or(strings.Compare(a.name, b.name), strings.Compare(string(a.uid), string(b.uid)))
	})
	for _, ref := range refs {
		w := c.work[ref]
		w.ready = false
		st, again := c.ruleStatus(ref, now)
		if st != nil {
			res.Statuses = append(res.Statuses, *st)
		}
		if !again.IsZero() {
			w.waitUntil(again)
		}
		if w.wait.IsZero() {
			delete(c.work, ref)
		}
	}
	c.scratchR = refs[:0]

	for c.due.Len() > 0 && !c.due[0].due.After(now) {
		s := c.due[0]
		if s.ev.at.After(now) {
			s.due = s.ev.at
			heap.Fix(&c.due, 0)
			continue
		}
		heap.Pop(&c.due)
		c.running[s.ref.uid] = struct{}{}
		d := s.ev.decision()
		res.Evictions = append(res.Evictions, Eviction{Pod: keyOf(s.ref.ns, s.ref.name), UID: s.ref.uid, At: s.ev.at, Taint: d.Taint(), Taints: d.Taints()})
	}

	res.Events, c.events = c.events, nil
	res.Next = c.next()
	return res
}

func (c *Controller) workFor(ref ruleRef) *ruleWork {
	w := c.work[ref]
	if w == nil {
		w = &ruleWork{}
		c.work[ref] = w
	}
	return w
}

func (w *ruleWork) waitUntil(t time.Time) {
	if w.wait.IsZero() || t.Before(w.wait) {
		w.wait = t
	}
}

func (c *Controller) next() time.Time {
	var next time.Time
	if c.due.Len() > 0 {
		next = c.due[0].due
	}
	for _, w := range c.work {
		if !w.wait.IsZero() && (next.IsZero() || w.wait.Before(next)) {
			next = w.wait
		}
	}
	return next
}

// Evicted reports that an eviction Step handed out is over: the pod was
// deleted or was being deleted already (counted: it counts for the rules
// behind it, whose status is checked again in [RuleStatusPeriod]), or it
// was not found or had another UID (not counted). Either way the pod is
// not evicted again.
func (c *Controller) Evicted(e Eviction, counted bool) {
	delete(c.running, e.UID)
	if pe := c.pods[e.Pod]; pe != nil {
		c.cancel(pe, e.UID, false)
		if pe.pod != nil && pe.pod.UID == e.UID {
			c.evicted[e.UID] = struct{}{}
		} else if pe.pod == nil && len(pe.sched) == 0 {
			delete(c.pods, e.Pod)
		}
	}
	if !counted {
		return
	}
	for _, t := range e.Taints {
		if t.Rule != "" {
			c.stats[t.RuleUID]++
			c.ask(ruleRef{t.Rule, t.RuleUID}, RuleStatusPeriod)
		}
	}
}

// Retry reports that an eviction Step handed out failed: it is handed out
// again at the given time, or at once if the pod was decided again
// meanwhile (upstream's rate-limited requeue), unless it is cancelled
// first. The adapter picks the time (upstream: client-go's default
// controller rate limiter).
func (c *Controller) Retry(e Eviction, at time.Time) {
	delete(c.running, e.UID)
	pe := c.pods[e.Pod]
	if pe == nil {
		return
	}
	s, _ := pe.find(e.UID)
	if s == nil || s.idx >= 0 || c.has(c.evicted, e.UID) {
		return
	}
	if s.redecided {
		s.due = s.ev.at
	} else {
		s.due = at
	}
	s.redecided = false
	heap.Push(&c.due, s)
}

// RetryStatus reports that a status write failed: the rule is checked
// again at the given time (or earlier if something else asks for it).
func (c *Controller) RetryStatus(s RuleStatus, at time.Time) {
	c.workFor(ruleRef{s.Rule, s.UID}).waitUntil(at)
}

// schedHeap orders scheduled evictions by due time, namespace, name, UID.
type schedHeap []*scheduled

func (h schedHeap) Len() int { return len(h) }
func (h schedHeap) Less(i, j int) bool {
	a, b := h[i], h[j]
	if !a.due.Equal(b.due) {
		return a.due.Before(b.due)
	}
	return cmp.Or(strings.Compare(a.ref.ns, b.ref.ns), strings.Compare(a.ref.name, b.ref.name), strings.Compare(string(a.ref.uid), string(b.ref.uid))) < 0
}
func (h schedHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx, h[j].idx = i, j
}
func (h *schedHeap) Push(x any) {
	s := x.(*scheduled)
	s.idx = len(*h)
	*h = append(*h, s)
}
func (h *schedHeap) Pop() any {
	old := *h
	s := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	s.idx = -1
	return s
}
