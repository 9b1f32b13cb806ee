package ranking

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

const (
	be = v1.PodQOSBestEffort
	bu = v1.PodQOSBurstable
	gu = v1.PodQOSGuaranteed
)

func guaranteed(name string) v1.Container {
	return ctr(name, rl("cpu", "100m", "memory", "100Mi"), rl("cpu", "100m", "memory", "100Mi"))
}

func bestEffort(name string) v1.Container { return ctr(name, nil, nil) }

// TestQOSClassSpec covers the QoS classes: Guaranteed, BestEffort and Burstable containers,
// the stored class, defaulting, and pod-level resources with their gates.
func TestQOSClassSpec(t *testing.T) {
	ephemeral := func(p *v1.Pod) {
		p.Spec.EphemeralContainers = []v1.EphemeralContainer{{EphemeralContainerCommon: v1.EphemeralContainerCommon{Name: "debug"}}}
	}
	status := func(c v1.PodQOSClass) podOpt { return func(p *v1.Pod) { p.Status.QOSClass = c } }
	tests := []struct {
		name    string
		pod     *v1.Pod
		opts    Options
		compute v1.PodQOSClass // ComputeQOSClass on the pod as given
		want    v1.PodQOSClass // QOSClass (status, else defaulted)
	}{
		{"requests with ephemeral-storage, equal cpu and memory limits", mkPod("p", containers(ctr("c",
			rl("cpu", "100m", "memory", "100Mi", "ephemeral-storage", "10Gi"), rl("cpu", "100m", "memory", "100Mi")))), Options{}, gu, gu},
		{"no resources", mkPod("p", containers(bestEffort("c"))), Options{}, be, be},
		{"zero requests", mkPod("p", containers(ctr("c", rl("cpu", "0", "memory", "0"), nil))), Options{}, be, be},
		{"zero requests and limits", mkPod("p", containers(ctr("c", rl("cpu", "0", "memory", "0"), rl("cpu", "0", "memory", "0")))), Options{}, be, be},
		{"only ephemeral-storage", mkPod("p", containers(ctr("c", rl("ephemeral-storage", "1Gi"), rl("ephemeral-storage", "1Gi")))), Options{}, be, be},
		{"limits 200m/200Mi", mkPod("p", containers(ctr("c", rl("cpu", "100m", "memory", "100Mi"), rl("cpu", "200m", "memory", "200Mi")))), Options{}, bu, bu},
		{"limits 100m/200Mi", mkPod("p", containers(ctr("c", rl("cpu", "100m", "memory", "100Mi"), rl("cpu", "100m", "memory", "200Mi")))), Options{}, bu, bu},
		{"limits 200m/100Mi", mkPod("p", containers(ctr("c", rl("cpu", "100m", "memory", "100Mi"), rl("cpu", "200m", "memory", "100Mi")))), Options{}, bu, bu},
		{"no limits", mkPod("p", containers(ctr("c", rl("cpu", "100m", "memory", "100Mi"), nil))), Options{}, bu, bu},
		{"cpu only", mkPod("p", containers(ctr("c", rl("cpu", "100m"), nil))), Options{}, bu, bu},
		{"G+G", mkPod("p", containers(guaranteed("a"), guaranteed("b"))), Options{}, gu, gu},
		{"BE+BE", mkPod("p", containers(bestEffort("a"), bestEffort("b"))), Options{}, be, be},
		{"G+BE", mkPod("p", containers(guaranteed("a"), bestEffort("b"))), Options{}, bu, bu},
		{"G+init G", mkPod("p", containers(guaranteed("a")), initContainers(guaranteed("b"))), Options{}, gu, gu},
		{"BE+init BE", mkPod("p", containers(bestEffort("a")), initContainers(bestEffort("b"))), Options{}, be, be},
		{"G+init BE", mkPod("p", containers(guaranteed("a")), initContainers(bestEffort("b"))), Options{}, bu, bu},
		{"G+sidecar BE", mkPod("p", containers(guaranteed("a")), initContainers(sidecar("b", nil, nil))), Options{}, bu, bu},
		{"G plus ephemeral container", mkPod("p", containers(guaranteed("a")), ephemeral), Options{}, gu, gu},
		{"limits only", mkPod("p", containers(ctr("c", nil, rl("cpu", "1", "memory", "1Gi")))), Options{}, bu, gu},
		{"stored class wins", mkPod("p", containers(guaranteed("a")), status(be)), Options{}, gu, be},
		{"empty pod-level resources", mkPod("p", containers(guaranteed("a")), podResources(v1.ResourceList{}, v1.ResourceList{})), Options{}, gu, gu},
		{"empty pod-level resources, QOS fix gate off", mkPod("p", containers(guaranteed("a")), podResources(v1.ResourceList{}, v1.ResourceList{})),
			Options{DisablePodLevelResourcesFixKubeletQOSClass: true}, be, be},
		{"pod-level zero cpu and memory", mkPod("p", containers(guaranteed("a")),
			podResources(rl("cpu", "0", "memory", "0"), rl("cpu", "0", "memory", "0"))), Options{}, be, be},
		{"pod-level cpu, memory, hugepages equal", mkPod("p", containers(bestEffort("a")),
			podResources(rl("cpu", "10m", "memory", "100Mi", "hugepages-2Mi", "100Mi"), rl("cpu", "10m", "memory", "100Mi", "hugepages-2Mi", "100Mi"))), Options{}, gu, gu},
		{"pod-level cpu request, hugepages", mkPod("p", containers(bestEffort("a")),
			podResources(rl("cpu", "10m", "hugepages-2Mi", "100Mi"), rl("hugepages-2Mi", "100Mi"))), Options{}, bu, bu},
		{"gate off: containers decide", mkPod("p", containers(bestEffort("a")),
			podResources(rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1", "memory", "1Gi"))), Options{DisablePodLevelResources: true}, be, be},
		// Further cases.
		{"no containers", mkPod("p"), Options{}, be, be},
		{"value comparison 1Gi = 1073741824", mkPod("p", containers(ctr("c", rl("cpu", "1", "memory", "1Gi"), rl("cpu", "1000m", "memory", "1073741824")))), Options{}, gu, gu},
		{"pod-level limits only are defaulted into requests", mkPod("p", containers(bestEffort("a")),
			podResources(nil, rl("cpu", "1", "memory", "1Gi"))), Options{}, bu, gu},
		{"pod-level requests get limits from fully limited containers", mkPod("p",
			containers(ctr("a", nil, rl("cpu", "1", "memory", "1Gi"))), podResources(rl("cpu", "1", "memory", "1Gi"), nil)), Options{}, bu, gu},
		{"old defaulting never sets pod-level limits", mkPod("p",
			containers(ctr("a", nil, rl("cpu", "1", "memory", "1Gi"))), podResources(rl("cpu", "1", "memory", "1Gi"), nil)),
			Options{DisablePodLevelResourcesFixDefaulting: true}, bu, bu},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.pod.DeepCopy()
			assert.Equal(t, tc.compute, ComputeQOSClass(tc.pod, tc.opts), "ComputeQOSClass")
			assert.Equal(t, tc.want, QOSClass(tc.pod, tc.opts), "QOSClass")
			require.Equal(t, before, tc.pod, "pod modified")
			if tc.pod.Status.QOSClass == "" {
				// QOSClass is ComputeQOSClass after defaulting.
				assert.Equal(t, tc.want, ComputeQOSClass(DefaultedRequests(tc.pod, tc.opts), tc.opts), "ComputeQOSClass(DefaultedRequests)")
			}
		})
	}
	assert.Equal(t, be, QOSClass(nil, Options{}))
	assert.Equal(t, be, ComputeQOSClass(nil, Options{}))
}

// TestDefaultedRequests checks the container- and pod-level defaulting rules the API server applies before it stores a pod.
func TestDefaultedRequests(t *testing.T) {
	tests := []struct {
		name         string
		pod          *v1.Pod
		opts         Options
		wantCtrReq   v1.ResourceList // first regular container
		wantPodReq   v1.ResourceList
		wantPodLimit v1.ResourceList
	}{
		{
			name:       "container limits fill missing requests only",
			pod:        mkPod("p", containers(ctr("c", rl("cpu", "100m"), rl("cpu", "1", "memory", "1Gi")))),
			wantCtrReq: rl("cpu", "100m", "memory", "1Gi"),
		},
		{
			name: "a: hugepage limits from containers; b: cpu and memory requests from containers",
			pod: mkPod("p",
				containers(ctr("c", rl("cpu", "100m"), rl("memory", "1Gi", "hugepages-2Mi", "4Mi"))),
				initContainers(sidecar("s", rl("cpu", "50m"), nil)),
				podResources(nil, rl("cpu", "2"))),
			wantCtrReq:   rl("cpu", "100m", "memory", "1Gi", "hugepages-2Mi", "4Mi"),
			wantPodReq:   rl("cpu", "150m", "memory", "1Gi", "hugepages-2Mi", "4Mi"),
			wantPodLimit: rl("cpu", "2", "hugepages-2Mi", "4Mi"),
		},
		{
			name: "c: limit = max(pod request, container limits) when every container has one",
			pod: mkPod("p",
				containers(ctr("c", nil, rl("memory", "1Gi")), ctr("d", nil, rl("memory", "1Gi", "cpu", "1"))),
				podResources(rl("memory", "3Gi", "cpu", "500m"), nil)),
			wantCtrReq:   rl("memory", "1Gi"),
			wantPodReq:   rl("memory", "3Gi", "cpu", "500m"),
			wantPodLimit: rl("memory", "3Gi"),
		},
		{
			name: "c: aggregated container limit wins over a smaller pod request",
			pod: mkPod("p",
				containers(ctr("c", nil, rl("memory", "1Gi")), ctr("d", nil, rl("memory", "1Gi"))),
				podResources(rl("memory", "1Gi"), nil)),
			wantCtrReq:   rl("memory", "1Gi"),
			wantPodReq:   rl("memory", "1Gi"),
			wantPodLimit: rl("memory", "2Gi"),
		},
		{
			name: "legacy: no pod-level limits, no request defaulting",
			pod: mkPod("p", containers(ctr("c", rl("cpu", "1"), nil)),
				podResources(rl("memory", "1Gi"), nil)),
			opts:       Options{DisablePodLevelResourcesFixDefaulting: true},
			wantCtrReq: rl("cpu", "1"),
			wantPodReq: rl("memory", "1Gi"),
		},
		{
			name: "gate off: no pod-level defaulting",
			pod: mkPod("p", containers(ctr("c", rl("cpu", "1"), nil)),
				podResources(nil, rl("memory", "1Gi"))),
			opts:         Options{DisablePodLevelResources: true},
			wantCtrReq:   rl("cpu", "1"),
			wantPodLimit: rl("memory", "1Gi"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.pod.DeepCopy()
			got := DefaultedRequests(tc.pod, tc.opts)
			require.Equal(t, before, tc.pod, "input modified")
			assertList(t, tc.wantCtrReq, got.Spec.Containers[0].Resources.Requests, "container requests")
			if got.Spec.Resources != nil {
				assertList(t, tc.wantPodReq, got.Spec.Resources.Requests, "pod requests")
				assertList(t, tc.wantPodLimit, got.Spec.Resources.Limits, "pod limits")
			}
			again := DefaultedRequests(got, tc.opts)
			require.Equal(t, got, again, "not idempotent")
		})
	}
	assert.Nil(t, DefaultedRequests(nil, Options{}))
}

// assertList compares resource lists by value (1Gi equals 1073741824).
func assertList(t *testing.T, want, got v1.ResourceList, what string) {
	t.Helper()
	if len(want) != len(got) {
		t.Errorf("%s = %v, want %v", what, got, want)
		return
	}
	for name, w := range want {
		g, ok := got[name]
		if !ok || g.Cmp(w) != 0 {
			t.Errorf("%s = %v, want %v", what, got, want)
			return
		}
	}
}
