package devicetaints

import (
	"cmp"
	"slices"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Snapshot holds ResourceSlices, allocated ResourceClaims and
// DeviceTaintRules at one moment and answers, for any pod, claim or
// device, what the eviction controller would decide with exactly these
// objects in its caches. It is read-only once made, so safe for concurrent
// use; it keeps (and never modifies) the objects it is given.
type Snapshot struct {
	w      world
	rules  []*ruleEntry // every rule, by name
	claims map[types.NamespacedName]*claimEntry
}

// NewSnapshot indexes resourceSlices, claims and rules. Later entries replace
// earlier ones of the same name (a slice's pool comes from the slice, so
// two slices of one name in different pools are both kept, as upstream's
// controller keeps them). Claims without an allocation are left out: a pod
// that uses one is not evicted for it. Nil entries are skipped.
func NewSnapshot(resourceSlices []*resourceapi.ResourceSlice, claims []*resourceapi.ResourceClaim, rules []Rule, opts Options) *Snapshot {
	s := &Snapshot{w: world{opts: opts, pools: make(map[poolKey]*pool)}, claims: make(map[types.NamespacedName]*claimEntry, len(claims))}
	for _, sl := range resourceSlices {
		if sl == nil {
			continue
		}
		k := poolKey{sl.Spec.Driver, sl.Spec.Pool.Name}
		p := s.w.pools[k]
		if p == nil {
			p = &pool{}
			s.w.pools[k] = p
		}
		if old := p.slices[sl.Name]; old != nil {
			p.remove(old.slice)
		}
		p.add(sl)
	}
	for _, p := range s.w.pools {
		p.lookup("") // build the caches now: the Snapshot is read-only from here on
	}
	byName := make(map[string]int, len(rules))
	for i := range rules {
		byName[rules[i].Name] = i
	}
	for i := range rules {
		if byName[rules[i].Name] != i {
			continue
		}
		e := &ruleEntry{Rule: rules[i]}
		s.rules = append(s.rules, e)
		if e.Taint.Effect == resourceapi.DeviceTaintEffectNoExecute {
			s.w.evicting = append(s.w.evicting, e)
		}
	}
	byRuleName := func(a, b *ruleEntry) int { return cmp.Compare(a.Name, b.Name) }
	slices.SortFunc(s.rules, byRuleName)
	slices.SortFunc(s.w.evicting, byRuleName)
	for _, c := range claims {
		if c == nil || c.Status.Allocation == nil {
			continue
		}
		k := keyOf(c.Namespace, c.Name)
		s.claims[k] = &claimEntry{claim: c, ev: s.w.claimEviction(c, s.w.evicting), key: k}
	}
	return s
}

// Pod decides pod as the controller does (its podEvictionTime): never for
// a pod not bound to a node; otherwise the earliest eviction of the
// snapshot's allocated claims that the pod uses (spec.resourceClaims, by
// name or through status.resourceClaimStatuses, and
// status.extendedResourceClaimStatus), that were made for it where that is
// checked (a claim from a template or for extended resources must have the
// pod as its controller) and that are reserved for it (status.reservedFor
// lists the pod's UID), with the reasons of all of them. The pod's phase
// and deletion timestamp play no part.
func (s *Snapshot) Pod(pod *v1.Pod) Decision {
	if pod == nil {
		return Decision{}
	}
	return s.w.podEviction(pod, s.claims).decision()
}

// Claim decides an allocated claim, whether or not it is in the snapshot:
// for each device of status.allocation.devices.results, the device's own
// NoExecute taints (in the newest generation of its pool's slices) and
// those of the NoExecute rules whose selector matches it, against the
// tolerations of that allocation result (copied from the request when the
// claim was allocated). Only tolerations with effect NoExecute count: one
// with an empty effect, which tolerates the taint for scheduling, does not
// stop the eviction. A claim without an allocation is never evicted.
func (s *Snapshot) Claim(claim *resourceapi.ResourceClaim) Decision {
	if claim == nil {
		return Decision{}
	}
	if c, ok := s.claims[keyOf(claim.Namespace, claim.Name)]; ok && c.claim == claim {
		return c.ev.decision()
	}
	return s.w.claimEviction(claim, s.w.evicting).decision()
}

// DeviceTaints returns the taints that apply to the device id, of every
// effect: its own, from the newest generation of its pool's slices, in
// order; then those of the rules whose selector matches it, by rule name.
// A device that no slice publishes has only the rules' taints: rules
// select by driver, pool and name, and so does the controller.
func (s *Snapshot) DeviceTaints(id DeviceID) []Taint {
	var out []Taint
	if d, ok := s.w.lookup(id); ok {
		for i := range d.device().Taints {
			out = append(out, reason{slice: d.s, dev: d.dev, index: i}.export())
		}
	}
	for _, r := range s.rules {
		if r.Selector.Matches(id) {
			out = append(out, reason{rule: r}.export())
		}
	}
	return out
}
