package conformance_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/kubernetes/pkg/controller/devicetainteviction"
	"k8s.io/utils/ptr"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/devicetaints"
)

// dtStep is one step of a device-taint scenario: an object written (its
// new state) or deleted, or a clock step.
type dtStep struct {
	kind  string // "slice", "claim", "rule", "pod", "delete slice", "delete claim", "delete rule", "delete pod", "sleep"
	name  string
	slice *resourceapi.ResourceSlice
	claim *resourceapi.ResourceClaim
	rule  *resourceapi.DeviceTaintRule
	pod   *v1.Pod
	sleep time.Duration
}

func (s dtStep) String() string {
	switch s.kind {
	case "slice":
		return "slice " + show(s.slice.Spec)
	case "claim":
		return fmt.Sprintf("claim %s %s", s.name, show(s.claim.Status))
	case "rule":
		return fmt.Sprintf("rule %s gen %d %s", s.name, s.rule.Generation, show(s.rule.Spec))
	case "pod":
		return fmt.Sprintf("pod %s uid %s node %q claims %s labels %v", s.name, s.pod.UID, s.pod.Spec.NodeName, show(s.pod.Spec.ResourceClaims), s.pod.Labels)
	case "sleep":
		return "sleep " + s.sleep.String()
	}
	return s.kind + " " + s.name
}

// dtScenario draws steps that keep the API's rules: a claim's allocation
// never changes once made (it may be removed), a pod keeps its UID until
// deleted and a new one gets a new UID, a rule's generation grows with
// each change of its spec. Each pod uses one claim at most (upstream
// re-decides the claims of a pod in map order, and the order shows when a
// pod has two); no taint lacks TimeAdded (upstream panics on some).
func dtScenario() *rapid.Generator[[]dtStep] {
	return rapid.Custom(func(t *rapid.T) []dtStep {
		slicesNow := map[string]bool{}
		claimsNow := map[string]*resourceapi.ResourceClaim{}
		rulesNow := map[string]*resourceapi.DeviceTaintRule{}
		podsNow := map[string]*v1.Pod{}
		incarnation := map[string]int{}
		var steps []dtStep
		for i := range rapid.IntRange(1, 40).Draw(t, "steps") {
			l := func(s string) string { return fmt.Sprintf("%s%d", s, i) }
			switch k := rapid.IntRange(0, 23).Draw(t, l("kind")); {
			case k < 5:
				j := rapid.IntRange(0, len(dtSlices)-1).Draw(t, l("slice"))
				name := dtSlices[j].name
				if slicesNow[name] && rapid.IntRange(0, 4).Draw(t, l("delete")) == 0 {
					delete(slicesNow, name)
					steps = append(steps, dtStep{kind: "delete slice", name: name})
					break
				}
				slicesNow[name] = true
				steps = append(steps, dtStep{kind: "slice", name: name, slice: dtSlice(j, false).Draw(t, l("new"))})
			case k < 9:
				name := rapid.SampledFrom(dtClaims).Draw(t, l("claim"))
				old := claimsNow[name]
				if old != nil && rapid.IntRange(0, 5).Draw(t, l("delete")) == 0 {
					delete(claimsNow, name)
					steps = append(steps, dtStep{kind: "delete claim", name: name})
					break
				}
				c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name)}}
				if old != nil {
					c = old.DeepCopy()
				}
				switch {
				case c.Status.Allocation != nil && rapid.IntRange(0, 4).Draw(t, l("deallocate")) == 0:
					c.Status.Allocation = nil
				case c.Status.Allocation == nil && rapid.IntRange(0, 4).Draw(t, l("allocate")) > 0:
					c.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: dtResults().Draw(t, l("results"))}}
				}
				c.Labels = map[string]string{"l": rapid.SampledFrom([]string{"a", "b"}).Draw(t, l("label"))}
				c.Status.ReservedFor = nil
				for _, pn := range rapid.SliceOfNDistinct(rapid.SampledFrom(dtPods), 0, 3, rapid.ID[string]).Draw(t, l("reserved")) {
					uid := dtUID(pn, incarnation[pn])
					if rapid.IntRange(0, 7).Draw(t, l("stale "+pn)) == 0 {
						uid = dtUID(pn, incarnation[pn]+1)
					}
					c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: pn, UID: uid})
				}
				claimsNow[name] = c
				steps = append(steps, dtStep{kind: "claim", name: name, claim: c})
			case k < 12:
				name := rapid.SampledFrom([]string{"r1", "r2"}).Draw(t, l("rule"))
				old := rulesNow[name]
				if old != nil && rapid.IntRange(0, 4).Draw(t, l("delete")) == 0 {
					delete(rulesNow, name)
					steps = append(steps, dtStep{kind: "delete rule", name: name})
					break
				}
				r := dtRule(name, false).Draw(t, l("new"))
				if old != nil {
					switch rapid.IntRange(0, 2).Draw(t, l("change")) {
					case 0: // the effect only, with a new TimeAdded, as the API server sets it
						r = old.DeepCopy()
						r.Spec.Taint.Effect = rapid.SampledFrom([]resourceapi.DeviceTaintEffect{"NoExecute", "None", "NoSchedule"}).Draw(t, l("effect"))
						r.Spec.Taint.TimeAdded = dtTime(false).Draw(t, l("added"))
					case 1: // nothing in the spec
						r = old.DeepCopy()
					}
					r.Generation = old.Generation
					if !equalRuleSpec(old, r) {
						r.Generation++
					}
				}
				rulesNow[name] = r
				steps = append(steps, dtStep{kind: "rule", name: name, rule: r})
			case k < 16:
				name := rapid.SampledFrom(dtPods).Draw(t, l("pod"))
				old := podsNow[name]
				if old != nil && rapid.IntRange(0, 4).Draw(t, l("delete")) == 0 {
					delete(podsNow, name)
					incarnation[name]++
					steps = append(steps, dtStep{kind: "delete pod", name: name})
					break
				}
				var p *v1.Pod
				if old != nil {
					p = old.DeepCopy()
				} else {
					p = &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: dtUID(name, incarnation[name])}}
					if c := rapid.IntRange(-1, len(dtClaims)-1).Draw(t, l("claim")); c >= 0 {
						p.Spec.ResourceClaims = []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To(dtClaims[c])}}
					}
				}
				if p.Spec.NodeName == "" && rapid.IntRange(0, 3).Draw(t, l("bind")) > 0 {
					p.Spec.NodeName = "node"
				}
				p.Labels = map[string]string{"l": rapid.SampledFrom([]string{"a", "b"}).Draw(t, l("label"))}
				podsNow[name] = p
				steps = append(steps, dtStep{kind: "pod", name: name, pod: p})
			case k < 18:
				steps = append(steps, dtStep{kind: "sleep", sleep: rapid.SampledFrom([]time.Duration{time.Second, 3 * time.Second, 10 * time.Second, 25 * time.Second, time.Minute}).Draw(t, l("sleep"))})
			default:
				// A pod scheduled as the scheduler does it: created with a
				// claim, the claim allocated (unless it is) and reserved
				// for it, the pod bound.
				name := rapid.SampledFrom(dtPods).Draw(t, l("pod"))
				if podsNow[name] != nil {
					break
				}
				cn := rapid.SampledFrom(dtClaims).Draw(t, l("claim"))
				p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: dtUID(name, incarnation[name])},
					Spec: v1.PodSpec{ResourceClaims: []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To(cn)}}}}
				podsNow[name] = p
				steps = append(steps, dtStep{kind: "pod", name: name, pod: p})
				c := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: cn, UID: types.UID("uid-" + cn)}}
				if old := claimsNow[cn]; old != nil {
					c = old.DeepCopy()
				}
				if c.Status.Allocation == nil {
					c.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{Results: dtResults().Draw(t, l("results"))}}
				}
				c.Status.ReservedFor = append(c.Status.ReservedFor, resourceapi.ResourceClaimConsumerReference{Resource: "pods", Name: name, UID: p.UID})
				claimsNow[cn] = c
				steps = append(steps, dtStep{kind: "claim", name: cn, claim: c})
				p = p.DeepCopy()
				p.Spec.NodeName = "node"
				podsNow[name] = p
				steps = append(steps, dtStep{kind: "pod", name: name, pod: p})
			}
		}
		return steps
	})
}

func equalRuleSpec(a, b *resourceapi.DeviceTaintRule) bool { return show(a.Spec) == show(b.Spec) }

// dtState is one side's cluster as its informers hold it, and the pods as
// the API server holds them.
type dtState struct {
	slices map[string]*resourceapi.ResourceSlice
	claims map[string]*resourceapi.ResourceClaim
	rules  map[string]*resourceapi.DeviceTaintRule
	pods   map[string]*v1.Pod
	server map[string]*v1.Pod
	gone   map[types.UID]bool // UIDs of deleted pods
}

func newDTState() *dtState {
	return &dtState{slices: map[string]*resourceapi.ResourceSlice{}, claims: map[string]*resourceapi.ResourceClaim{},
		rules: map[string]*resourceapi.DeviceTaintRule{}, pods: map[string]*v1.Pod{}, server: map[string]*v1.Pod{}, gone: map[types.UID]bool{}}
}

// dtDelivery is one informer event: old and new object (either nil).
type dtDelivery struct{ old, new any }

// apply writes a step into the state and returns the informer events it
// causes. A step on a pod that an eviction deleted is nothing (its UID
// is never reused); a rule keeps its status across spec changes.
func (s *dtState) apply(st dtStep) []dtDelivery {
	switch st.kind {
	case "slice":
		old := s.slices[st.name]
		s.slices[st.name] = st.slice
		return []dtDelivery{{asAny(old), st.slice}}
	case "delete slice":
		old := s.slices[st.name]
		delete(s.slices, st.name)
		return []dtDelivery{{old, nil}}
	case "claim":
		old := s.claims[st.name]
		s.claims[st.name] = st.claim
		return []dtDelivery{{asAny(old), st.claim}}
	case "delete claim":
		old := s.claims[st.name]
		delete(s.claims, st.name)
		return []dtDelivery{{old, nil}}
	case "rule":
		old := s.rules[st.name]
		r := st.rule.DeepCopy()
		if old != nil {
			r.Status = *old.Status.DeepCopy()
		}
		s.rules[st.name] = r
		return []dtDelivery{{asAny(old), r}}
	case "delete rule":
		old := s.rules[st.name]
		delete(s.rules, st.name)
		return []dtDelivery{{old, nil}}
	case "pod":
		if s.gone[st.pod.UID] {
			return nil
		}
		old := s.pods[st.name]
		s.pods[st.name] = st.pod
		s.server[st.name] = st.pod
		return []dtDelivery{{asAny(old), st.pod}}
	case "delete pod":
		old := s.pods[st.name]
		if old == nil {
			return nil
		}
		s.gone[old.UID] = true
		delete(s.pods, st.name)
		delete(s.server, st.name)
		return []dtDelivery{{old, nil}}
	}
	return nil
}

// asAny keeps a nil pointer nil as an interface.
func asAny[T any](p *T) any {
	if p == nil {
		return nil
	}
	return p
}

// dtFeedback is what a side wrote that its informers bring back at the
// end of a step: pods deleted, rule statuses written.
type dtFeedback struct {
	mu       sync.Mutex
	deleted  []*v1.Pod
	statuses []*resourceapi.DeviceTaintRule // name, UID and the condition
}

func (f *dtFeedback) take() ([]*v1.Pod, []*resourceapi.DeviceTaintRule) {
	f.mu.Lock()
	defer f.mu.Unlock()
	d, s := f.deleted, f.statuses
	f.deleted, f.statuses = nil, nil
	return d, s
}

// deliver turns the feedback into informer events on the state.
func (s *dtState) feedback(deleted []*v1.Pod, statuses []*resourceapi.DeviceTaintRule) []dtDelivery {
	var out []dtDelivery
	for _, p := range deleted {
		if old := s.pods[p.Name]; old != nil && old.UID == p.UID {
			s.gone[p.UID] = true
			delete(s.pods, p.Name)
			out = append(out, dtDelivery{old, nil})
		}
	}
	for _, st := range statuses {
		old := s.rules[st.Name]
		if old == nil || old.UID != st.UID {
			continue
		}
		r := old.DeepCopy()
		r.Status.Conditions = st.Status.Conditions
		s.rules[st.Name] = r
		out = append(out, dtDelivery{old, r})
	}
	return out
}

func dtCondition(name string, c metav1.Condition) string {
	return fmt.Sprintf("status %s %s %s %q gen %d", name, c.Status, c.Reason, c.Message, c.ObservedGeneration)
}

// dtUpRecorder records upstream's events in the trace.
type dtUpRecorder struct{ trace *teTrace }

func (r dtUpRecorder) Event(obj runtime.Object, eventtype, reason, message string) {
	ref := obj.(*v1.ObjectReference)
	r.trace.add(time.Now(), fmt.Sprintf("event %s/%s %s %s: %s", ref.Namespace, ref.Name, ref.UID, reason, message))
}

func (r dtUpRecorder) Eventf(obj runtime.Object, eventtype, reason, messageFmt string, args ...any) {
	r.Event(obj, eventtype, reason, fmt.Sprintf(messageFmt, args...))
}

func (r dtUpRecorder) AnnotatedEventf(obj runtime.Object, _ map[string]string, eventtype, reason, messageFmt string, args ...any) {
	r.Eventf(obj, eventtype, reason, messageFmt, args...)
}

// runUpstreamDeviceTaints plays steps against upstream's controller in a
// testing/synctest bubble (whose clock starts at dtBase): a fake clientset
// that records pod deletions and rule status applies, informer stores fed
// by the test, the event handlers called as informers call them, and one
// worker on upstream's own work queue. The deletions and status writes of
// a step come back through the handlers at its end.
func runUpstreamDeviceTaints(t *testing.T, steps []dtStep) [][]string {
	var out [][]string
	synctest.Test(t, func(t *testing.T) {
		if !time.Now().Equal(dtBase) {
			t.Fatalf("bubble starts at %v, not %v", time.Now(), dtBase)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		trace := &teTrace{start: dtBase}
		client := fake.NewClientset()
		factory := informers.NewSharedInformerFactory(client, 0)
		up, err := devicetainteviction.NewForTest(client, factory, dtUpRecorder{trace}, false)
		if err != nil {
			t.Fatal(err)
		}
		podStore := factory.Core().V1().Pods().Informer().GetIndexer()
		ruleStore := factory.Resource().V1().DeviceTaintRules().Informer().GetIndexer()
		fb := &dtFeedback{}
		st := newDTState()
		client.PrependReactor("delete", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
			da := a.(clienttesting.DeleteAction)
			trace.add(time.Now(), "delete ns/"+da.GetName())
			var uid types.UID
			if pre := da.GetDeleteOptions().Preconditions; pre != nil && pre.UID != nil {
				uid = *pre.UID
			}
			fb.mu.Lock()
			fb.deleted = append(fb.deleted, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: da.GetName(), UID: uid}})
			fb.mu.Unlock()
			return false, nil, nil
		})
		client.PrependReactor("patch", "devicetaintrules", func(a clienttesting.Action) (bool, runtime.Object, error) {
			pa := a.(clienttesting.PatchAction)
			var r resourceapi.DeviceTaintRule
			if err := json.Unmarshal(pa.GetPatch(), &r); err != nil || pa.GetSubresource() != "status" || len(r.Status.Conditions) != 1 {
				t.Errorf("unexpected rule patch %s %s: %v", pa.GetSubresource(), pa.GetPatch(), err)
				return true, nil, err
			}
			r.Name = pa.GetName()
			trace.add(time.Now(), dtCondition(r.Name, r.Status.Conditions[0]))
			fb.mu.Lock()
			fb.statuses = append(fb.statuses, &r)
			fb.mu.Unlock()
			return true, &r, nil
		})
		stop := up.StartWorkers(ctx, 1)
		podGVR := v1.SchemeGroupVersion.WithResource("pods")
		deliver := func(ds []dtDelivery) {
			for _, d := range ds {
				o, n := d.old, d.new
				switch {
				case isPod(o) || isPod(n):
					op, np := asPod(o), asPod(n)
					switch {
					case np == nil:
						_ = podStore.Delete(op)
						_ = client.Tracker().Delete(podGVR, op.Namespace, op.Name)
					case op == nil:
						_ = podStore.Add(np)
						_ = client.Tracker().Add(np)
					default:
						_ = podStore.Update(np)
						_ = client.Tracker().Update(podGVR, np, np.Namespace)
					}
					up.HandlePodChange(op, np)
				case isRule(o) || isRule(n):
					or, nr := asRuleObj(o), asRuleObj(n)
					if nr == nil {
						_ = ruleStore.Delete(or)
					} else {
						_ = ruleStore.Add(nr)
					}
					up.HandleRuleChange(or, nr)
				case isClaim(o) || isClaim(n):
					up.HandleClaimChange(asClaim(o), asClaim(n))
				default:
					up.HandleSliceChange(asSlice(o), asSlice(n))
				}
				synctest.Wait()
			}
		}
		for _, s := range steps {
			if s.kind == "sleep" {
				time.Sleep(s.sleep)
				synctest.Wait()
			} else {
				deliver(st.apply(s))
			}
			// The fake clientset holds the deletions and status writes
			// already; they come back to the informer stores and the
			// handlers.
			deliver(st.feedback(fb.take()))
			out = append(out, trace.take())
		}
		cancel()
		stop()
	})
	return out
}

func isPod(o any) bool   { _, ok := o.(*v1.Pod); return ok }
func isRule(o any) bool  { _, ok := o.(*resourceapi.DeviceTaintRule); return ok }
func isClaim(o any) bool { _, ok := o.(*resourceapi.ResourceClaim); return ok }

func asRuleObj(o any) *resourceapi.DeviceTaintRule {
	r, _ := o.(*resourceapi.DeviceTaintRule)
	return r
}
func asClaim(o any) *resourceapi.ResourceClaim { c, _ := o.(*resourceapi.ResourceClaim); return c }
func asSlice(o any) *resourceapi.ResourceSlice { s, _ := o.(*resourceapi.ResourceSlice); return s }

// dtStats counts what the scenario runs compared.
type dtStats struct {
	scenarios, steps, deletions, statuses, cancels atomic.Int64
}

// runOurDeviceTaints plays steps against devicetaints.Controller with a
// test adapter: time is stepped from one Result.Next to the next within a
// sleep; an eviction gets the pod from the server map, records the
// Marking event and deletes it; status writes are recorded. Deletions and
// status writes come back at the end of the step, as on upstream's side.
func runOurDeviceTaints(steps []dtStep, stats *dtStats) [][]string {
	c := devicetaints.NewController(devicetaints.Options{})
	st := newDTState()
	trace := &teTrace{start: dtBase}
	now := dtBase
	var next time.Time
	var deleted []*v1.Pod
	var statuses []*resourceapi.DeviceTaintRule
	step := func() {
		for {
			res := c.Step(now)
			next = res.Next
			for _, s := range res.Statuses {
				trace.add(now, dtCondition(s.Rule, s.Condition))
				cond := s.Condition
				cond.LastTransitionTime = metav1.NewTime(cond.LastTransitionTime.Truncate(time.Second))
				statuses = append(statuses, &resourceapi.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: s.Rule, UID: s.UID},
					Status: resourceapi.DeviceTaintRuleStatus{Conditions: []metav1.Condition{cond}}})
				stats.statuses.Add(1)
			}
			for _, e := range res.Events {
				trace.add(now, fmt.Sprintf("event %s/%s %s %s: %s", e.Object.Namespace, e.Object.Name, e.Object.UID, e.Reason, e.Message))
				stats.cancels.Add(1)
			}
			for _, e := range res.Evictions {
				p := st.server[e.Pod.Name]
				if p == nil || p.UID != e.UID {
					c.Evicted(e, false)
					continue
				}
				m := devicetaints.Marking(e.Pod, e.UID)
				trace.add(now, fmt.Sprintf("event %s/%s %s %s: %s", m.Object.Namespace, m.Object.Name, m.Object.UID, m.Reason, m.Message))
				trace.add(now, "delete "+e.Pod.String())
				delete(st.server, e.Pod.Name)
				deleted = append(deleted, p)
				c.Evicted(e, true)
				stats.deletions.Add(1)
			}
			if len(res.Evictions) == 0 {
				return
			}
		}
	}
	deliver := func(ds []dtDelivery) {
		for _, d := range ds {
			o, n := d.old, d.new
			switch {
			case isPod(o) || isPod(n):
				c.PodChanged(asPod(o), asPod(n))
			case isRule(o) || isRule(n):
				c.RuleChanged(asRule(asRuleObj(o)), asRule(asRuleObj(n)))
			case isClaim(o) || isClaim(n):
				c.ClaimChanged(asClaim(o), asClaim(n))
			default:
				c.SliceChanged(asSlice(o), asSlice(n))
			}
			step()
		}
	}
	var out [][]string
	for _, s := range steps {
		if s.kind == "sleep" {
			end := now.Add(s.sleep)
			for !next.IsZero() && !next.After(end) {
				now = next
				step()
			}
			now = end
		} else {
			deliver(st.apply(s))
		}
		ds := st.feedback(deleted, statuses)
		deleted, statuses = nil, nil
		deliver(ds)
		out = append(out, trace.take())
		stats.steps.Add(1)
	}
	stats.scenarios.Add(1)
	return out
}

// TestDeviceTaintController plays random scenarios (slices, claims, rules
// and pods written and deleted, the clock stepped) against upstream's
// controller and the library's core, and requires the same trace after
// every step: the pods deleted, the Marking and Cancelling events, the
// rule status conditions written, each at the same instant. Taints are
// added at instants with distinct fractions of a second and toleration
// seconds never differ by exactly the status period, so that an eviction
// and a status check never fall due at the same instant (where upstream's
// queue order decides what the check counts).
func TestDeviceTaintController(t *testing.T) {
	var stats dtStats
	rapid.Check(t, func(rt *rapid.T) {
		steps := dtScenario().Draw(rt, "steps")
		want := runUpstreamDeviceTaints(t, steps)
		got := runOurDeviceTaints(steps, &stats)
		for i := range steps {
			if !slices.Equal(want[i], got[i]) {
				for j := range i + 1 {
					rt.Logf("step %d: %s", j, steps[j])
					rt.Logf("   upstream %q", want[j])
					rt.Logf("   evictkit %q", got[j])
				}
				rt.Fatalf("step %d (%s): upstream %q, evictkit %q", i, steps[i], want[i], got[i])
			}
		}
	})
	t.Logf("%d scenarios, %d steps: %d deletions, %d rule status writes, %d cancellation events, all at upstream's instants",
		stats.scenarios.Load(), stats.steps.Load(), stats.deletions.Load(), stats.statuses.Load(), stats.cancels.Load())
}
