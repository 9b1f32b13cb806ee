package devicetaints

import (
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// schedulingGroup is the API group of PodGroups (scheduling.k8s.io), to
// which a claim may be reserved with WorkloadResourceClaims.
const schedulingGroup = "scheduling.k8s.io"

// podClaim returns the name of the ResourceClaim that the pod's i-th
// spec.resourceClaims entry uses, and whether the claim must be checked to
// belong to the pod, as the DRA helper resourceclaim.PodClaims lists them:
// by name (no check), or through a template once
// status.resourceClaimStatuses names the generated claim (checked). It
// reports false when there is no claim (yet). The claim of the pod's
// extended resources (status.extendedResourceClaimStatus) comes after all
// of these, checked.
func podClaim(pod *v1.Pod, i int) (name string, mustCheckOwner, ok bool) {
	pc := &pod.Spec.ResourceClaims[i]
	switch {
	case pc.ResourceClaimName != nil:
		return *pc.ResourceClaimName, false, true
	case pc.ResourceClaimTemplateName != nil:
		for j := range pod.Status.ResourceClaimStatuses {
			if st := &pod.Status.ResourceClaimStatuses[j]; st.Name == pc.Name {
				if st.ResourceClaimName == nil {
					return "", false, false
				}
				return *st.ResourceClaimName, true, true
			}
		}
	}
	return "", false, false
}

// podGroup returns the name of the pod's PodGroup, if it has one.
func podGroup(pod *v1.Pod) (string, bool) {
	if g := pod.Spec.SchedulingGroup; g != nil && g.PodGroupName != nil {
		return *g.PodGroupName, true
	}
	return "", false
}

// isForPod reports whether claim was made for pod (resourceclaim.IsForPod):
// same namespace, and the pod is the claim's controller or, with
// acceptGroup, the pod's PodGroup is (by name, kind and API group).
func isForPod(pod *v1.Pod, claim *resourceapi.ResourceClaim, acceptGroup bool) bool {
	if claim.Namespace != pod.Namespace {
		return false
	}
	ctrl := metav1.GetControllerOfNoCopy(claim)
	if ctrl != nil && ctrl.UID == pod.UID {
		return true
	}
	group, ok := podGroup(pod)
	return acceptGroup && ok && ctrl != nil && ctrl.Name == group && ctrl.Kind == "PodGroup" &&
		strings.HasPrefix(ctrl.APIVersion, schedulingGroup+"/")
}

// isReservedForPod reports whether claim's status.reservedFor lists pod (by
// UID) or, with acceptGroup, the pod's PodGroup (by name)
// (resourceclaim.IsReservedForPod).
func isReservedForPod(pod *v1.Pod, claim *resourceapi.ResourceClaim, acceptGroup bool) bool {
	for i := range claim.Status.ReservedFor {
		r := &claim.Status.ReservedFor[i]
		if r.UID == pod.UID {
			return true
		}
		if acceptGroup && r.APIGroup == schedulingGroup && r.Resource == "podgroups" {
			if group, ok := podGroup(pod); ok && r.Name == group {
				return true
			}
		}
	}
	return false
}

// claimsUnchanged reports whether an update of a pod leaves what the
// controller reads of it as it was (upstream's filter in handlePodChange):
// its node, its claim statuses in order, its extended-resource claim.
func claimsUnchanged(old, pod *v1.Pod) bool {
	if old.Spec.NodeName != pod.Spec.NodeName {
		return false
	}
	if !slices.EqualFunc(old.Status.ResourceClaimStatuses, pod.Status.ResourceClaimStatuses, func(a, b v1.PodResourceClaimStatus) bool {
		return a.Name == b.Name && sameString(a.ResourceClaimName, b.ResourceClaimName)
	}) {
		return false
	}
	a, b := old.Status.ExtendedResourceClaimStatus, pod.Status.ExtendedResourceClaimStatus
	if a == nil || b == nil {
		return a == b
	}
	return a.ResourceClaimName == b.ResourceClaimName && slices.Equal(a.RequestMappings, b.RequestMappings)
}
