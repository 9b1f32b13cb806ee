package statsummary

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/ranking"
)

func apiPod(ns, name string, uid types.UID, annotations map[string]string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: uid, Annotations: annotations}}
}

// joinSummary has a static pod, a pod recreated under the same name (both
// generations listed), and two pods sharing a UID across namespaces.
func joinSummary() *Summary {
	s := &Summary{Pods: []Pod{
		{Ref: PodRef{"kube-system", "etcd-cp-1", "2958a27b36cc29ea8f760ddc13ad0ee8"}, Usage: ranking.Usage{MemoryWorkingSet: 1}},
		{Ref: PodRef{"shop", "db-0", "old"}, Usage: ranking.Usage{MemoryWorkingSet: 2}},
		{Ref: PodRef{"shop", "db-0", "new"}, Usage: ranking.Usage{MemoryWorkingSet: 3}},
		{Ref: PodRef{"a", "web", "same"}, Usage: ranking.Usage{MemoryWorkingSet: 4}},
		{Ref: PodRef{"b", "web", "same"}, Usage: ranking.Usage{MemoryWorkingSet: 5}},
		{Ref: PodRef{"shop", "db-0", "new"}, Usage: ranking.Usage{MemoryWorkingSet: 6}},
	}}
	return s
}

func TestUsage(t *testing.T) {
	mirror := map[string]string{
		ranking.ConfigSourceAnnotationKey: "file",
		ranking.ConfigMirrorAnnotationKey: "2958a27b36cc29ea8f760ddc13ad0ee8",
	}
	tests := []struct {
		name string
		pod  *v1.Pod
		want uint64 // working set of the entry found; 0 for none
	}{
		{"a mirror pod finds its static pod by the mirror annotation", apiPod("kube-system", "etcd-cp-1", "d3a1f7c0-api-uid", mirror), 1},
		{"a mirror pod whose annotation names another hash has no stats",
			apiPod("kube-system", "etcd-cp-1", "2958a27b36cc29ea8f760ddc13ad0ee8", map[string]string{ranking.ConfigMirrorAnnotationKey: "other"}), 0},
		{"a mirror pod with an empty annotation matches by name", apiPod("kube-system", "etcd-cp-1", "d3a1f7c0-api-uid", map[string]string{ranking.ConfigMirrorAnnotationKey: ""}), 1},
		{"the current generation, the last entry of its UID", apiPod("shop", "db-0", "new", nil), 6},
		{"the previous generation", apiPod("shop", "db-0", "old", nil), 2},
		{"a third generation has no stats yet", apiPod("shop", "db-0", "newer", nil), 0},
		{"a pod without a UID takes the last entry of its name", apiPod("shop", "db-0", "", nil), 6},
		{"namespace and name must both match", apiPod("b", "web", "same", nil), 5},
		{"another namespace", apiPod("c", "web", "same", nil), 0},
		{"nil pod", nil, 0},
	}
	decoded := joinSummary()
	decoded.index()
	for _, s := range []*Summary{joinSummary(), decoded} {
		indexed := s.byName != nil
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				u, ok := s.Usage(tc.pod)
				assert.Equal(t, tc.want != 0, ok, "indexed %v", indexed)
				assert.Equal(t, tc.want, u.MemoryWorkingSet, "indexed %v", indexed)
			})
		}
	}
	var none *Summary
	_, ok := none.Usage(apiPod("a", "b", "c", nil))
	assert.False(t, ok, "a nil summary has no entries")
}

func TestUsageFuncRanks(t *testing.T) {
	s, err := Decode(readTestdata(t, "imagefs-shared.json"))
	require.NoError(t, err)
	// The API's view: mirror pods for the four static pods, API UIDs.
	var pods []*v1.Pod
	for i, p := range s.Pods {
		var ann map[string]string
		uid := p.Ref.UID
		if p.Ref.Namespace == "kube-system" && i < 4 {
			ann = map[string]string{ranking.ConfigMirrorAnnotationKey: string(p.Ref.UID), ranking.ConfigSourceAnnotationKey: "file"}
			uid = types.UID("mirror-" + p.Ref.Name)
		}
		pods = append(pods, apiPod(p.Ref.Namespace, p.Ref.Name, uid, ann))
	}
	for _, p := range pods {
		_, ok := s.Usage(p)
		assert.True(t, ok, "%s/%s has stats", p.Namespace, p.Name)
	}
	byUID := ranking.UsageByUID(s.ByUID())
	lost := 0
	for _, p := range pods {
		if _, ok := byUID(p); !ok {
			lost++
		}
	}
	assert.Equal(t, 4, lost, "a join by UID alone loses the static pods")

	ranking.ForMemory(pods, s.Usage, ranking.Options{})
	// No pod requests memory or has a priority, so the largest working set
	// ranks first: kube-apiserver, then etcd, kube-controller-manager and
	// kube-scheduler, all static, which the kubelet does not evict; the
	// victim is the largest of the others.
	assert.Equal(t, "kube-apiserver-cp-1", pods[0].Name)
	victim, ok := ranking.Victim(pods)
	require.True(t, ok)
	assert.Equal(t, "kube-proxy-5vq7d", victim.Name)
}

func TestKubeletUID(t *testing.T) {
	assert.Equal(t, types.UID("hash"), KubeletUID(apiPod("a", "b", "api", map[string]string{ranking.ConfigMirrorAnnotationKey: "hash"})))
	assert.Equal(t, types.UID("api"), KubeletUID(apiPod("a", "b", "api", map[string]string{ranking.ConfigSourceAnnotationKey: "file"})))
	assert.Equal(t, types.UID(""), KubeletUID(nil))
}

func TestByUID(t *testing.T) {
	m := joinSummary().ByUID()
	assert.Len(t, m, 4)
	assert.Equal(t, uint64(6), m["new"].MemoryWorkingSet, "the last entry of a UID counts")
	assert.Equal(t, uint64(5), m["same"].MemoryWorkingSet)
	var none *Summary
	assert.Empty(t, none.ByUID())
}

func TestUsageAfterPodsChanged(t *testing.T) {
	s, err := Decode([]byte(`{"pods": [{"podRef": {"namespace": "a", "name": "b", "uid": "c"}}, {"podRef": {"namespace": "a", "name": "d", "uid": "e"}}]}`))
	require.NoError(t, err)
	s.Pods = s.Pods[:1]
	_, ok := s.Usage(apiPod("a", "d", "e", nil))
	assert.False(t, ok, "the dropped pod is not found")
	_, ok = s.Usage(apiPod("a", "b", "c", nil))
	assert.True(t, ok)
}
