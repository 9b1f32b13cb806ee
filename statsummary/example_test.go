package statsummary_test

import (
	"fmt"
	"os"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/statsummary"
	"github.com/evictkit/eviction/thresholds"
)

func ExampleDecode() {
	// kubectl get --raw /api/v1/nodes/cp-1/proxy/stats/summary
	data, err := os.ReadFile("testdata/imagefs-shared.json")
	if err != nil {
		panic(err)
	}
	s, err := statsummary.Decode(data)
	if err != nil {
		panic(err)
	}
	obs := thresholds.MakeObservations(s.Node, thresholds.Linux)
	for _, sig := range []thresholds.Signal{thresholds.MemoryAvailable, thresholds.NodeFsAvailable, thresholds.PIDAvailable} {
		fmt.Printf("%s: %v of %v\n", sig, obs[sig].Available, obs[sig].Capacity)
	}

	// The API server's pods: etcd is a mirror pod with an API UID of its own.
	etcd := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: "kube-system", Name: "etcd-cp-1", UID: "0b7e3d6a-0c29-4f1e-9d8e-5f1f3a0c2e11",
		Annotations: map[string]string{
			ranking.ConfigSourceAnnotationKey: "file",
			ranking.ConfigMirrorAnnotationKey: "2958a27b36cc29ea8f760ddc13ad0ee8",
		},
	}}
	proxy := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Namespace: "kube-system", Name: "kube-proxy-5vq7d", UID: "3685156b-89c8-0c4d-e936-7ed92aa3300b",
	}}
	pods := []*v1.Pod{proxy, etcd}
	ranking.ForMemory(pods, s.Usage, ranking.Options{})
	for _, p := range pods {
		u, _ := s.Usage(p)
		fmt.Printf("%s: working set %d MiB, evictable %v\n", p.Name, u.MemoryWorkingSet>>20, ranking.Evictable(p))
	}
	// Output:
	// memory.available: 6528350290 of 16Gi
	// nodefs.available: 31Gi of 97Gi
	// pid.available: 4192896 of 4194304
	// etcd-cp-1: working set 412 MiB, evictable false
	// kube-proxy-5vq7d: working set 42 MiB, evictable true
}

func ExampleDecode_error() {
	_, err := statsummary.Decode([]byte(`{"pods": [{"containers": [{"name": "app", "memory": {"workingSetBytes": -5}}]}]}`))
	fmt.Println(err)
	// Output:
	// statsummary: pods[0].containers[0].memory.workingSetBytes: negative value -5
}

func ExampleKubeletUID() {
	mirror := &v1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: "kube-apiserver-cp-1", UID: "5c0d1f9e-api",
		Annotations: map[string]string{ranking.ConfigMirrorAnnotationKey: "6268c7fc4cfa744ff08889f76b3d917a"},
	}}
	fmt.Println(statsummary.KubeletUID(mirror))
	// Output:
	// 6268c7fc4cfa744ff08889f76b3d917a
}
