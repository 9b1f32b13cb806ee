package main

import (
	"cmp"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	resourcev1beta2 "k8s.io/api/resource/v1beta2"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/devicetaints"
)

// defaultDeviceTaintKey is the key of device-taint's taint when none is
// given: one that no toleration names, so only tolerations of every key
// (operator Exists without a key) tolerate it.
const defaultDeviceTaintKey = "whatif.evictkit.dev/device-taint"

// deviceTaintFlagNames are device-taint's flags.
var deviceTaintFlagNames = []string{"driver", "pool", "device", "effect"}

// deviceTaintFlags holds device-taint's flags.
type deviceTaintFlags struct {
	driver, pool string
	devices      []string
	effect       string
}

// register adds the flags to fs.
func (f *deviceTaintFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.driver, "driver", "", "")
	fs.StringVar(&f.pool, "pool", "", "")
	fs.Func("device", "", func(s string) error {
		if s == "" {
			return fmt.Errorf("want a device name")
		}
		f.devices = append(f.devices, s)
		return nil
	})
	fs.Func("effect", "", func(s string) error {
		if _, err := deviceTaintEffect(s); err != nil {
			return err
		}
		f.effect = s
		return nil
	})
}

// deviceTaintEffect checks a device taint's effect.
func deviceTaintEffect(s string) (resourcev1.DeviceTaintEffect, error) {
	switch e := resourcev1.DeviceTaintEffect(s); e {
	case resourcev1.DeviceTaintEffectNoExecute, resourcev1.DeviceTaintEffectNoSchedule, resourcev1.DeviceTaintEffectNone:
		return e, nil
	}
	return "", fmt.Errorf("effect %q: want NoExecute, NoSchedule or None", s)
}

// parseDeviceTaint parses KEY[=VALUE][:EFFECT] ("" gives the default key);
// effect is --effect, which an effect in spec must agree with. Without
// either the effect is NoExecute.
func parseDeviceTaint(spec, effect string) (resourcev1.DeviceTaint, error) {
	t := resourcev1.DeviceTaint{Key: defaultDeviceTaintKey, Effect: resourcev1.DeviceTaintEffectNoExecute}
	if effect != "" {
		t.Effect = resourcev1.DeviceTaintEffect(effect) // checked by the flag
	}
	if spec == "" {
		return t, nil
	}
	kv, eff, hasEffect := strings.Cut(spec, ":")
	if hasEffect {
		e, err := deviceTaintEffect(eff)
		if err != nil {
			return t, badInput("bad device taint %q: %v", spec, err)
		}
		if effect != "" && e != t.Effect {
			return t, badInput("bad device taint %q: its effect %s contradicts --effect %s", spec, e, effect)
		}
		t.Effect = e
	}
	key, value, _ := strings.Cut(kv, "=")
	if errs := content.IsLabelKey(key); len(errs) > 0 {
		return t, badInput("bad device taint %q: key %q: %s", spec, key, strings.Join(errs, "; "))
	}
	if errs := content.IsLabelValue(value); len(errs) > 0 {
		return t, badInput("bad device taint %q: value %q: %s", spec, value, strings.Join(errs, "; "))
	}
	t.Key, t.Value = key, value
	return t, nil
}

// formatDeviceTaint prints a taint as KEY[=VALUE]:EFFECT.
func formatDeviceTaint(t resourcev1.DeviceTaint) string {
	s := t.Key
	if t.Value != "" {
		s += "=" + t.Value
	}
	return s + ":" + string(t.Effect)
}

// ruleOf converts a DeviceTaintRule as devicetaints reads it.
func ruleOf(r *resourcev1beta2.DeviceTaintRule) devicetaints.Rule {
	t := r.Spec.Taint
	return devicetaints.Rule{
		Name: r.Name, UID: r.UID, Generation: r.Generation,
		Selector: (*devicetaints.Selector)(r.Spec.DeviceSelector),
		Taint: resourcev1.DeviceTaint{Key: t.Key, Value: t.Value, Effect: resourcev1.DeviceTaintEffect(t.Effect),
			TimeAdded: t.TimeAdded},
		Conditions: r.Status.Conditions,
	}
}

// inventory lists the devices a snapshot names, by driver and pool: those
// its slices publish and those its claims have allocated.
type inventory map[string]map[string]map[string]bool

func (inv inventory) add(driver, pool, device string) {
	if inv[driver] == nil {
		inv[driver] = map[string]map[string]bool{}
	}
	if inv[driver][pool] == nil {
		inv[driver][pool] = map[string]bool{}
	}
	inv[driver][pool][device] = true
}

func newInventory(d *draObjects) inventory {
	inv := inventory{}
	for _, s := range d.Slices {
		for _, dev := range s.Spec.Devices {
			inv.add(s.Spec.Driver, s.Spec.Pool.Name, dev.Name)
		}
	}
	for _, c := range d.Claims {
		if c.Status.Allocation != nil {
			for _, r := range c.Status.Allocation.Devices.Results {
				inv.add(r.Driver, r.Pool, r.Device)
			}
		}
	}
	return inv
}

// check reports a driver, pool or device the snapshot does not name.
func (inv inventory) check(f deviceTaintFlags) error {
	pools, ok := inv[f.driver]
	if !ok {
		return badInput("device-taint: unknown driver %q (the snapshot has %s)", f.driver, joinMax(slices.Sorted(maps.Keys(inv)), 6))
	}
	if f.pool == "" {
		return nil
	}
	devs, ok := pools[f.pool]
	if !ok {
		return badInput("device-taint: driver %s has no pool %q (it has %s)", f.driver, f.pool, joinMax(slices.Sorted(maps.Keys(pools)), 6))
	}
	for _, d := range f.devices {
		if !devs[d] {
			return badInput("device-taint: pool %s of driver %s has no device %q (it has %s)", f.pool, f.driver, d, joinMax(slices.Sorted(maps.Keys(devs)), 6))
		}
	}
	return nil
}

// dtReport is the result of device-taint.
type dtReport struct {
	source  string
	t0      time.Time
	taint   resourcev1.DeviceTaint
	rules   []devicetaints.Rule
	header  string
	model   string
	events  []dtEvent
	summary []string
	notes   []string
}

// dtEvent is one line of device-taint's timeline.
type dtEvent struct {
	at                   time.Time // zero: never
	kind                 string    // rule-created, rule-status, evicted, stays
	rule, pod, node      string
	claim, device, taint string
	why                  string
	cond                 *metav1.Condition
	ifNoExecute          *time.Time // effect None or NoSchedule: when NoExecute would evict (nil: never)
	ifNoExecuteDecided   bool
	detail               string
	order                int // ties: rule lines first, then pods by name
	sortKey              string
}

// Kinds of device-taint events.
const (
	dtRuleCreated = "rule-created"
	dtRuleStatus  = "rule-status"
	dtEvicted     = "evicted"
	dtStays       = "stays"
)

// Why a pod is evicted or stays (dtEvent.why).
const (
	whyNotTolerated  = "not-tolerated"   // evicted at once: no NoExecute toleration
	whyTolerationEnd = "toleration-ends" // evicted when tolerationSeconds run out
	whyOtherTaint    = "other-taint"     // evicted for a taint already in the snapshot
	whyTolerates     = "tolerates"       // stays: tolerates the taint forever
	whyUntainted     = "untainted"       // stays: uses no device the taint selects
	whyUnbound       = "unbound"         // stays: not bound to a node
	whyNoEffect      = "no-effect"       // stays: the effect evicts nothing
	whyNotCounted    = "not-counted"     // stays: the controller does not count the claim for the pod
)

// deviceTaint simulates a DeviceTaintRule created at t0.
func deviceTaint(s *snapshot, source string, f deviceTaintFlags, args []string) (report, error) {
	d := s.DRA
	if len(d.Slices) == 0 && len(d.Claims) == 0 {
		return nil, badInput("device-taint: %s has no ResourceSlices or ResourceClaims (want the output of kubectl get %s -A -o yaml)", source, draKubectlKinds)
	}
	spec := ""
	if len(args) == 1 {
		spec = args[0]
	}
	taint, err := parseDeviceTaint(spec, f.effect)
	if err != nil {
		return nil, err
	}
	if err := newInventory(d).check(f); err != nil {
		return nil, err
	}
	t0 := s.t0()
	taint.TimeAdded = timeRef(t0)

	var existing []devicetaints.Rule
	names := map[string]bool{}
	for _, r := range d.Rules {
		existing = append(existing, ruleOf(r))
		names[r.Name] = true
	}
	created := newRules(f, taint, names)
	m := &dtModel{s: s, t0: t0, f: f, taint: taint, created: created, existing: existing}
	m.decide()
	return m.report(source), nil
}

// newRules makes the rules device-taint creates: one per --device, else
// one for the pool (or, without --pool, for every pool of the driver).
func newRules(f deviceTaintFlags, taint resourcev1.DeviceTaint, taken map[string]bool) []devicetaints.Rule {
	name := func(base string) string {
		n := base
		for i := 2; taken[n]; i++ {
			n = fmt.Sprintf("%s-%d", base, i)
		}
		taken[n] = true
		return n
	}
	rule := func(n string, device *string) devicetaints.Rule {
		sel := &devicetaints.Selector{Driver: &f.driver, Device: device}
		if f.pool != "" {
			sel.Pool = &f.pool
		}
		return devicetaints.Rule{Name: n, UID: types.UID("whatif-" + n), Generation: 1, Selector: sel, Taint: taint}
	}
	if len(f.devices) == 0 {
		return []devicetaints.Rule{rule(name("whatif"), nil)}
	}
	var out []devicetaints.Rule
	for _, dev := range slices.Compact(slices.Sorted(slices.Values(f.devices))) {
		if len(f.devices) == 1 {
			out = append(out, rule(name("whatif"), &dev))
		} else {
			out = append(out, rule(name("whatif-"+dev), &dev))
		}
	}
	return out
}

// dtModel is one device-taint run.
type dtModel struct {
	s        *snapshot
	t0       time.Time
	f        deviceTaintFlags
	taint    resourcev1.DeviceTaint
	created  []devicetaints.Rule
	existing []devicetaints.Rule

	after, before, asNoExecute *devicetaints.Snapshot
	claims                     map[types.NamespacedName]*resourcev1.ResourceClaim

	events   []dtEvent
	statuses []dtEvent
	evicted  map[types.UID]time.Time // by the controller: when
	notes    []string
	counts   map[string]int // pods by why
	last     time.Time      // the last eviction the taint causes
	byTaint  int            // pods the taint evicts
	atOnce   int
}

func (m *dtModel) isCreated(rule string) bool {
	return slices.ContainsFunc(m.created, func(r devicetaints.Rule) bool { return r.Name == rule })
}

// decide decides every pod with devicetaints: a Snapshot with the rules
// created (after), one without (before) and, for an effect other than
// NoExecute, one with them as NoExecute; and the Controller, replayed from
// t0, for the rules' status.
func (m *dtModel) decide() {
	d := m.s.DRA
	opts := devicetaints.Options{}
	m.after = devicetaints.NewSnapshot(d.Slices, d.Claims, slices.Concat(m.existing, m.created), opts)
	m.before = devicetaints.NewSnapshot(d.Slices, d.Claims, m.existing, opts)
	if m.taint.Effect != resourcev1.DeviceTaintEffectNoExecute {
		as := slices.Clone(m.created)
		for i := range as {
			as[i].Taint.Effect = resourcev1.DeviceTaintEffectNoExecute
		}
		m.asNoExecute = devicetaints.NewSnapshot(d.Slices, d.Claims, slices.Concat(m.existing, as), opts)
	}
	m.claims = map[types.NamespacedName]*resourcev1.ResourceClaim{}
	for _, c := range d.Claims {
		m.claims[types.NamespacedName{Namespace: c.Namespace, Name: c.Name}] = c
	}
	m.replay(opts)

	m.counts = map[string]int{}
	for _, r := range m.created {
		m.events = append(m.events, dtEvent{at: m.t0, kind: dtRuleCreated, rule: r.Name, order: 0, sortKey: r.Name,
			detail: "created: taints " + describeSelector(r.Selector) + " with " + formatDeviceTaint(r.Taint)})
	}
	m.events = append(m.events, m.statuses...)
	pods := slices.Clone(m.s.Pods)
	slices.SortFunc(pods, func(a, b *corev1.Pod) int { return strings.Compare(podKey(a), podKey(b)) })
	for _, p := range pods {
		if finished(p) {
			continue
		}
		if e, ok := m.pod(p); ok {
			m.events = append(m.events, e)
			m.counts[e.why]++
		}
	}
	slices.SortStableFunc(m.events, func(a, b dtEvent) int {
		if a.at.IsZero() != b.at.IsZero() {
			return cmp.Compare(boolInt(a.at.IsZero()), boolInt(b.at.IsZero()))
		}
		return cmp.Or(a.at.Compare(b.at), cmp.Compare(a.order, b.order), strings.Compare(a.sortKey, b.sortKey))
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// describeSelector describes a rule's selector: "every device of pool P of driver
// D", "device P/N of driver D".
func describeSelector(s *devicetaints.Selector) string {
	switch {
	case s.Pool == nil:
		return "every device of driver " + *s.Driver
	case s.Device == nil:
		return "every device of pool " + *s.Pool + " of driver " + *s.Driver
	}
	return "device " + *s.Pool + "/" + *s.Device + " of driver " + *s.Driver
}

// replay runs the device-taint eviction controller on a fake clock: its
// caches filled with the snapshot at t0, the evictions then due carried
// out, the rules created, and every later eviction and rule status write
// until nothing is left to do. An evicted pod is deleted at once.
func (m *dtModel) replay(opts devicetaints.Options) {
	d := m.s.DRA
	c := devicetaints.NewController(opts)
	for _, s := range d.Slices {
		c.SliceChanged(nil, s)
	}
	for _, cl := range d.Claims {
		c.ClaimChanged(nil, cl)
	}
	pods := map[types.NamespacedName]*corev1.Pod{}
	for _, p := range m.s.Pods {
		if !finished(p) {
			pods[types.NamespacedName{Namespace: p.Namespace, Name: p.Name}] = p
			c.PodChanged(nil, p)
		}
	}
	rules := map[string]*devicetaints.Rule{}
	for i := range m.existing {
		r := &m.existing[i]
		rules[r.Name] = r
		c.RuleChanged(nil, r)
	}
	m.evicted = map[types.UID]time.Time{}
	now := m.t0
	// run steps at now until the controller has nothing left to do then,
	// and returns when it wants to be called next.
	run := func() time.Time {
		for range 10000 {
			res := c.Step(now)
			for _, st := range res.Statuses {
				old := rules[st.Rule]
				if old == nil || old.UID != st.UID {
					continue
				}
				r := *old
				r.Conditions = setCondition(old.Conditions, st.Condition)
				rules[r.Name] = &r
				c.RuleChanged(old, &r)
				if m.isCreated(r.Name) {
					cond := st.Condition
					m.statuses = append(m.statuses, dtEvent{at: now, kind: dtRuleStatus, rule: r.Name, cond: &cond, order: 1, sortKey: r.Name,
						detail: "status " + cond.Type + "=" + string(cond.Status) + " " + cond.Reason + ": " + cond.Message})
				}
			}
			for _, e := range res.Evictions {
				p := pods[e.Pod]
				counted := p != nil && p.UID == e.UID
				c.Evicted(e, counted)
				if counted {
					m.evicted[p.UID] = now
					delete(pods, e.Pod)
					c.PodChanged(p, nil)
				}
			}
			if len(res.Statuses) == 0 && len(res.Evictions) == 0 {
				return res.Next
			}
		}
		m.notes = append(m.notes, "the controller's replay stopped after 10000 steps")
		return time.Time{}
	}
	run()
	for i := range m.created {
		r := &m.created[i]
		rules[r.Name] = r
		c.RuleChanged(nil, r)
	}
	for next := run(); !next.IsZero(); next = run() {
		now = next
	}
}

// setCondition returns conds with cond in place of the condition of its
// type (appended if none), as a server-side apply of the condition does.
func setCondition(conds []metav1.Condition, cond metav1.Condition) []metav1.Condition {
	out := slices.Clone(conds)
	for i := range out {
		if out[i].Type == cond.Type {
			out[i] = cond
			return out
		}
	}
	return append(out, cond)
}

// use is one allocated device of a pod's claim.
type use struct {
	claim  *resourcev1.ResourceClaim
	result resourcev1.DeviceRequestAllocationResult
}

func (u use) id() devicetaints.DeviceID {
	return devicetaints.DeviceID{Driver: u.result.Driver, Pool: u.result.Pool, Device: u.result.Device}
}

// only returns the claim with this device alone allocated, for deciding the
// device by itself.
func (u use) only() *resourcev1.ResourceClaim {
	c := u.claim.DeepCopy()
	c.Status.Allocation.Devices.Results = []resourcev1.DeviceRequestAllocationResult{u.result}
	return c
}

// uses lists the devices allocated to the claims the pod names (in
// spec.resourceClaims, through status.resourceClaimStatuses for those from
// a template, and status.extendedResourceClaimStatus), in that order. They
// explain a decision; devicetaints makes it.
func (m *dtModel) uses(p *corev1.Pod) []use {
	var names []string
	for _, pc := range p.Spec.ResourceClaims {
		switch {
		case pc.ResourceClaimName != nil:
			names = append(names, *pc.ResourceClaimName)
		case pc.ResourceClaimTemplateName != nil:
			for _, st := range p.Status.ResourceClaimStatuses {
				if st.Name == pc.Name && st.ResourceClaimName != nil {
					names = append(names, *st.ResourceClaimName)
				}
			}
		}
	}
	if st := p.Status.ExtendedResourceClaimStatus; st != nil && st.ResourceClaimName != "" {
		names = append(names, st.ResourceClaimName)
	}
	var out []use
	for _, n := range slices.Compact(names) {
		c := m.claims[types.NamespacedName{Namespace: p.Namespace, Name: n}]
		if c == nil || c.Status.Allocation == nil {
			continue
		}
		for _, r := range c.Status.Allocation.Devices.Results {
			out = append(out, use{claim: c, result: r})
		}
	}
	return out
}

// selected reports whether a created rule selects the device.
func (m *dtModel) selected(id devicetaints.DeviceID) bool {
	for i := range m.created {
		if m.created[i].Selector.Matches(id) {
			return true
		}
	}
	return false
}

func sameTaint(a, b devicetaints.Taint) bool {
	return a.String() == b.String() && a.Rule == b.Rule && a.Slice == b.Slice
}

// pod decides one pod; ok is false for a pod that neither goes nor uses a
// device of the driver.
func (m *dtModel) pod(p *corev1.Pod) (dtEvent, bool) {
	uses := m.uses(p)
	ofDriver := slices.IndexFunc(uses, func(u use) bool { return u.result.Driver == m.f.driver })
	d := m.after.Pod(p)
	if !d.Evict && ofDriver < 0 {
		return dtEvent{}, false
	}
	e := dtEvent{kind: dtStays, pod: podKey(p), node: p.Spec.NodeName, order: 2, sortKey: podKey(p)}
	show := func(u use) {
		e.claim = u.claim.Namespace + "/" + u.claim.Name
		e.device = u.id().String()
	}
	// where names the claim in the pod's namespace, and the device in
	// the driver's pools when it is the driver's.
	where := func() string {
		return "claim " + strings.TrimPrefix(e.claim, p.Namespace+"/") + ", device " + strings.TrimPrefix(e.device, m.f.driver+"/")
	}
	if d.Evict {
		t := d.Taint()
		e.kind, e.taint = dtEvicted, t.String()
		e.at = later(d.At, m.t0)
		if at, ok := m.evicted[p.UID]; !ok || !at.Equal(e.at) {
			m.notes = append(m.notes, fmt.Sprintf("%s: the controller's replay evicts it at %s, its decision says %s", podKey(p), m.offsetOr(at, ok), m.offset(e.at)))
		}
		// The claim and device that make the time: the first whose own
		// decision has it.
		for _, u := range uses {
			if du := m.after.Claim(u.only()); du.Evict && du.At.Equal(d.At) && sameTaint(du.Taint(), t) {
				show(u)
				break
			}
		}
		switch {
		case !m.isCreated(t.Rule):
			e.why = whyOtherTaint
			what := "the device's own taint " + formatDeviceTaint(t.DeviceTaint)
			if t.Rule != "" {
				what = "rule " + t.Rule + "'s taint " + formatDeviceTaint(t.DeviceTaint)
			}
			if tolerated := d.At.Sub(t.TimeAdded.Time); tolerated > 0 {
				what += ", tolerated for " + formatSeconds(tolerated)
			}
			when := "due at " + m.offset(d.At)
			if d.At.Before(m.t0) {
				when = "overdue since " + m.offset(d.At)
			}
			e.detail = "evicted: " + where() + ": " + what + " (already in the snapshot, " + when + ")"
		case d.At.After(t.TimeAdded.Time):
			e.why = whyTolerationEnd
			e.detail = "evicted: " + where() + ": tolerates the taint for " + formatSeconds(d.At.Sub(t.TimeAdded.Time))
		default:
			e.why = whyNotTolerated
			e.detail = "evicted: " + where() + ": does not tolerate the taint" + schedulingOnly(m.usedBy(uses, e.device), t.DeviceTaint)
		}
		if m.isCreated(t.Rule) {
			m.byTaint++
			m.last = later(m.last, e.at)
			if e.at.Equal(m.t0) {
				m.atOnce++
			}
		}
		return e, true
	}

	// It stays. Show the first device the taint selects, else the first of
	// the driver.
	hit := slices.IndexFunc(uses, func(u use) bool { return m.selected(u.id()) })
	if hit >= 0 {
		show(uses[hit])
	} else {
		show(uses[ofDriver])
	}
	switch {
	case hit < 0:
		e.why = whyUntainted
		e.detail = "stays: uses no device the taint selects (" + where() + ")"
	case p.Spec.NodeName == "":
		e.why = whyUnbound
		e.detail = "stays: " + where() + ": not bound to a node yet, and the controller decides pods once bound"
	case m.taint.Effect != resourcev1.DeviceTaintEffectNoExecute:
		e.why = whyNoEffect
		dn := m.asNoExecute.Pod(p)
		e.ifNoExecuteDecided = true
		as := "would stay"
		if dn.Evict {
			at := later(dn.At, m.t0)
			e.ifNoExecute = &at
			as = "would be evicted at " + m.offset(at)
			if at.Equal(m.t0) {
				as = "would be evicted at once"
			}
		}
		e.detail = "stays: " + where() + ": effect " + string(m.taint.Effect) + " evicts nothing; with NoExecute it " + as
	default:
		u := uses[hit]
		tol, ok := foreverToleration(u.result.Tolerations, m.taint)
		if !ok {
			e.why = whyNotCounted
			e.detail = "stays: " + where() + ": the controller does not count this claim for the pod (not reserved for it, or not made for it)"
			break
		}
		e.why = whyTolerates
		e.detail = "stays: " + where() + ": tolerates the taint forever (toleration " + formatToleration(tol) + ")"
	}
	return e, true
}

// usedBy returns the allocation result of the device named id among uses.
func (m *dtModel) usedBy(uses []use, id string) *resourcev1.DeviceRequestAllocationResult {
	for i := range uses {
		if uses[i].id().String() == id {
			return &uses[i].result
		}
	}
	return nil
}

// schedulingOnly points out a toleration that tolerates the taint for
// scheduling but does not stop the eviction (its effect is not NoExecute).
func schedulingOnly(r *resourcev1.DeviceRequestAllocationResult, t resourcev1.DeviceTaint) string {
	if r == nil {
		return ""
	}
	for _, tol := range r.Tolerations {
		if tol.Effect != resourcev1.DeviceTaintEffectNoExecute && devicetaints.Tolerates(tol, t) {
			return " (its toleration " + formatToleration(tol) + " has no NoExecute effect: it only counts for scheduling)"
		}
	}
	return ""
}

// foreverToleration returns the NoExecute toleration without seconds that
// tolerates t.
func foreverToleration(tols []resourcev1.DeviceToleration, t resourcev1.DeviceTaint) (resourcev1.DeviceToleration, bool) {
	for _, tol := range tols {
		if tol.Effect == resourcev1.DeviceTaintEffectNoExecute && tol.TolerationSeconds == nil && devicetaints.Tolerates(tol, t) {
			return tol, true
		}
	}
	return resourcev1.DeviceToleration{}, false
}

// formatToleration prints a toleration in the syntax of a taint, quoted
// ("key:NoExecute" for operator Exists, "key=value:NoExecute" for Equal,
// without ":" when it has no effect), or "every NoExecute taint" for
// operator Exists without a key; then the seconds, if any.
func formatToleration(tol resourcev1.DeviceToleration) string {
	var s string
	if tol.Key == "" && tol.Operator == resourcev1.DeviceTolerationOpExists {
		s = "every taint"
		if tol.Effect != "" {
			s = "every " + string(tol.Effect) + " taint"
		}
	} else {
		s = tol.Key
		if tol.Operator != resourcev1.DeviceTolerationOpExists {
			s += "=" + tol.Value
		}
		if tol.Effect != "" {
			s += ":" + string(tol.Effect)
		}
		s = fmt.Sprintf("%q", s)
	}
	if tol.TolerationSeconds != nil {
		s += fmt.Sprintf(" for %ds", *tol.TolerationSeconds)
	}
	return s
}

// offset prints t as an offset from t0.
func (m *dtModel) offset(t time.Time) string { return formatOffset(t.Sub(m.t0)) }

func (m *dtModel) offsetOr(t time.Time, ok bool) string {
	if !ok {
		return "never"
	}
	return m.offset(t)
}

// report assembles the header, the model and the summary.
func (m *dtModel) report(source string) *dtReport {
	r := &dtReport{source: source, t0: m.t0, taint: m.taint, rules: m.created, events: m.events, notes: m.notes}
	what := m.created[0].Selector
	target := describeSelector(what)
	if len(m.created) > 1 {
		var devs []string
		for _, c := range m.created {
			devs = append(devs, *c.Selector.Device)
		}
		target = "devices " + strings.Join(devs, ", ") + " of pool " + m.f.pool + " of driver " + m.f.driver
	}
	d := m.s.DRA
	allocated := 0
	for _, c := range d.Claims {
		if c.Status.Allocation != nil {
			allocated++
		}
	}
	r.header = fmt.Sprintf("What if %s %s tainted %s at t0 = %s, the latest heartbeat in %s (%s, %s, %s, %s)?",
		target, map[bool]string{true: "are", false: "is"}[len(m.created) > 1], formatDeviceTaint(m.taint), stamp(m.t0), source,
		plural(len(m.s.Nodes), "node"), plural(len(m.s.Pods), "pod"), plural(len(d.Slices), "ResourceSlice"),
		fmt.Sprintf("%d of %s allocated", allocated, plural(len(d.Claims), "ResourceClaim")))
	rulesWord := "a DeviceTaintRule"
	if len(m.created) > 1 {
		rulesWord = "a DeviceTaintRule per device"
	}
	r.model = "Model: kube-controller-manager v1.37.2's device-taint-eviction-controller, with the snapshot's " +
		"ResourceSlices, ResourceClaims, DeviceTaintRules and pods in its caches. The taint comes as " + rulesWord +
		" created at t0, its timeAdded. A pod bound to a node goes when a NoExecute taint of a device allocated to a " +
		"claim it uses (and that is reserved for it) is not tolerated by a NoExecute toleration of that device's " +
		"request: at once, or at the taint's timeAdded plus tolerationSeconds; a toleration without an effect only " +
		"counts for scheduling. Pods already due when the snapshot was taken go first, at t0; evicted pods are deleted at once."

	var sum []string
	switch m.taint.Effect {
	case resourcev1.DeviceTaintEffectNoExecute:
		switch {
		case m.byTaint == 0:
			sum = append(sum, "The taint evicts no pod.")
		case m.atOnce == m.byTaint:
			sum = append(sum, fmt.Sprintf("The taint evicts %s, all at once.", plural(m.byTaint, "pod")))
		default:
			sum = append(sum, fmt.Sprintf("The taint evicts %s: %d at once, the last at %s (%s).",
				plural(m.byTaint, "pod"), m.atOnce, m.offset(m.last), stamp(m.last)))
		}
	default:
		sum = append(sum, fmt.Sprintf("Effect %s evicts nothing.", m.taint.Effect))
	}
	var stays []string
	for _, w := range []struct{ why, text string }{
		{whyTolerates, "tolerates it forever"},
		{whyNoEffect, "uses a tainted device"},
		{whyUntainted, "uses only devices it does not taint"},
		{whyUnbound, "is not bound to a node yet"},
		{whyNotCounted, "holds a claim the controller does not count for it"},
	} {
		if n := m.counts[w.why]; n > 0 {
			text := w.text
			if n > 1 {
				text = strings.NewReplacer("tolerates", "tolerate", "uses", "use", "is not", "are not", "holds", "hold").Replace(text)
			}
			stays = append(stays, fmt.Sprintf("%d %s", n, text))
		}
	}
	if len(stays) > 0 {
		sum = append(sum, "Of the pods that stay, "+strings.Join(stays, "; ")+".")
	}
	if n := m.counts[whyOtherTaint]; n > 0 {
		verb := "goes"
		if n > 1 {
			verb = "go"
		}
		sum = append(sum, fmt.Sprintf("%s %s anyway, for a taint already in the snapshot.", plural(n, "pod"), verb))
	}
	listed := 0
	for _, n := range m.counts {
		listed += n
	}
	if other := len(m.s.Pods) - listed; other > 0 {
		sum = append(sum, fmt.Sprintf("The other %s use no device of %s.", plural(other, "pod"), m.f.driver))
	}
	for _, st := range m.statuses {
		if st.cond.Reason == "NoEffect" || st.cond.Reason == "OtherEffect" {
			msg, _, _ := strings.Cut(st.cond.Message, " This information will not be updated again.")
			sum = append(sum, fmt.Sprintf("Rule %s's status (%s, written once): %s", st.rule, st.cond.Reason, msg))
		}
	}
	r.summary = sum
	return r
}

// dtJSON is the -o json document of device-taint.
type dtJSON struct {
	Scenario string    `json:"scenario"`
	Input    string    `json:"input"`
	T0       time.Time `json:"t0"`
	// Taint is the taint the rules add, KEY[=VALUE]:EFFECT.
	Taint string `json:"taint"`
	// Rules are the DeviceTaintRules created at t0.
	Rules []dtRuleJSON `json:"rules"`
	Model string       `json:"model"`
	// Events is the timeline, by time; the pods that stay come last, with
	// a null time.
	Events  []dtEventJSON `json:"events"`
	Summary []string      `json:"summary"`
	Notes   []string      `json:"notes,omitempty"`
}

// dtRuleJSON is a created rule: its name and selector (null: any).
type dtRuleJSON struct {
	Name   string  `json:"name"`
	Driver *string `json:"driver"`
	Pool   *string `json:"pool"`
	Device *string `json:"device"`
}

// dtEventJSON is one event of device-taint's timeline.
type dtEventJSON struct {
	At           *time.Time `json:"at"`
	AfterSeconds *float64   `json:"afterSeconds"`
	// Kind is rule-created, rule-status, evicted or stays.
	Kind string `json:"kind"`
	Rule string `json:"rule,omitempty"`
	Pod  string `json:"pod,omitempty"`
	Node string `json:"node,omitempty"`
	// Claim (namespace/name) and Device (driver/pool/device) are what
	// decides a pod: the device whose taint evicts it, or the one it uses.
	Claim  string `json:"claim,omitempty"`
	Device string `json:"device,omitempty"`
	// Taint is the taint that evicts the pod, with its origin.
	Taint string `json:"taint,omitempty"`
	// Why is, for evicted: not-tolerated, toleration-ends or other-taint;
	// for stays: tolerates, untainted, unbound, no-effect or not-counted.
	Why string `json:"why,omitempty"`
	// Condition is a rule-status event's EvictionInProgress condition.
	Condition *dtConditionJSON `json:"condition,omitempty"`
	// IfNoExecute, for a pod that stays because of the effect (why
	// no-effect), is when the taint would evict it with effect NoExecute:
	// seconds after t0, null for never.
	IfNoExecute *dtIfJSON `json:"ifNoExecute,omitempty"`
	Detail      string    `json:"detail"`
}

type dtConditionJSON struct {
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

type dtIfJSON struct {
	AfterSeconds *float64 `json:"afterSeconds"`
}

func (r *dtReport) jsonValue() any {
	doc := dtJSON{Scenario: "device-taint", Input: r.source, T0: r.t0, Taint: formatDeviceTaint(r.taint), Model: r.model,
		Rules: []dtRuleJSON{}, Events: []dtEventJSON{}, Summary: r.summary, Notes: r.notes}
	for _, rule := range r.rules {
		doc.Rules = append(doc.Rules, dtRuleJSON{Name: rule.Name, Driver: rule.Selector.Driver, Pool: rule.Selector.Pool, Device: rule.Selector.Device})
	}
	secs := func(t time.Time) *float64 {
		s := t.Sub(r.t0).Seconds()
		return &s
	}
	for _, e := range r.events {
		j := dtEventJSON{At: timePtr(e.at), Kind: e.kind, Rule: e.rule, Pod: e.pod, Node: e.node, Claim: e.claim,
			Device: e.device, Taint: e.taint, Why: e.why, Detail: e.detail}
		if !e.at.IsZero() {
			j.AfterSeconds = secs(e.at)
		}
		if e.cond != nil {
			j.Condition = &dtConditionJSON{Status: string(e.cond.Status), Reason: e.cond.Reason, Message: e.cond.Message}
		}
		if e.ifNoExecuteDecided {
			j.IfNoExecute = &dtIfJSON{}
			if e.ifNoExecute != nil {
				j.IfNoExecute.AfterSeconds = secs(*e.ifNoExecute)
			}
		}
		doc.Events = append(doc.Events, j)
	}
	return doc
}

func (r *dtReport) writeTable(w io.Writer) error {
	rows := make([]eventRow, len(r.events))
	for i, e := range r.events {
		what := e.pod
		if what == "" {
			what = "rule/" + e.rule
		}
		rows[i] = eventRow{e.at, what, e.detail}
	}
	return writeEventTable(w, r.header, r.model, r.t0, rows, r.summary, r.notes)
}
