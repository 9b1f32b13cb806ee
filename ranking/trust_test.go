package ranking

import (
	"testing"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestTrustSpec covers the two readings of the static and mirror checks: the kubelet's, which
// believes the annotations, and the API server's, which believes only the mirror annotation
// on a pod controlled by its Node. A pod anyone may create through the API server with
// config.source "file" is evictable there.
func TestTrustSpec(t *testing.T) {
	yes, no := true, false
	owner := func(kind, name string, controller *bool) podOpt {
		return func(p *v1.Pod) {
			p.OwnerReferences = append(p.OwnerReferences, metav1.OwnerReference{APIVersion: "v1", Kind: kind, Name: name, Controller: controller})
		}
	}
	onNode := func(p *v1.Pod) { p.Spec.NodeName = "n1" }
	mirror := annotations(ConfigMirrorAnnotationKey, "hash")
	tests := []struct {
		name                               string
		pod                                *v1.Pod
		kubeletCritical, apiServerCritical bool
	}{
		{"config.source file", mkPod("p", onNode, annotations(ConfigSourceAnnotationKey, "file")), true, false},
		{"config.source http", mkPod("p", onNode, annotations(ConfigSourceAnnotationKey, "http")), true, false},
		{"mirror annotation alone", mkPod("p", onNode, mirror), true, false},
		{"mirror annotation, controlled by its Node", mkPod("p", onNode, mirror, owner("Node", "n1", &yes)), true, true},
		{"mirror annotation, controlled by another Node", mkPod("p", onNode, mirror, owner("Node", "n2", &yes)), true, false},
		{"mirror annotation, Node owner not controller", mkPod("p", onNode, mirror, owner("Node", "n1", &no)), true, false},
		{"mirror annotation, controlled by a ReplicaSet", mkPod("p", onNode, mirror, owner("ReplicaSet", "n1", &yes)), true, false},
		{"Node controller without the annotation", mkPod("p", onNode, owner("Node", "n1", &yes)), false, false},
		{"mirror annotation and Node controller, unbound", mkPod("p", mirror, owner("Node", "", &yes)), true, false},
		{"critical priority", mkPod("p", onNode, priority(2000000000)), true, true},
		{"plain", mkPod("p", onNode), false, false},
		{"nil", nil, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.kubeletCritical, TrustKubelet.IsCritical(tc.pod), "kubelet")
			assert.Equal(t, IsCritical(tc.pod), TrustKubelet.IsCritical(tc.pod), "the package functions are the kubelet's reading")
			assert.Equal(t, tc.apiServerCritical, TrustAPIServer.IsCritical(tc.pod), "API server")
			assert.False(t, TrustAPIServer.IsStatic(tc.pod), "a pod of the API server is never static")
			assert.Equal(t, !tc.apiServerCritical && tc.pod != nil, TrustAPIServer.Evictable(tc.pod))
		})
	}
	forged := mkPod("forged", onNode, annotations(ConfigSourceAnnotationKey, "file"))
	v, ok := TrustAPIServer.Victim([]*v1.Pod{forged})
	assert.True(t, ok)
	assert.Same(t, forged, v)
	_, ok = Victim([]*v1.Pod{forged})
	assert.False(t, ok, "the kubelet's reading keeps upstream's answer")
	assert.Equal(t, "api-server", TrustAPIServer.String())
	assert.Equal(t, "Trust(7)", Trust(7).String())
}
