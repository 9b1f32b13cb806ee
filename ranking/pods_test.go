package ranking

import (
	"testing"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// Builders shared by the table, property and fuzz tests.

// rl builds a ResourceList from name, quantity pairs.
func rl(kv ...string) v1.ResourceList {
	out := v1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[v1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return out
}

func ctr(name string, req, lim v1.ResourceList) v1.Container {
	return v1.Container{Name: name, Resources: v1.ResourceRequirements{Requests: req, Limits: lim}}
}

func sidecar(name string, req, lim v1.ResourceList) v1.Container {
	c := ctr(name, req, lim)
	always := v1.ContainerRestartPolicyAlways
	c.RestartPolicy = &always
	return c
}

type podOpt func(*v1.Pod)

// mkPod returns a pod in namespace "ns" whose UID is its name.
func mkPod(name string, opts ...podOpt) *v1.Pod {
	p := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name)}}
	for _, o := range opts {
		o(p)
	}
	return p
}

func containers(cs ...v1.Container) podOpt {
	return func(p *v1.Pod) { p.Spec.Containers = append(p.Spec.Containers, cs...) }
}

func initContainers(cs ...v1.Container) podOpt {
	return func(p *v1.Pod) { p.Spec.InitContainers = append(p.Spec.InitContainers, cs...) }
}

func priority(v int32) podOpt {
	return func(p *v1.Pod) { p.Spec.Priority = &v }
}

func podResources(req, lim v1.ResourceList) podOpt {
	return func(p *v1.Pod) { p.Spec.Resources = &v1.ResourceRequirements{Requests: req, Limits: lim} }
}

func overhead(l v1.ResourceList) podOpt {
	return func(p *v1.Pod) { p.Spec.Overhead = l }
}

func volumes(vs ...v1.Volume) podOpt {
	return func(p *v1.Pod) { p.Spec.Volumes = append(p.Spec.Volumes, vs...) }
}

func annotations(kv ...string) podOpt {
	return func(p *v1.Pod) {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		for i := 0; i+1 < len(kv); i += 2 {
			p.Annotations[kv[i]] = kv[i+1]
		}
	}
}

// memPod is a pod with one container requesting memory req (none when "").
func memPod(name, req string, opts ...podOpt) *v1.Pod {
	var r v1.ResourceList
	if req != "" {
		r = rl("memory", req)
	}
	return mkPod(name, append([]podOpt{containers(ctr("c", r, nil))}, opts...)...)
}

// storagePod is a pod with one container requesting ephemeral-storage req (none when "").
func storagePod(name, req string, opts ...podOpt) *v1.Pod {
	var r v1.ResourceList
	if req != "" {
		r = rl("ephemeral-storage", req)
	}
	return mkPod(name, append([]podOpt{containers(ctr("c", r, nil))}, opts...)...)
}

func hostPathVol(name string) v1.Volume {
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/x"}}}
}

func emptyDirVol(name string, medium v1.StorageMedium, limit string) v1.Volume {
	ed := &v1.EmptyDirVolumeSource{Medium: medium}
	if limit != "" {
		q := resource.MustParse(limit)
		ed.SizeLimit = &q
	}
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{EmptyDir: ed}}
}

func configMapVol(name string) v1.Volume {
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}}
}

func secretVol(name string) v1.Volume {
	return v1.Volume{Name: name, VolumeSource: v1.VolumeSource{Secret: &v1.SecretVolumeSource{}}}
}

// names returns the pods' names in order.
func names(pods []*v1.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.Name
	}
	return out
}

// usageMap builds a UsageFunc keyed by pod name (= UID in these tests).
func usageMap(m map[string]Usage) UsageFunc {
	byUID := make(map[types.UID]Usage, len(m))
	for k, v := range m {
		byUID[types.UID(k)] = v
	}
	return UsageByUID(byUID)
}

func mustEqualNames(t *testing.T, want []string, pods []*v1.Pod) {
	t.Helper()
	require.Equal(t, want, names(pods))
}
