package taintevictioncontroller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/evictkit/eviction/controllers/internal/podpatch"
	"github.com/evictkit/eviction/tainteviction"
)

// deleteAttempts is upstream's number of attempts of one deletion (five,
// 10 ms apart, then the eviction is dropped): here, the attempts given to a
// deletion refused for good (see permanent) before it is dropped.
const deleteAttempts = 5

// deleter performs a deletion the way upstream's taint-eviction controller
// does: the DisruptionTarget condition is patched onto the pod's status, then
// the pod is deleted. It makes one attempt per call; the core retries (see
// Controller.work).
type deleter struct {
	client kubernetes.Interface
	now    func() time.Time
}

// deletePod makes one attempt at evicting e.Pod. It reports whether this
// call deleted the pod: false with a nil error when the pod was gone,
// already terminating, or replaced by a pod of the same name (another UID)
// before the delete.
func (d *deleter) deletePod(ctx context.Context, e tainteviction.Eviction) (deleted bool, err error) {
	deleted, err = d.attempt(ctx, e)
	if err != nil {
		return false, fmt.Errorf("taint eviction: deleting pod %s: %w", e.Pod, err)
	}
	return deleted, nil
}

// permanent reports whether an attempt that failed with err cannot succeed
// when tried again: the API server answered with a 4xx status other than
// 404 (the pod is gone: not an error here), 408 (request timeout), 409 (a
// conflict, which the next attempt's read resolves) and 429 (too many
// requests). 403 from an admission webhook, 400 and 422 are such answers.
// Server errors, timeouts and errors without a status (the connection
// failed) are transient.
func permanent(err error) bool {
	var status apierrors.APIStatus
	if !errors.As(err, &status) {
		return false
	}
	switch code := status.Status().Code; code {
	case http.StatusNotFound, http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests:
		return false
	default:
		return code >= 400 && code < 500
	}
}

func (d *deleter) attempt(ctx context.Context, e tainteviction.Eviction) (bool, error) {
	pods := d.client.CoreV1().Pods(e.Pod.Namespace)
	pod, err := pods.Get(ctx, e.Pod.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("get: %w", err)
	}
	if e.UID != "" && pod.UID != e.UID {
		return false, nil // a new pod under the old name: not the one scheduled
	}
	if patch, ok, err := conditionPatch(pod, d.now()); err != nil {
		return false, err
	} else if ok {
		_, err := pods.Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		if err != nil {
			// A conflict too is tried again: the next attempt's read tells a
			// pod replaced under the name (the UID in the patch no longer
			// matches: done) from a conflict that passes.
			return false, fmt.Errorf("status patch: %w", err)
		}
	}
	err = pods.Delete(ctx, pod.Name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(pod.UID))})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete: %w", err)
	}
	// The delete of a pod already terminating changes nothing: it is not
	// counted again (a second eviction of the same pod, queued while the
	// first ran, does this).
	return pod.DeletionTimestamp == nil, nil
}

// conditionPatch returns the strategic merge patch of the status
// subresource that sets the DisruptionTarget condition, with the pod's UID in
// it so that the API server rejects it for another pod of the same name.
func conditionPatch(pod *v1.Pod, now time.Time) ([]byte, bool, error) {
	status, changed := tainteviction.DisruptedStatus(pod, now)
	if !changed {
		return nil, false, nil
	}
	patch, err := podpatch.Status(pod, status)
	if err != nil {
		return nil, false, fmt.Errorf("taint eviction: %w", err)
	}
	return patch, true, nil
}
