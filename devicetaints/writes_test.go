package devicetaints_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/devicetaints"
	"github.com/evictkit/eviction/events"
)

func TestDisruptedStatus(t *testing.T) {
	p := pod("p")
	p.Generation = 3
	status, changed := devicetaints.DisruptedStatus(p, t0)
	want := v1.PodCondition{Type: v1.DisruptionTarget, Status: v1.ConditionTrue, Reason: "DeletionByDeviceTaintManager",
		Message: "Device Taint manager: deleting due to NoExecute taint", LastTransitionTime: metav1.NewTime(t0)}
	assert.True(t, changed)
	assert.Equal(t, []v1.PodCondition{want}, status.Conditions, "no observedGeneration, unlike the node taint manager")
	assert.Empty(t, p.Status.Conditions, "the pod is not modified")

	p.Status = status
	again, changed := devicetaints.DisruptedStatus(p, t0.Add(time.Minute))
	assert.False(t, changed, "already marked: upstream deletes without patching")
	assert.Equal(t, status, again)

	p.Status.Conditions[0].Reason = "PreemptionByScheduler"
	replaced, changed := devicetaints.DisruptedStatus(p, t0.Add(time.Minute))
	assert.True(t, changed)
	assert.Equal(t, []v1.PodCondition{want}, replaced.Conditions, "same status: the time stays")

	nilStatus, changed := devicetaints.DisruptedStatus(nil, t0)
	assert.True(t, changed)
	assert.Len(t, nilStatus.Conditions, 1)
}

func TestEvents(t *testing.T) {
	pod := types.NamespacedName{Namespace: "ns", Name: "p"}
	assert.Equal(t, events.Event{
		Object: v1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: "ns", Name: "p", UID: "u"},
		Type:   v1.EventTypeNormal, Reason: "DeviceTaintManagerEviction", Message: "Marking for deletion",
	}, devicetaints.Marking(pod, "u"))
	assert.Equal(t, "Cancelling deletion", devicetaints.Cancelling(pod, "u").Message)
}
