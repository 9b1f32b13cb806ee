package ranking

import (
	"strconv"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/podresources"
)

// Trust names the source of the pods a caller asks about, and so which of their annotations
// the static and mirror checks may believe. The zero value is [TrustKubelet], upstream's
// reading; the package-level [IsStatic], [IsMirror], [IsCritical], [Evictable] and [Victim]
// use it.
type Trust int

const (
	// TrustKubelet reads pods as the kubelet's own copies, as upstream does: the
	// config-source annotation (set by the kubelet on every pod it loads, "api" for pods of
	// the API server, "file" or "http" for static pods) marks a static pod, and the mirror
	// annotation marks a mirror pod, whatever its value. Use it for pods that come from the
	// kubelet (its pod manager, a simulation of it), never for pods read from the API server:
	// there anyone who may create a pod may set either annotation.
	TrustKubelet Trust = iota
	// TrustAPIServer reads pods as the API server holds them, and believes only what the API
	// server enforces. A pod read from the API server is never static: a static pod appears
	// there only as its mirror pod, and the config-source annotation is an ordinary,
	// user-settable annotation there. A pod is a mirror pod when it carries the mirror
	// annotation and its controller owner reference is the Node named by its spec.nodeName
	// (apiVersion v1, kind Node). The API server forbids adding, changing or removing the
	// mirror annotation after creation (pod update validation) and requires spec.nodeName
	// with it; the NodeRestriction admission plugin lets a kubelet create only pods that
	// carry it, bound to that kubelet's node and controlled by that Node (with its UID). A
	// user who may create pods can still forge both, so this reading narrows the immunity of
	// a forged pod to one that names its Node as its controller.
	TrustAPIServer
)

// String returns "kubelet" or "api-server", or "Trust(n)" for any other value.
func (t Trust) String() string {
	switch t {
	case TrustKubelet:
		return "kubelet"
	case TrustAPIServer:
		return "api-server"
	}
	return "Trust(" + strconv.Itoa(int(t)) + ")"
}

// IsStatic reports whether pod is a static pod as read under t: under [TrustKubelet] its
// config-source annotation is present and is not "api" (upstream's IsStaticPod); under
// [TrustAPIServer] never. A nil pod is not static.
func (t Trust) IsStatic(pod *v1.Pod) bool {
	if pod == nil || t != TrustKubelet {
		return false
	}
	src, ok := pod.Annotations[ConfigSourceAnnotationKey]
	return ok && src != APIServerSource
}

// IsMirror reports whether pod is a mirror pod as read under t: under [TrustKubelet] the
// mirror annotation is present, whatever its value (upstream's IsMirrorPod); under
// [TrustAPIServer] the annotation is present and the pod's controller owner reference is the
// Node of its spec.nodeName. A nil pod is not a mirror pod.
func (t Trust) IsMirror(pod *v1.Pod) bool {
	if pod == nil {
		return false
	}
	if _, ok := pod.Annotations[ConfigMirrorAnnotationKey]; !ok {
		return false
	}
	if t == TrustKubelet {
		return true
	}
	if pod.Spec.NodeName == "" {
		return false
	}
	for _, ref := range pod.OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			return ref.APIVersion == "v1" && ref.Kind == "Node" && ref.Name == pod.Spec.NodeName
		}
	}
	return false
}

// IsCritical reports whether pod may not be evicted, read under t: a static pod, a mirror
// pod, or a pod whose resolved spec.priority is at least [SystemCriticalPriority] (upstream:
// IsCriticalPod). A nil pod is not critical.
func (t Trust) IsCritical(pod *v1.Pod) bool {
	if t.IsStatic(pod) || t.IsMirror(pod) {
		return true
	}
	return podresources.Priority(pod) >= SystemCriticalPriority
}

// Evictable reports whether pod may be evicted, read under t: it is not nil and not
// [Trust.IsCritical].
func (t Trust) Evictable(pod *v1.Pod) bool {
	return pod != nil && !t.IsCritical(pod)
}

// Victim returns the first [Trust.Evictable] pod of ranked, read under t; it reports false
// when none is.
func (t Trust) Victim(ranked []*v1.Pod) (*v1.Pod, bool) {
	for _, p := range ranked {
		if t.Evictable(p) {
			return p, true
		}
	}
	return nil, false
}
