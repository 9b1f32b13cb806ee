package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/evictkit/eviction/devicetaints"
)

// The device-taint eviction equivalence: kube-controller-manager's
// device-taint-eviction-controller against ours, on the real control plane.
// As upstream's integration tests do, no scheduler or DRA driver runs: the
// test publishes a ResourceSlice itself, writes each claim's allocation and
// reservation for its pod, and taints devices in the slice or through
// DeviceTaintRules.

var (
	ourDeviceTaint = variant{name: "ours-device-taint-eviction", deviceTaintEviction: true}
	draVariants    = []variant{upstream, ourDeviceTaint}
)

// The test driver, its device class, and the node every pod of the DRA
// scenarios is bound to (named with no scenario's prefix, so that its
// changes are in no scenario's trace).
const (
	draDriver = "gpu.evictkit.io"
	draClass  = "evictkit-gpu"
	draNode   = "dra-node"
)

// draScenarios are the DRA scenarios a run takes.
func draScenarios() []scenario {
	return []scenario{
		{"DeviceTaintedInSlice", "dt1", deviceTaintedInSlice},
		{"RuleEvictsPool", "dt2", ruleEvictsPool},
		{"RuleRemovedBeforeTimeRunsOut", "dt3", ruleRemovedBeforeTimeRunsOut},
		{"NoneEffectRule", "dt4", noneEffectRule},
	}
}

const evictedByDeviceTaint = "DeletionByDeviceTaintManager"

// deviceTaintedInSlice: the driver taints three devices of its slice
// NoExecute. The pod whose claim does not tolerate the taint goes at once,
// the one that tolerates it for 3 s three seconds after the taint's
// timeAdded, the one that tolerates it forever stays, and so does the pod on
// the untainted device.
func deviceTaintedInSlice(t *testing.T, c *cluster) {
	ns := c.namespace(t, "dt1")
	pool := "dt1-pool"
	c.createSlice(t, "dt1-slice", pool, "dev-0", "dev-1", "dev-2", "dev-3")
	c.createClaimPod(t, ns, "none", pool, "dev-0")
	c.createClaimPod(t, ns, "forever", pool, "dev-1", tolerateDevice(nil))
	c.createClaimPod(t, ns, "three", pool, "dev-2", tolerateDevice(ptr(int64(3))))
	c.createClaimPod(t, ns, "untainted", pool, "dev-3")

	c.taintSliceDevices(t, "dt1-slice", resourceapi.DeviceTaint{Key: deviceTaintKey, Value: "ecc", Effect: resourceapi.DeviceTaintEffectNoExecute}, "dev-0", "dev-1", "dev-2")
	c.waitEvictedBy(t, patience, ns, "none", evictedByDeviceTaint)
	c.waitEvictedBy(t, patience, ns, "three", evictedByDeviceTaint)
	c.waitDeviceTaintEvents(t, ns, map[string][]string{"none": {"Marking for deletion"}, "three": {"Marking for deletion"}})
	c.requirePresent(t, ns, "forever", "untainted")
}

// ruleEvictsPool: a NoExecute DeviceTaintRule taints one pool. The pod that
// does not tolerate it goes at once, the one that tolerates it forever
// stays, and so does the pod on a device of another pool. The rule's status
// says one pod is pending eviction, then, ten seconds later, that the
// eviction completed.
func ruleEvictsPool(t *testing.T, c *cluster) {
	ns := c.namespace(t, "dt2")
	pool, other := "dt2-pool", "dt2-other"
	c.createSlice(t, "dt2-slice", pool, "dev-0", "dev-1")
	c.createSlice(t, "dt2-other", other, "dev-0")
	c.createClaimPod(t, ns, "none", pool, "dev-0")
	c.createClaimPod(t, ns, "forever", pool, "dev-1", tolerateDevice(nil))
	c.createClaimPod(t, ns, "other-pool", other, "dev-0")
	c.awaitCaches(t, ns, "dt2")

	c.createRule(t, "dt2-rule", pool, resourceapi.DeviceTaintEffectNoExecute)
	c.waitEvictedBy(t, patience, ns, "none", evictedByDeviceTaint)
	c.waitRuleCondition(t, "dt2-rule", "Completed")
	c.waitDeviceTaintEvents(t, ns, map[string][]string{"none": {"Marking for deletion"}})
	c.requirePresent(t, ns, "forever", "other-pool")
}

// ruleRemovedBeforeTimeRunsOut: a NoExecute DeviceTaintRule taints a pool
// whose pod tolerates it for 20 s; the rule is deleted before that runs
// out, and the pod's eviction is cancelled.
func ruleRemovedBeforeTimeRunsOut(t *testing.T, c *cluster) {
	ns := c.namespace(t, "dt3")
	pool := "dt3-pool"
	c.createSlice(t, "dt3-slice", pool, "dev-0", "dev-1")
	c.createClaimPod(t, ns, "twenty", pool, "dev-0", tolerateDevice(ptr(int64(20))))
	c.createClaimPod(t, ns, "forever", pool, "dev-1", tolerateDevice(nil))
	c.awaitCaches(t, ns, "dt3")

	c.createRule(t, "dt3-rule", pool, resourceapi.DeviceTaintEffectNoExecute)
	c.waitRuleCondition(t, "dt3-rule", "PodsPendingEviction")
	if err := c.client.ResourceV1().DeviceTaintRules().Delete(c.ctx, "dt3-rule", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	c.waitDeviceTaintEvents(t, ns, map[string][]string{"twenty": {"Cancelling deletion"}})
	c.requirePresent(t, ns, "twenty", "forever")
}

// noneEffectRule: a DeviceTaintRule with the None effect evicts nothing; its
// status reports what NoExecute would do: the pool's three devices, the two
// allocated, and the one pod that does not tolerate the taint.
func noneEffectRule(t *testing.T, c *cluster) {
	ns := c.namespace(t, "dt4")
	pool := "dt4-pool"
	c.createSlice(t, "dt4-slice", pool, "dev-0", "dev-1", "dev-2")
	c.createClaimPod(t, ns, "none", pool, "dev-0")
	c.createClaimPod(t, ns, "forever", pool, "dev-1", tolerateDevice(nil))
	c.awaitCaches(t, ns, "dt4")

	c.createRule(t, "dt4-rule", pool, resourceapi.DeviceTaintEffectNone)
	cond := c.waitRuleCondition(t, "dt4-rule", "NoEffect")
	const want = "3 published devices selected. 2 allocated devices selected. 1 pod would be evicted in 1 namespace if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule to trigger an update."
	if cond.Message != want || cond.Status != metav1.ConditionFalse {
		t.Errorf("rule dt4-rule: condition %s %q, want False %q", cond.Status, cond.Message, want)
	}
	c.requirePresent(t, ns, "none", "forever")
}

// awaitCaches returns once the device-taint eviction controller's caches
// (kube-controller-manager's or ours) hold every ResourceSlice, claim and
// pod the scenario created so far. A rule's status counts what those caches
// hold when the controller sees the rule, and no API tells when a
// controller's watch delivered the objects just written; an eviction does.
// So the scenario publishes, last, a slice of its own pool (prefix-sentinel,
// which no rule of the scenario selects) whose one device is tainted
// NoExecute, and a claim allocated on that device for a pod "sentinel" that
// does not tolerate the taint, and waits for that pod's eviction. The
// controller evicts it only once it has seen the slice, the claim's
// allocation and the pod; a watch delivers one resource's changes in the
// order of their writes, so by then it has seen every slice, claim and pod
// written before them. The sentinel's changes are in the scenario's trace
// (its namespace and pool carry the prefix) and are the same for both
// controllers: the taint, then the pod's DisruptionTarget, deletion and
// "Marking for deletion" event, before anything the rule causes.
func (c *cluster) awaitCaches(t *testing.T, ns, prefix string) {
	t.Helper()
	pool := prefix + "-sentinel"
	c.createSlice(t, pool, pool, "dev-0")
	c.taintSliceDevices(t, pool, resourceapi.DeviceTaint{Key: deviceTaintKey, Value: "sentinel", Effect: resourceapi.DeviceTaintEffectNoExecute}, "dev-0")
	c.createClaimPod(t, ns, "sentinel", pool, "dev-0")
	c.waitEvictedBy(t, patience, ns, "sentinel", evictedByDeviceTaint)
	c.waitDeviceTaintEvents(t, ns, map[string][]string{"sentinel": {"Marking for deletion"}})
}

const deviceTaintKey = "gpu.evictkit.io/unhealthy"

// tolerateDevice returns a NoExecute toleration of deviceTaintKey for
// seconds (nil: forever).
func tolerateDevice(seconds *int64) resourceapi.DeviceToleration {
	return resourceapi.DeviceToleration{Key: deviceTaintKey, Operator: resourceapi.DeviceTolerationOpExists,
		Effect: resourceapi.DeviceTaintEffectNoExecute, TolerationSeconds: seconds}
}

// TestDeviceTaintEviction runs the DRA scenarios on kube-controller-
// manager with its device-taint-eviction-controller, and on kube-
// controller-manager without it and our device-taint-eviction-controller in
// its place. Each run is judged against its own inputs (checkTimes: a pod's
// DisruptionTarget when its toleration, counted from the taint's timeAdded,
// runs out; a rule's status at once, then no sooner than ten seconds
// later); then ours is compared with kube-controller-manager's: the same
// DisruptionTarget conditions, deletions, DeviceTaintManagerEviction Events
// and rule status conditions, in the same causal order (compareRuns).
func TestDeviceTaintEviction(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	t.Parallel()
	var traces runs
	dra := draScenarios()
	t.Run("variants", func(t *testing.T) {
		for _, v := range draVariants {
			t.Run(v.name, func(t *testing.T) {
				t.Parallel()
				c := startCluster(t, v)
				tr := c.startTrace(t)
				awaitRules := c.watchDRA(t, tr)
				c.createNode(t, draNode, "dra", v1.ConditionTrue, excluded)
				if _, err := c.client.ResourceV1().DeviceClasses().Create(c.ctx, &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: draClass}}, metav1.CreateOptions{}); err != nil {
					t.Fatal(err)
				}
				starts := map[string]time.Time{}
				for _, s := range dra {
					t.Run(s.name, func(t *testing.T) {
						starts[s.name] = time.Now()
						s.run(t, c)
						t.Logf("%s on %s took %v", s.name, v.name, time.Since(starts[s.name]).Round(100*time.Millisecond))
					})
				}
				awaitRules(t)
				for _, s := range dra {
					start, ran := starts[s.name]
					if !ran {
						continue
					}
					t.Run("times/"+s.name, func(t *testing.T) {
						evs := judgeTimes(t, tr, start, s.prefix, nil)
						traces.add(s.name, v.name, evs)
					})
				}
			})
		}
	})
	for _, s := range dra {
		t.Run("drop-in/"+s.name, func(t *testing.T) { dropIn(t, traces.of(s.name), upstream, draVariants[1:]) })
	}
}

// createSlice publishes a ResourceSlice of the test driver: one pool, in
// one slice, of devices with the given names, available on all nodes.
func (c *cluster) createSlice(t *testing.T, name, pool string, devices ...string) {
	t.Helper()
	s := &resourceapi.ResourceSlice{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.ResourceSliceSpec{
			Driver:   draDriver,
			Pool:     resourceapi.ResourcePool{Name: pool, ResourceSliceCount: 1},
			AllNodes: ptr(true),
		},
	}
	for _, d := range devices {
		s.Spec.Devices = append(s.Spec.Devices, resourceapi.Device{Name: d})
	}
	if _, err := c.client.ResourceV1().ResourceSlices().Create(c.ctx, s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// taintSliceDevices adds taint to the named devices of the slice, as its
// driver would; the API server sets its timeAdded.
func (c *cluster) taintSliceDevices(t *testing.T, name string, taint resourceapi.DeviceTaint, devices ...string) {
	t.Helper()
	err := retryConflict(func() error {
		s, err := c.client.ResourceV1().ResourceSlices().Get(c.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for i := range s.Spec.Devices {
			if slices.Contains(devices, s.Spec.Devices[i].Name) {
				s.Spec.Devices[i].Taints = append(s.Spec.Devices[i].Taints, taint)
			}
		}
		_, err = c.client.ResourceV1().ResourceSlices().Update(c.ctx, s, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// createClaimPod creates a pod bound to draNode that uses a ResourceClaim of
// its own name, then writes the claim's allocation (the device of pool, with
// the request's tolerations) and its reservation for the pod, as the
// scheduler would.
func (c *cluster) createClaimPod(t *testing.T, ns, name, pool, device string, tols ...resourceapi.DeviceToleration) {
	t.Helper()
	claims := c.client.ResourceV1().ResourceClaims(ns)
	claim := &resourceapi.ResourceClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{{
			Name:    "gpu",
			Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: draClass, Tolerations: tols},
		}}}},
	}
	claim, err := claims.Create(c.ctx, claim, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: v1.PodSpec{
			NodeName:       draNode,
			Containers:     []v1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10", Resources: v1.ResourceRequirements{Claims: []v1.ResourceClaim{{Name: "gpu"}}}}},
			ResourceClaims: []v1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &claim.Name}},
		},
	}
	pod, err = c.client.CoreV1().Pods(ns).Create(c.ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	claim.Status.Allocation = &resourceapi.AllocationResult{Devices: resourceapi.DeviceAllocationResult{
		Results: []resourceapi.DeviceRequestAllocationResult{{Request: "gpu", Driver: draDriver, Pool: pool, Device: device, Tolerations: tols}},
	}}
	claim.Status.ReservedFor = []resourceapi.ResourceClaimConsumerReference{{Resource: "pods", Name: pod.Name, UID: pod.UID}}
	if _, err := claims.UpdateStatus(c.ctx, claim, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// createRule creates a DeviceTaintRule that taints every device of pool
// with deviceTaintKey and effect; the API server sets its timeAdded.
func (c *cluster) createRule(t *testing.T, name, pool string, effect resourceapi.DeviceTaintEffect) {
	t.Helper()
	rule := &resourceapi.DeviceTaintRule{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: resourceapi.DeviceTaintRuleSpec{
			DeviceSelector: &resourceapi.DeviceTaintSelector{Driver: ptr(draDriver), Pool: &pool},
			Taint:          resourceapi.DeviceTaint{Key: deviceTaintKey, Value: "maintenance", Effect: effect},
		},
	}
	if _, err := c.client.ResourceV1().DeviceTaintRules().Create(c.ctx, rule, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// waitRuleCondition waits until the rule's EvictionInProgress condition has
// the reason, and returns it.
func (c *cluster) waitRuleCondition(t *testing.T, name, reason string) metav1.Condition {
	t.Helper()
	var got metav1.Condition
	eventually(t, patience, "rule "+name+" condition "+reason, func() (bool, string) {
		r, err := c.client.ResourceV1().DeviceTaintRules().Get(c.ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, cond := range r.Status.Conditions {
			if cond.Type == resourceapi.DeviceTaintConditionEvictionInProgress {
				got = cond
				return cond.Reason == reason, fmt.Sprintf("%+v", cond)
			}
		}
		return false, "no condition"
	})
	return got
}

// waitDeviceTaintEvents waits until the DeviceTaintManagerEviction Events
// about the pods of ns include the wanted messages, by pod name, so that a
// scenario's trace is complete when it is taken.
func (c *cluster) waitDeviceTaintEvents(t *testing.T, ns string, want map[string][]string) {
	t.Helper()
	eventually(t, patience, "DeviceTaintManagerEviction events in "+ns, func() (bool, string) {
		evs, err := c.client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "reason=DeviceTaintManagerEviction"})
		if err != nil {
			return false, err.Error()
		}
		got := map[string][]string{}
		for _, e := range evs.Items {
			got[e.InvolvedObject.Name] = append(got[e.InvolvedObject.Name], e.Message)
		}
		for pod, msgs := range want {
			for _, m := range msgs {
				if !slices.Contains(got[pod], m) {
					return false, fmt.Sprint(got)
				}
			}
		}
		return true, ""
	})
}

// deviceUse is one device a pod uses through an allocated claim reserved
// for it, with the tolerations of the claim's request.
type deviceUse struct {
	driver, pool, device string
	tols                 []resourceapi.DeviceToleration
}

// deviceTaint is a taint of one device (of a ResourceSlice) or of the
// devices a DeviceTaintRule selects (an empty field selects every value).
type deviceTaint struct {
	driver, pool, device string
	taint                resourceapi.DeviceTaint
	// added is the taint's timeAdded (in a scenario's trace, as an offset
	// from its start, as event.at is).
	added time.Time
}

func (d deviceTaint) selects(u deviceUse) bool {
	return (d.driver == "" || d.driver == u.driver) && (d.pool == "" || d.pool == u.pool) && (d.device == "" || d.device == u.device)
}

// evicts reports whether the taint evicts a pod that uses devs, and after
// how long from its timeAdded: the shortest toleration of the devices it
// applies to, as kube-controller-manager v1.37.2 counts only tolerations
// whose effect is NoExecute.
func (d deviceTaint) evicts(devs []deviceUse) (after time.Duration, ok bool) {
	if d.taint.Effect != resourceapi.DeviceTaintEffectNoExecute {
		return 0, false
	}
	first := true
	for _, u := range devs {
		if !d.selects(u) {
			continue
		}
		var secs *int64
		tolerated, forever := false, false
		for _, tol := range u.tols {
			if tol.Effect != resourceapi.DeviceTaintEffectNoExecute || !devicetaints.Tolerates(tol, d.taint) {
				continue
			}
			if tol.TolerationSeconds == nil {
				forever = true
				break
			}
			s := max(*tol.TolerationSeconds, 0)
			if !tolerated || s < *secs {
				secs = &s
			}
			tolerated = true
		}
		if forever {
			continue
		}
		a := time.Duration(0)
		if tolerated {
			a = time.Duration(*secs) * time.Second
		}
		if first || a < after {
			after = a
		}
		first, ok = false, true
	}
	return after, ok
}

// watchDRA adds to the trace the device taints of ResourceSlices, the
// DeviceTaintRules (their taint added and removed, their EvictionInProgress
// condition) and, for each pod, the devices it uses.
//
// It returns a wait for the trace to hold every DeviceTaintRule as the API
// server holds it now: a scenario that waited for a rule's status by
// reading the server must not have its trace taken before the trace's own
// watch delivered that status (on a busy machine it can lag).
func (c *cluster) watchDRA(t *testing.T, tr *trace) (awaitRules func(t *testing.T)) {
	f := informers.NewSharedInformerFactory(c.client, 0)
	r := f.Resource().V1()
	claims := r.ResourceClaims().Informer()
	_, _ = r.ResourceSlices().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { tr.slice(nil, obj.(*resourceapi.ResourceSlice)) },
		UpdateFunc: func(old, obj any) { tr.slice(old.(*resourceapi.ResourceSlice), obj.(*resourceapi.ResourceSlice)) },
	})
	var (
		seenMu sync.Mutex
		seen   = map[string]string{} // rule name → resourceVersion the trace handled
	)
	handled := func(rule *resourceapi.DeviceTaintRule) {
		seenMu.Lock()
		defer seenMu.Unlock()
		seen[rule.Name] = rule.ResourceVersion
	}
	awaitRules = func(t *testing.T) {
		t.Helper()
		eventually(t, patience, "the trace holding every DeviceTaintRule as the server does", func() (bool, string) {
			rules, err := c.client.ResourceV1().DeviceTaintRules().List(c.ctx, metav1.ListOptions{})
			if err != nil {
				return false, err.Error()
			}
			seenMu.Lock()
			defer seenMu.Unlock()
			for _, rule := range rules.Items {
				if seen[rule.Name] != rule.ResourceVersion {
					return false, fmt.Sprintf("rule %s at %s on the server, %q in the trace", rule.Name, rule.ResourceVersion, seen[rule.Name])
				}
			}
			return true, ""
		})
	}
	_, _ = r.DeviceTaintRules().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			tr.rule(nil, obj.(*resourceapi.DeviceTaintRule))
			handled(obj.(*resourceapi.DeviceTaintRule))
		},
		UpdateFunc: func(old, obj any) {
			tr.rule(old.(*resourceapi.DeviceTaintRule), obj.(*resourceapi.DeviceTaintRule))
			handled(obj.(*resourceapi.DeviceTaintRule))
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if rule, ok := obj.(*resourceapi.DeviceTaintRule); ok {
				tr.ruleDeleted(rule)
			}
		},
	})
	ctx, cancel := context.WithCancel(c.ctx)
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	t.Cleanup(func() {
		cancel()
		f.Shutdown()
	})
	tr.mu.Lock()
	defer tr.mu.Unlock()
	tr.podDevices = func(pod *v1.Pod) []deviceUse {
		var out []deviceUse
		for _, pc := range pod.Spec.ResourceClaims {
			if pc.ResourceClaimName == nil {
				continue
			}
			obj, ok, _ := claims.GetStore().GetByKey(pod.Namespace + "/" + *pc.ResourceClaimName)
			if !ok {
				continue
			}
			claim := obj.(*resourceapi.ResourceClaim)
			if claim.Status.Allocation == nil || !slices.ContainsFunc(claim.Status.ReservedFor, func(r resourceapi.ResourceClaimConsumerReference) bool {
				return r.Resource == "pods" && r.UID == pod.UID
			}) {
				continue
			}
			for _, res := range claim.Status.Allocation.Devices.Results {
				out = append(out, deviceUse{driver: res.Driver, pool: res.Pool, device: res.Device, tols: res.Tolerations})
			}
		}
		return out
	}
	return awaitRules
}

func taintLine(t resourceapi.DeviceTaint) string { return t.Key + ":" + string(t.Effect) }

func timeAdded(t resourceapi.DeviceTaint) time.Time {
	if t.TimeAdded == nil {
		return time.Time{}
	}
	return t.TimeAdded.Time
}

// slice records each device taint added to or removed from the slice, as
// "device driver/pool/device +key:Effect".
func (tr *trace) slice(old, cur *resourceapi.ResourceSlice) {
	taints := func(s *resourceapi.ResourceSlice, device string) []resourceapi.DeviceTaint {
		if s == nil {
			return nil
		}
		for _, d := range s.Spec.Devices {
			if d.Name == device {
				return d.Taints
			}
		}
		return nil
	}
	for _, d := range cur.Spec.Devices {
		name := "device " + cur.Spec.Driver + "/" + cur.Spec.Pool.Name + "/" + d.Name + " "
		was := taints(old, d.Name)
		for _, tn := range d.Taints {
			if !slices.ContainsFunc(was, func(w resourceapi.DeviceTaint) bool { return taintLine(w) == taintLine(tn) }) {
				dt := &deviceTaint{driver: cur.Spec.Driver, pool: cur.Spec.Pool.Name, device: d.Name, taint: tn, added: timeAdded(tn)}
				tr.addEvent(event{what: name + "+" + taintLine(tn), taint: dt}, cur.ResourceVersion)
			}
		}
		for _, w := range was {
			if !slices.ContainsFunc(d.Taints, func(tn resourceapi.DeviceTaint) bool { return taintLine(w) == taintLine(tn) }) {
				tr.addEvent(event{what: name + "-" + taintLine(w)}, cur.ResourceVersion)
			}
		}
	}
}

func ruleTaint(r *resourceapi.DeviceTaintRule) *deviceTaint {
	dt := &deviceTaint{taint: r.Spec.Taint, added: timeAdded(r.Spec.Taint)}
	if s := r.Spec.DeviceSelector; s != nil {
		dt.driver, dt.pool, dt.device = deref(s.Driver), deref(s.Pool), deref(s.Device)
	}
	return dt
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func ruleCondition(r *resourceapi.DeviceTaintRule) string {
	if r == nil {
		return ""
	}
	for _, c := range r.Status.Conditions {
		if c.Type == resourceapi.DeviceTaintConditionEvictionInProgress {
			return fmt.Sprintf("%s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message)
		}
	}
	return ""
}

// rule records a DeviceTaintRule's taint, as "rule name +key:Effect" (and
// "-" when a change replaces it), and each new EvictionInProgress
// condition, as "rule name EvictionInProgress=True Reason: message".
func (tr *trace) rule(old, cur *resourceapi.DeviceTaintRule) {
	name := "rule " + cur.Name + " "
	if old == nil || taintLine(old.Spec.Taint) != taintLine(cur.Spec.Taint) || !timeAdded(old.Spec.Taint).Equal(timeAdded(cur.Spec.Taint)) {
		if old != nil {
			tr.addEvent(event{what: name + "-" + taintLine(old.Spec.Taint)}, cur.ResourceVersion)
		}
		tr.addEvent(event{what: name + "+" + taintLine(cur.Spec.Taint), taint: ruleTaint(cur)}, cur.ResourceVersion)
	}
	if c := ruleCondition(cur); c != "" && c != ruleCondition(old) {
		tr.addEvent(event{what: name + c}, cur.ResourceVersion)
	}
}

func (tr *trace) ruleDeleted(r *resourceapi.DeviceTaintRule) {
	tr.addEvent(event{what: "rule " + r.Name + " -" + taintLine(r.Spec.Taint)}, r.ResourceVersion)
}

// isDeviceTaintLine reports whether a trace line adds a device or rule
// taint.
func isDeviceTaintLine(c change) bool {
	return (c.kind == "device" || c.kind == "rule") && strings.HasPrefix(c.what, "+")
}

// ruleStatusPeriod is the shortest time between two status writes of one
// DeviceTaintRule (kube-controller-manager's, which ours keeps).
const ruleStatusPeriod = 10 * time.Second

// draWindowOf is windowOf for the changes of the device-taint eviction
// controller: a pod's DisruptionTarget when its toleration of the taint,
// counted from the taint's timeAdded, runs out; a rule's first status at
// once, a later one no sooner than ruleStatusPeriod after the one before.
func (s settings) draWindowOf(evs []event, i int) (w window, handled, ok bool) {
	e := evs[i]
	c := parseChange(e.what)
	at := func(j int) time.Duration { return offset(evs[j]) }
	switch {
	case c.kind == "pod" && c.what == "DisruptionTarget=True" && len(e.devs) > 0:
		j, after := -1, time.Duration(0)
		for k := i - 1; k >= 0; k-- {
			if evs[k].taint == nil || !isDeviceTaintLine(parseChange(evs[k].what)) {
				continue
			}
			if d, ok := evs[k].taint.evicts(e.devs); ok {
				j, after = k, d
				break
			}
		}
		if j < 0 {
			return window{}, true, false
		}
		added := evs[j].taint.added.Sub(time.Time{})
		due := added + after
		// The controller acts once it has seen the taint and, for a pod
		// that arrived later, the pod's claim.
		seen := max(due, at(j))
		for k := j + 1; k < i; k++ {
			if x := parseChange(evs[k].what); x.kind == "pod" && x.name == c.name && x.what == "created" {
				seen = max(seen, at(k))
			}
		}
		return window{due - s.lag, seen + s.hop(),
			fmt.Sprintf("%s (timeAdded %.2fs) + toleration %v", evs[j].what, added.Seconds(), after)}, true, true
	case c.kind == "rule" && strings.HasPrefix(c.what, resourceapi.DeviceTaintConditionEvictionInProgress+"="):
		prev := -1
		for k := i - 1; k >= 0; k-- {
			if x := parseChange(evs[k].what); x.kind == "rule" && x.name == c.name {
				if strings.HasPrefix(x.what, resourceapi.DeviceTaintConditionEvictionInProgress+"=") {
					prev = k
					break
				}
				if strings.HasPrefix(x.what, "+") && prev < 0 {
					// The rule's taint, with no status before it: the
					// first status comes at once.
					return window{at(k), at(k) + s.hop(), fmt.Sprintf("%s at %.2fs, + a reaction", evs[k].what, at(k).Seconds())}, true, true
				}
			}
		}
		if prev < 0 {
			return window{}, true, false
		}
		// A later status follows the evictions and pod changes it counts,
		// ruleStatusPeriod after the last of them or the status before.
		last := at(prev)
		for k := prev + 1; k < i; k++ {
			if x := parseChange(evs[k].what); x.kind == "pod" && (x.what == "deleted" || x.what == "DisruptionTarget=True") {
				last = max(last, at(k))
			}
		}
		// The period runs from when the controller decided the status
		// before, which its write and the watch showed up to a reaction
		// later.
		return window{at(prev) + ruleStatusPeriod - s.hop(), last + ruleStatusPeriod + 2*s.hop(),
			fmt.Sprintf("the status before at %.2fs + %v", at(prev).Seconds(), ruleStatusPeriod)}, true, true
	}
	return window{}, false, false
}
