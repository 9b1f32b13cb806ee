package devicetaintevictioncontroller

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// A device tainted NoExecute in its slice: the pod whose claim does not
// tolerate it goes at once, the one tolerating it for 30 s goes when the
// clock reaches the taint's TimeAdded plus 30 s, the one tolerating it
// forever stays. Each deletion carries the pod's UID as a precondition,
// is preceded by the Marking event and the DisruptionTarget condition, and
// is counted.
func TestEvictsAtOnceAndWhenTheTolerationEnds(t *testing.T) {
	now, later, forever := pod("now"), pod("later"), pod("forever")
	h := newHarness(t,
		slice(resourceapi.Device{Name: "dev0", Taints: []resourceapi.DeviceTaint{noExecute("broken")}}),
		now, claim(now, "dev0", nil),
		later, claim(later, "dev0", ptr.To[int64](30)),
		forever, func() *resourceapi.ResourceClaim {
			c := claim(forever, "dev0", nil)
			c.Status.Allocation.Devices.Results[0].Tolerations = []resourceapi.DeviceToleration{{Operator: resourceapi.DeviceTolerationOpExists, Effect: resourceapi.DeviceTaintEffectNoExecute}}
			return c
		}())
	h.start()
	h.waitGone("now")
	if !h.exists("later") || !h.exists("forever") {
		t.Fatal("a tolerating pod was deleted at once")
	}
	h.clock.Step(29 * time.Second)
	if !h.exists("later") {
		t.Fatal("pod later deleted before its toleration ran out")
	}
	h.clock.Step(time.Second)
	h.waitGone("later")
	h.clock.Step(time.Hour)
	if !h.exists("forever") {
		t.Fatal("pod tolerating forever was deleted")
	}

	for _, a := range h.actions("delete", "pods", "") {
		d := a.(clienttesting.DeleteAction)
		if uid := d.GetDeleteOptions().Preconditions; uid == nil || uid.UID == nil || string(*uid.UID) != "uid-"+d.GetName() {
			t.Errorf("delete of %s: preconditions %+v, want its UID", d.GetName(), uid)
		}
	}
	for _, a := range h.actions("patch", "pods", "status") {
		p := string(a.(clienttesting.PatchAction).GetPatch())
		if !strings.Contains(p, "DeletionByDeviceTaintManager") || !strings.Contains(p, `"uid"`) {
			t.Errorf("status patch %s: want the DisruptionTarget condition and the pod's UID", p)
		}
	}
	if n := len(h.actions("patch", "pods", "status")); n != 2 {
		t.Errorf("%d status patches, want 2", n)
	}
	for _, e := range []string{"ns/now Marking for deletion", "ns/later Marking for deletion"} {
		if !h.rec.has(e) {
			t.Errorf("no event %q", e)
		}
	}
	h.eventually("two deletions counted", func() bool { return testutil.ToFloat64(h.m.del.Deletions) == 2 })
	if n := testutil.CollectAndCount(h.m.del.Latency); n != 1 {
		t.Errorf("latency histogram: %d series, want 1", n)
	}
}

// A DeviceTaintRule taints the pool; the pod tolerating it for 60 s is
// scheduled, its rule reports it pending; the rule is deleted before the
// time runs out: the eviction is cancelled (event) and the pod stays.
func TestRuleRemovedCancelsTheEviction(t *testing.T) {
	p := pod("p")
	h := newHarness(t, slice(resourceapi.Device{Name: "dev0"}), p, claim(p, "dev0", ptr.To[int64](60)),
		rule("r", noExecute("maintenance")))
	h.start()
	h.eventually("rule status written", func() bool {
		c := h.ruleCondition("r")
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == "PodsPendingEviction" &&
			c.Message == "1 pod needs to be evicted in 1 namespace."
	})
	if err := h.client.ResourceV1().DeviceTaintRules().Delete(context.Background(), "r", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	h.eventually("cancelling event", func() bool { return h.rec.has("ns/p Cancelling deletion") })
	h.clock.Step(2 * time.Minute)
	if !h.exists("p") || len(h.actions("delete", "pods", "")) != 0 {
		t.Fatal("pod deleted after its rule was removed")
	}
}

// A pod of the same name but another UID (re-created between the decision
// and the delete) is left alone: the delete's UID precondition fails, and
// the next attempt's read finds the other pod and stops, uncounted.
func TestOtherPodUnderTheNameIsLeftAlone(t *testing.T) {
	p := pod("p")
	h := newHarness(t, slice(resourceapi.Device{Name: "dev0", Taints: []resourceapi.DeviceTaint{noExecute("broken")}}),
		p, claim(p, "dev0", nil))
	var replaced atomic.Bool
	h.client.PrependReactor("delete", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		// The pod was replaced just before the delete reached the server.
		replaced.Store(true)
		return true, nil, apierrors.NewConflict(v1.Resource("pods"), "p", errors.New("precondition failed: UID"))
	})
	h.client.PrependReactor("get", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		if !replaced.Load() {
			return false, nil, nil
		}
		q := p.DeepCopy()
		q.UID = "uid-new"
		return true, q, nil
	})
	h.start()
	h.eventually("the delete refused", func() bool { return replaced.Load() })
	h.eventually("the retry's read", func() bool {
		h.clock.Step(time.Second)
		return len(h.actions("get", "pods", "")) >= 2
	})
	h.clock.Step(time.Hour)
	if n := len(h.actions("delete", "pods", "")); n != 1 {
		t.Errorf("%d deletes, want 1 (none of the other pod)", n)
	}
	if n := testutil.ToFloat64(h.m.del.Deletions); n != 0 {
		t.Errorf("%v deletions counted, want 0", n)
	}
}

// A delete that fails with a server error is retried after a backoff on
// the controller's clock until it succeeds; the pod is counted once.
func TestRetriesAFailedDelete(t *testing.T) {
	p := pod("p")
	h := newHarness(t, slice(resourceapi.Device{Name: "dev0", Taints: []resourceapi.DeviceTaint{noExecute("broken")}}),
		p, claim(p, "dev0", nil))
	var failures atomic.Int32
	h.client.PrependReactor("delete", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		if failures.Add(1) <= 2 {
			return true, nil, apierrors.NewInternalError(errors.New("etcd is away"))
		}
		return false, nil, nil
	})
	h.start()
	h.eventually("pod deleted after two failures", func() bool {
		h.clock.Step(time.Second)
		return !h.exists("p")
	})
	if n := failures.Load(); n != 3 {
		t.Errorf("%d delete attempts, want 3", n)
	}
	h.eventually("one deletion counted", func() bool { return testutil.ToFloat64(h.m.del.Deletions) == 1 })
	if n := len(h.actions("patch", "pods", "status")); n != 1 {
		t.Errorf("%d status patches, want 1 (the pod had the condition after the first)", n)
	}
}
