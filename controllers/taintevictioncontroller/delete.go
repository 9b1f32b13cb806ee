package taintevictioncontroller

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes"
)

// Upstream's DisruptionTarget condition for a pod the controller deletes.
const (
	ConditionReason  = "DeletionByTaintManager"
	ConditionMessage = "Taint manager: deleting due to NoExecute taint"
)

// deleteAttempts and deleteRetryWait are upstream's retries of one deletion:
// five attempts, 10 ms apart.
const (
	deleteAttempts  = 5
	deleteRetryWait = 10 * time.Millisecond
)

// PodRef names the pod an eviction is for: its identity when the eviction
// was scheduled.
type PodRef struct {
	Namespace, Name string
	UID             types.UID
}

func (r PodRef) String() string { return r.Namespace + "/" + r.Name }

// deleter performs a deletion the way upstream's taint-eviction controller
// does: the DisruptionTarget condition is patched onto the pod's status, then
// the pod is deleted; an attempt that fails is repeated up to four times.
type deleter struct {
	client kubernetes.Interface
	now    func() time.Time
}

// deletePod evicts ref. It reports whether this call deleted the pod: false
// with a nil error when the pod was gone or replaced by a pod of the same name
// (another UID) before the delete.
func (d *deleter) deletePod(ctx context.Context, ref PodRef) (deleted bool, err error) {
	for attempt := range deleteAttempts {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return false, fmt.Errorf("taint eviction: deleting pod %s: %w", ref, ctx.Err())
			case <-time.After(deleteRetryWait):
			}
		}
		deleted, err = d.attempt(ctx, ref)
		if err == nil {
			return deleted, nil
		}
	}
	return false, fmt.Errorf("taint eviction: deleting pod %s after %d attempts: %w", ref, deleteAttempts, err)
}

func (d *deleter) attempt(ctx context.Context, ref PodRef) (bool, error) {
	pods := d.client.CoreV1().Pods(ref.Namespace)
	pod, err := pods.Get(ctx, ref.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if ref.UID != "" && pod.UID != ref.UID {
		return false, nil // a new pod under the old name: not the one scheduled
	}
	if patch, ok, err := conditionPatch(pod, d.now()); err != nil {
		return false, err
	} else if ok {
		_, err := pods.Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
			return false, nil // gone, or the UID in the patch no longer matches
		}
		if err != nil {
			return false, err
		}
	}
	err = pods.Delete(ctx, pod.Name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(pod.UID))})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return false, nil
	}
	return err == nil, err
}

// disruptionTarget returns pod's status with upstream's DisruptionTarget
// condition set, and whether that changed the status; pod is not modified.
// As upstream, a condition that differs only in its observed generation
// counts as unchanged.
func disruptionTarget(pod *v1.Pod, now time.Time) (v1.PodStatus, bool) {
	status := *pod.Status.DeepCopy()
	cond := v1.PodCondition{
		Type:               v1.DisruptionTarget,
		Status:             v1.ConditionTrue,
		ObservedGeneration: pod.Generation,
		Reason:             ConditionReason,
		Message:            ConditionMessage,
		LastTransitionTime: metav1.NewTime(now),
	}
	for i := range status.Conditions {
		old := &status.Conditions[i]
		if old.Type != cond.Type {
			continue
		}
		if old.Status == cond.Status {
			cond.LastTransitionTime = old.LastTransitionTime
		}
		same := old.Status == cond.Status && old.Reason == cond.Reason && old.Message == cond.Message &&
			old.LastProbeTime.Equal(&cond.LastProbeTime) && old.LastTransitionTime.Equal(&cond.LastTransitionTime)
		*old = cond
		return status, !same
	}
	status.Conditions = append(status.Conditions, cond)
	return status, true
}

// conditionPatch returns the strategic merge patch of the status
// subresource that sets the DisruptionTarget condition, with the pod's UID in
// it so that the API server rejects it for another pod of the same name.
func conditionPatch(pod *v1.Pod, now time.Time) ([]byte, bool, error) {
	status, changed := disruptionTarget(pod, now)
	if !changed {
		return nil, false, nil
	}
	oldJSON, err := json.Marshal(v1.Pod{Status: pod.Status})
	if err != nil {
		return nil, false, fmt.Errorf("taint eviction: pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	newJSON, err := json.Marshal(v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: pod.UID}, Status: status})
	if err != nil {
		return nil, false, fmt.Errorf("taint eviction: pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(oldJSON, newJSON, v1.Pod{})
	if err != nil {
		return nil, false, fmt.Errorf("taint eviction: pod %s/%s status patch: %w", pod.Namespace, pod.Name, err)
	}
	return patch, true, nil
}
