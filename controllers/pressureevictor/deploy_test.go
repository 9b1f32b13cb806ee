package pressureevictor

import (
	"bytes"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// The manifests of deploy/pressure-evictor decode strictly and grant exactly
// what the program uses with its default summary source, the kubelet: get
// on nodes/stats for the summary and on nodes for the kubelet's port, never
// nodes/proxy.
func TestDeployManifests(t *testing.T) {
	docs := func(name string) [][]byte {
		data, err := os.ReadFile("../../deploy/pressure-evictor/" + name)
		require.NoError(t, err)
		return bytes.Split(data, []byte("\n---\n"))
	}

	var ds appsv1.DaemonSet
	require.NoError(t, yaml.UnmarshalStrict(docs("daemonset.yaml")[0], &ds))
	pod := ds.Spec.Template.Spec
	assert.Equal(t, "pressure-evictor", pod.ServiceAccountName)
	assert.Equal(t, "system-node-critical", pod.PriorityClassName)
	require.Len(t, pod.Containers, 1)
	assert.False(t, pod.HostNetwork, "the kubelet is reached at the node's IP over the pod network")
	env := pod.Containers[0].Env
	require.Len(t, env, 2)
	assert.Equal(t, "NODE_NAME", env[0].Name)
	assert.Equal(t, &v1.ObjectFieldSelector{FieldPath: "spec.nodeName"}, env[0].ValueFrom.FieldRef)
	assert.Equal(t, "NODE_IP", env[1].Name, "the default of --node-ip")
	assert.Equal(t, &v1.ObjectFieldSelector{FieldPath: "status.hostIP"}, env[1].ValueFrom.FieldRef)
	for _, a := range pod.Containers[0].Args {
		assert.NotContains(t, a, "--summary-source=proxy", "the kubelet source, which needs no nodes/proxy")
		assert.NotContains(t, a, "--kubelet-insecure-skip-tls-verify")
	}

	rbac := docs("rbac.yaml")
	require.Len(t, rbac, 3)
	var role rbacv1.ClusterRole
	require.NoError(t, yaml.UnmarshalStrict(rbac[1], &role))
	got := map[string][]string{}
	for _, r := range role.Rules {
		for _, res := range r.Resources {
			got[res] = r.Verbs
		}
	}
	assert.Equal(t, map[string][]string{
		"nodes/stats":   {"get"},
		"nodes":         {"get"},
		"pods":          {"get", "list", "watch"},
		"pods/eviction": {"create"},
		"events":        {"create", "patch"},
	}, got)
	var binding rbacv1.ClusterRoleBinding
	require.NoError(t, yaml.UnmarshalStrict(rbac[2], &binding))
	assert.Equal(t, role.Name, binding.RoleRef.Name)
}
