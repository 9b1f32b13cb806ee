package devicetaintevictioncontroller

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"
)

// A rule's status is applied at once when the rule appears, forced, as
// field manager device-taint-eviction-controller; a second pod pending
// for the rule a second later changes the count, but the condition is
// rewritten only once the status period (10 s) since the last write has
// passed.
func TestRuleStatusWritesAreThrottled(t *testing.T) {
	a, b := pod("a"), pod("b")
	h := newHarness(t, slice(resourceapi.Device{Name: "dev0"}), a, claim(a, "dev0", ptr.To[int64](600)),
		rule("r", noExecute("maintenance")))
	h.start()
	h.eventually("first status write", func() bool {
		c := h.ruleCondition("r")
		return c != nil && c.Message == "1 pod needs to be evicted in 1 namespace."
	})
	applies := h.actions("patch", "devicetaintrules", "status")
	if len(applies) != 1 {
		t.Fatalf("%d status writes, want 1", len(applies))
	}
	if pa := applies[0].(clienttesting.PatchActionImpl); pa.GetPatchType() != "application/apply-patch+yaml" ||
		pa.PatchOptions.FieldManager != ControllerName || pa.PatchOptions.Force == nil || !*pa.PatchOptions.Force {
		t.Errorf("status write %s %+v: want a forced apply by %s", pa.GetPatchType(), pa.PatchOptions, ControllerName)
	}

	h.clock.Step(time.Second)
	pods, claims := h.c.handledEvents("pod"), h.c.handledEvents("claim")
	if _, err := h.client.CoreV1().Pods("ns").Create(context.Background(), b, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.client.ResourceV1().ResourceClaims("ns").Create(context.Background(), claim(b, "dev0", ptr.To[int64](600)), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	h.eventually("the new pod's eviction scheduled", func() bool { return h.c.handledEvents("pod") > pods && h.c.handledEvents("claim") > claims })
	h.clock.Step(8 * time.Second) // 9 s after the first write
	if n := len(h.actions("patch", "devicetaintrules", "status")); n != 1 {
		t.Fatalf("%d status writes within the status period, want 1", n)
	}
	h.clock.Step(2 * time.Second) // 11 s: the check asked for at 1 s + 10 s
	h.eventually("second status write", func() bool {
		c := h.ruleCondition("r")
		return c != nil && c.Message == "2 pods need to be evicted in 1 namespace."
	})
	if n := len(h.actions("patch", "devicetaintrules", "status")); n != 2 {
		t.Errorf("%d status writes, want 2", n)
	}
}

// A status write the API server fails is tried again after a backoff on
// the controller's clock.
func TestRetriesAFailedStatusWrite(t *testing.T) {
	h := newHarness(t, slice(resourceapi.Device{Name: "dev0"}), rule("r", noExecute("maintenance")))
	var failures atomic.Int32
	h.client.PrependReactor("patch", "devicetaintrules", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if a.GetSubresource() == "status" && failures.Add(1) == 1 {
			return true, nil, apierrors.NewTooManyRequests("slow down", 1)
		}
		return false, nil, nil
	})
	h.start()
	h.eventually("status written after a failure", func() bool {
		h.clock.Step(100 * time.Millisecond)
		c := h.ruleCondition("r")
		return c != nil && c.Reason == "NotStarted" && c.Status == metav1.ConditionFalse
	})
	if n := failures.Load(); n != 2 {
		t.Errorf("%d status writes, want 2", n)
	}
}
