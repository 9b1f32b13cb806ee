package devicetaints

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Options configures the decisions. The zero value is upstream's default.
type Options struct {
	// WorkloadResourceClaims accepts claims made for and reserved to a
	// pod's PodGroup (feature gate DRAWorkloadResourceClaims, beta and off
	// by default in v1.37).
	WorkloadResourceClaims bool
}

// Taint is a device taint and where it comes from: a DeviceTaintRule, or a
// device's own entry in a ResourceSlice.
type Taint struct {
	resourceapi.DeviceTaint
	// Rule and RuleUID name the DeviceTaintRule the taint comes from;
	// empty for a device's own taint.
	Rule    string
	RuleUID types.UID
	// Slice, Device and Index locate a device's own taint: the
	// ResourceSlice, the device and the taint's index in its taints. They
	// are empty for a rule's taint, which may apply to many devices.
	Slice  string
	Device DeviceID
	Index  int
}

// String describes the taint and its origin: `rule "r" k=v:NoExecute` or
// `slice "s" driver/pool/device taint 0 k=v:NoExecute`.
func (t Taint) String() string {
	kv := t.Key
	if t.Value != "" {
		kv += "=" + t.Value
	}
	kv += ":" + string(t.Effect)
	if t.Rule != "" {
		return fmt.Sprintf("rule %q %s", t.Rule, kv)
	}
	return fmt.Sprintf("slice %q %s taint %d %s", t.Slice, t.Device, t.Index, kv)
}

// Decision is the verdict on a claim or a pod: evicted at At, or never.
type Decision struct {
	// Evict is false when no NoExecute taint evicts: none applies, every
	// one is tolerated forever, or none has a TimeAdded (see the package
	// documentation).
	Evict bool
	// At is when the eviction is due: a time not after now means at once.
	// It is the earliest, over the NoExecute taints not tolerated forever,
	// of the taint's TimeAdded plus the smallest tolerationSeconds of the
	// NoExecute tolerations that tolerate it (plus nothing without one).
	At time.Time

	ev *eviction
}

// Taint returns the taint that makes At: the first of [Decision.Taints]
// with that time; the zero Taint when the decision does not evict.
func (d Decision) Taint() Taint {
	if d.ev == nil {
		return Taint{}
	}
	for i := range d.ev.reasons {
		if r := &d.ev.reasons[i]; r.timed && r.at.Equal(d.ev.at) {
			return r.export()
		}
	}
	return Taint{}
}

// Taints returns upstream's reasons for the eviction: every NoExecute
// taint on the devices that is not tolerated forever, rules first by name,
// then devices' own taints by driver, pool, device and index. It is nil
// when the decision does not evict, and a fresh slice on every call.
func (d Decision) Taints() []Taint {
	if d.ev == nil {
		return nil
	}
	out := make([]Taint, len(d.ev.reasons))
	for i := range d.ev.reasons {
		out[i] = d.ev.reasons[i].export()
	}
	return out
}

// Due reports whether the decision evicts at now or earlier.
func (d Decision) Due(now time.Time) bool { return d.Evict && !d.At.After(now) }

// String returns "never" or "evict at <RFC 3339 time> (<Taint>)".
func (d Decision) String() string {
	if !d.Evict {
		return "never"
	}
	return "evict at " + d.At.UTC().Format(time.RFC3339Nano) + " (" + d.Taint().String() + ")"
}

// ruleEntry is one stored rule. A new entry is made each time a rule
// starts to evict or changes, so that its address identifies it as the
// address of the informer's object does upstream.
type ruleEntry struct {
	Rule
}

// reason is one NoExecute taint behind a claim's eviction: a rule's, or a
// device's own (slice, device index, taint index). Its identity is what
// upstream compares when it decides whether a claim's eviction changed;
// at is when the taint alone would evict (timed is false without
// TimeAdded).
type reason struct {
	rule  *ruleEntry
	slice *sliceEntry
	dev   int
	index int
	at    time.Time
	timed bool
}

func (r *reason) same(o *reason) bool {
	return r.rule == o.rule && r.slice == o.slice && r.dev == o.dev && r.index == o.index
}

func (r *reason) taint() *resourceapi.DeviceTaint {
	if r.rule != nil {
		return &r.rule.Taint
	}
	return &r.slice.slice.Spec.Devices[r.dev].Taints[r.index]
}

// compareReasons orders reasons as upstream's trackedTaint.Compare: rules
// first, by name; then devices' own taints by driver, pool, device name
// and taint index; then (where upstream leaves the order open) by slice
// name.
func compareReasons(a, b *reason) int {
	switch {
	case a.rule != nil && b.rule != nil:
		return strings.Compare(a.rule.Name, b.rule.Name)
	case a.rule != nil:
		return -1
	case b.rule != nil:
		return 1
	}
	sa, sb := a.slice.slice, b.slice.slice
	return cmp.Or(
		strings.Compare(sa.Spec.Driver, sb.Spec.Driver),
		strings.Compare(sa.Spec.Pool.Name, sb.Spec.Pool.Name),
		strings.Compare(sa.Spec.Devices[a.dev].Name, sb.Spec.Devices[b.dev].Name),
		cmp.Compare(a.index, b.index),
		strings.Compare(sa.Name, sb.Name),
	)
}

func (r reason) export() Taint {
	if r.rule != nil {
		return Taint{DeviceTaint: r.rule.Taint, Rule: r.rule.Name, RuleUID: r.rule.UID}
	}
	s := r.slice.slice
	return Taint{
		DeviceTaint: s.Spec.Devices[r.dev].Taints[r.index],
		Slice:       s.Name,
		Device:      DeviceID{Driver: s.Spec.Driver, Pool: s.Spec.Pool.Name, Device: s.Spec.Devices[r.dev].Name},
		Index:       r.index,
	}
}

// eviction is a claim's or a pod's eviction: when, and the reasons in
// compareReasons order. nil means none.
type eviction struct {
	at      time.Time
	reasons []reason
	one     [1]reason // reasons' first array, so that one reason takes no allocation of its own
}

// sameEviction is upstream's evictionAndReason.equal: the same time and the
// same reasons by identity. Two nil evictions are not the same, as
// upstream has it (so a change of a rule or slice makes the controller look
// at the pods of every claim without an eviction that it re-decides).
func sameEviction(a, b *eviction) bool {
	if a == nil || b == nil {
		return false
	}
	return a.at.Equal(b.at) && slices.EqualFunc(a.reasons, b.reasons, func(x, y reason) bool { return x.same(&y) })
}

func (e *eviction) decision() Decision {
	if e == nil {
		return Decision{}
	}
	return Decision{Evict: true, At: e.at, ev: e}
}

// maxSeconds is the largest number of seconds a time.Duration holds.
const maxSeconds = math.MaxInt64 / int64(time.Second)

// secondsDuration converts toleration seconds (≥ 0) to a duration,
// saturating where upstream's multiplication wraps around.
func secondsDuration(s int64) time.Duration {
	if s > maxSeconds {
		return math.MaxInt64
	}
	return time.Duration(s) * time.Second
}

// world is what the decisions read: the pools of devices and the rules.
type world struct {
	opts  Options
	pools map[poolKey]*pool
	// evicting are the NoExecute rules by name.
	evicting []*ruleEntry
}

func (w *world) lookup(id DeviceID) (devRef, bool) {
	return w.pools[poolKey{id.Driver, id.Pool}].lookup(id.Device)
}

// setEvicting stores r as an evicting rule, replacing one of the same name.
func (w *world) setEvicting(r *Rule) {
	e := &ruleEntry{Rule: *r}
	i, found := slices.BinarySearchFunc(w.evicting, r.Name, func(e *ruleEntry, name string) int { return strings.Compare(e.Name, name) })
	if found {
		w.evicting[i] = e
		return
	}
	w.evicting = slices.Insert(w.evicting, i, e)
}

// dropEvicting removes the evicting rule called name, if any.
func (w *world) dropEvicting(name string) {
	if i, found := slices.BinarySearchFunc(w.evicting, name, func(e *ruleEntry, name string) int { return strings.Compare(e.Name, name) }); found {
		w.evicting = slices.Delete(w.evicting, i, i+1)
	}
}

// claimEviction decides an allocated claim, as upstream's
// claimEvictionTime, with rules as the evicting rules: for each allocated
// device, its own NoExecute taints and those of the rules that select it.
// A taint that a NoExecute toleration of the device's allocation result
// tolerates without seconds is ignored; any other one is a reason, due at
// its TimeAdded plus the smallest seconds of the NoExecute tolerations that
// tolerate it (negative seconds count as 0). The claim's eviction is the
// earliest due time; reasons without TimeAdded have none (upstream ignores
// them there, or panics when a toleration with seconds matches them).
func (w *world) claimEviction(claim *resourceapi.ResourceClaim, rules []*ruleEntry) *eviction {
	if claim == nil || claim.Status.Allocation == nil {
		return nil
	}
	ev := &eviction{}
	ev.reasons = ev.one[:0]
	timed := false
	consider := func(tols []resourceapi.DeviceToleration, r reason) {
		taint := r.taint()
		secs, tolerated := int64(math.MaxInt64), false
		for i := range tols {
			tol := &tols[i]
			if tol.Effect != resourceapi.DeviceTaintEffectNoExecute || !tolerates(tol, taint) {
				continue
			}
			if tol.TolerationSeconds == nil {
				return // tolerated forever
			}
			secs, tolerated = min(secs, max(*tol.TolerationSeconds, 0)), true
		}
		if taint.TimeAdded != nil {
			r.at, r.timed = taint.TimeAdded.Time, true
			if tolerated {
				r.at = r.at.Add(secondsDuration(secs))
			}
			if !timed || r.at.Before(ev.at) {
				ev.at, timed = r.at, true
			}
		}
		for i := range ev.reasons {
			if old := &ev.reasons[i]; old.same(&r) {
				if r.timed && (!old.timed || r.at.Before(old.at)) {
					old.at, old.timed = r.at, true
				}
				return
			}
		}
		ev.reasons = append(ev.reasons, r)
	}
	results := claim.Status.Allocation.Devices.Results
	for i := range results {
		res := &results[i]
		id := DeviceID{Driver: res.Driver, Pool: res.Pool, Device: res.Device}
		if d, ok := w.lookup(id); ok {
			taints := d.device().Taints
			for j := range taints {
				if taints[j].Effect == resourceapi.DeviceTaintEffectNoExecute {
					consider(res.Tolerations, reason{slice: d.s, dev: d.dev, index: j})
				}
			}
		}
		for _, rule := range rules {
			if rule.Selector.Matches(id) {
				consider(res.Tolerations, reason{rule: rule})
			}
		}
	}
	if !timed {
		return nil
	}
	slices.SortFunc(ev.reasons, func(a, b reason) int { return compareReasons(&a, &b) })
	return ev
}

// podEviction decides a pod, as upstream's podEvictionTime, with claims
// as the allocated claims and their evictions: nothing for a pod not bound
// to a node; otherwise the earliest eviction of the pod's allocated claims
// that were made for it (where that is to be checked) and are reserved for
// it, with the union of their reasons (on a tie in compareReasons order,
// the later claim's reason stays). The result may be one of the claims'
// evictions, shared.
func (w *world) podEviction(pod *v1.Pod, claims map[types.NamespacedName]*claimEntry) *eviction {
	if pod == nil || pod.Spec.NodeName == "" {
		return nil
	}
	var out *eviction
	for i := range pod.Spec.ResourceClaims {
		if name, check, ok := podClaim(pod, i); ok {
			out = w.addClaim(out, pod, claims[keyOf(pod.Namespace, name)], check)
		}
	}
	if st := pod.Status.ExtendedResourceClaimStatus; st != nil && st.ResourceClaimName != "" {
		out = w.addClaim(out, pod, claims[keyOf(pod.Namespace, st.ResourceClaimName)], true)
	}
	return out
}

// addClaim merges the eviction of claim e (nil: none such) into out, if
// the claim counts for the pod.
func (w *world) addClaim(out *eviction, pod *v1.Pod, e *claimEntry, mustCheckOwner bool) *eviction {
	if e == nil || e.ev == nil || (mustCheckOwner && !isForPod(pod, e.claim, w.opts.WorkloadResourceClaims)) ||
		!isReservedForPod(pod, e.claim, w.opts.WorkloadResourceClaims) {
		return out
	}
	ev := e.ev
	if out == nil {
		return ev
	}
	merged := &eviction{at: out.at, reasons: slices.Clone(ev.reasons)}
	if ev.at.Before(merged.at) {
		merged.at = ev.at
	}
	for _, r := range out.reasons {
		i, found := slices.BinarySearchFunc(merged.reasons, r, func(a, b reason) int { return compareReasons(&a, &b) })
		if !found {
			merged.reasons = slices.Insert(merged.reasons, i, r)
		} else if r.timed && (!merged.reasons[i].timed || r.at.Before(merged.reasons[i].at)) {
			merged.reasons[i].at, merged.reasons[i].timed = r.at, true
		}
	}
	return merged
}

// claimEntry is an allocated claim and its eviction.
type claimEntry struct {
	claim *resourceapi.ResourceClaim
	ev    *eviction
	key   types.NamespacedName
}
