// Package podpatch builds the status patch the controllers send before they
// delete a pod: a strategic merge patch of the status subresource from the
// pod's status to a new one, carrying the pod's UID so that the API server
// rejects it for another pod of the same name (as kube-controller-manager's
// PatchPodStatus does).
package podpatch

import (
	"encoding/json"
	"fmt"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// Status returns the strategic merge patch that turns pod's status into
// status, with pod's UID in it. pod is not modified.
func Status(pod *v1.Pod, status v1.PodStatus) ([]byte, error) {
	oldJSON, err := json.Marshal(v1.Pod{Status: pod.Status})
	if err != nil {
		return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	newJSON, err := json.Marshal(v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: pod.UID}, Status: status})
	if err != nil {
		return nil, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(oldJSON, newJSON, v1.Pod{})
	if err != nil {
		return nil, fmt.Errorf("pod %s/%s status patch: %w", pod.Namespace, pod.Name, err)
	}
	return patch, nil
}
