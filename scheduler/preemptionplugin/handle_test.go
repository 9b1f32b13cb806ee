package preemptionplugin_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	clientset "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/evictkit/eviction/preemption"
)

// handle is a scheduler framework handle over a fake clientset: the
// methods the plugin calls are real, every other one panics through the
// nil embedded interface.
type handle struct {
	fwk.Handle
	client    *fake.Clientset
	informers informers.SharedInformerFactory
	nodes     *nodeLister
	nominated map[string][]fwk.PodInfo
	recorder  *recorder

	mu          sync.Mutex
	activated   []string
	filterCalls int
	// filter, when set, is the profile's Filter verdict.
	filter func(pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status
}

func newHandle(t *testing.T, objs ...runtime.Object) *handle {
	t.Helper()
	client := fake.NewClientset(objs...)
	h := &handle{
		client:    client,
		informers: informers.NewSharedInformerFactory(client, 0),
		nodes:     &nodeLister{},
		nominated: map[string][]fwk.PodInfo{},
		recorder:  &recorder{},
	}
	// The listers must exist before the factory starts.
	h.informers.Core().V1().Pods().Lister()
	h.informers.Policy().V1().PodDisruptionBudgets().Lister()
	return h
}

// start runs the informers until the test ends.
func (h *handle) start(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); h.informers.Shutdown() })
	h.informers.Start(ctx.Done())
	for typ, ok := range h.informers.WaitForCacheSync(ctx.Done()) {
		if !ok {
			t.Fatalf("informer %v did not sync", typ)
		}
	}
}

func (h *handle) ClientSet() clientset.Interface                         { return h.client }
func (h *handle) SharedInformerFactory() informers.SharedInformerFactory { return h.informers }
func (h *handle) SnapshotSharedLister() fwk.SharedLister                 { return sharedLister{h.nodes} }
func (h *handle) EventRecorder() events.EventRecorderLogger              { return h.recorder }
func (h *handle) Parallelizer() fwk.Parallelizer                         { return parallelizer{} }
func (h *handle) Extenders() []fwk.Extender                              { return nil }
func (h *handle) APICacher() fwk.APICacher                               { return nil }
func (h *handle) GetWaitingPod(types.UID) fwk.WaitingPod                 { return nil }
func (h *handle) GetPodInPreBind(types.UID) fwk.PodInPreBind             { return nil }
func (h *handle) NominatedPodsForNode(node string) []fwk.PodInfo         { return h.nominated[node] }

func (h *handle) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for name := range pods {
		h.activated = append(h.activated, name)
	}
}

func (h *handle) RunFilterPlugins(_ context.Context, _ fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	h.mu.Lock()
	h.filterCalls++
	h.mu.Unlock()
	if h.filter != nil {
		return h.filter(pod, ni)
	}
	return nil
}

func (h *handle) RunPreFilterExtensionAddPod(context.Context, fwk.CycleState, *v1.Pod, fwk.PodInfo, fwk.NodeInfo) *fwk.Status {
	return nil
}

func (h *handle) RunPreFilterExtensionRemovePod(context.Context, fwk.CycleState, *v1.Pod, fwk.PodInfo, fwk.NodeInfo) *fwk.Status {
	return nil
}

func (h *handle) activatedPods() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.activated...)
}

type parallelizer struct{}

func (parallelizer) Until(ctx context.Context, pieces int, work workqueue.DoWorkPieceFunc, _ string) {
	workqueue.ParallelizeUntil(ctx, 4, pieces, work)
}

type sharedLister struct{ nodes *nodeLister }

func (s sharedLister) NodeInfos() fwk.NodeInfoLister { return s.nodes }
func (s sharedLister) StorageInfos() fwk.StorageInfoLister {
	panic("not used")
}
func (s sharedLister) PodGroupStates() fwk.PodGroupStateLister { panic("not used") }
func (s sharedLister) PodGroups() fwk.PodGroupLister           { panic("not used") }
func (s sharedLister) CompositePodGroupStates() fwk.CompositePodGroupStateLister {
	panic("not used")
}
func (s sharedLister) CompositePodGroups() fwk.CompositePodGroupLister { panic("not used") }

type nodeLister struct {
	infos []fwk.NodeInfo
}

func (l *nodeLister) List() ([]fwk.NodeInfo, error) { return l.infos, nil }
func (l *nodeLister) HavePodsWithAffinityList() ([]fwk.NodeInfo, error) {
	return nil, nil
}
func (l *nodeLister) HavePodsWithRequiredAntiAffinityList() ([]fwk.NodeInfo, error) {
	var out []fwk.NodeInfo
	for _, ni := range l.infos {
		for _, pi := range ni.GetPods() {
			if a := pi.GetPod().Spec.Affinity; a != nil && a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
				out = append(out, ni)
				break
			}
		}
	}
	return out, nil
}
func (l *nodeLister) HavePodsWithRequiredNonHostScopedAntiAffinityList() ([]fwk.NodeInfo, error) {
	return nil, nil
}
func (l *nodeLister) Get(name string) (fwk.NodeInfo, error) {
	for _, ni := range l.infos {
		if ni.Node().Name == name {
			return ni, nil
		}
	}
	return nil, fmt.Errorf("node %q not found", name)
}

// nodeInfo is the part of fwk.NodeInfo the plugin reads.
type nodeInfo struct {
	fwk.NodeInfo
	node *v1.Node
	pods []fwk.PodInfo
	gen  int64
}

func (n *nodeInfo) Node() *v1.Node         { return n.node }
func (n *nodeInfo) GetPods() []fwk.PodInfo { return n.pods }
func (n *nodeInfo) GetGeneration() int64   { return n.gen }
func (n *nodeInfo) Snapshot() fwk.NodeInfo {
	c := *n
	c.pods = append([]fwk.PodInfo(nil), n.pods...)
	return &c
}
func (n *nodeInfo) AddPodInfo(p fwk.PodInfo) { n.pods = append(n.pods, p) }
func (n *nodeInfo) RemovePod(_ klog.Logger, pod *v1.Pod) error {
	for i, pi := range n.pods {
		if pi.GetPod() == pod {
			n.pods = append(n.pods[:i:i], n.pods[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("pod %s not on node %s", pod.Name, n.node.Name)
}

type podInfo struct {
	fwk.PodInfo
	pod *v1.Pod
}

func (p podInfo) GetPod() *v1.Pod { return p.pod }

// CalculateResource charges the pod as the scheduler's cache does.
func (p podInfo) CalculateResource() fwk.PodResource {
	return fwk.PodResource{Resource: resources(preemption.AssignedPodRequests(p.pod))}
}

// resources is a fwk.Resource over the library's vector.
type resources preemption.Resources

func (r resources) GetMilliCPU() int64                            { return r.MilliCPU }
func (r resources) GetMemory() int64                              { return r.Memory }
func (r resources) GetEphemeralStorage() int64                    { return r.EphemeralStorage }
func (r resources) GetAllowedPodNumber() int                      { return int(r.Pods) }
func (r resources) GetScalarResources() map[v1.ResourceName]int64 { return r.Scalars }
func (r resources) SetMaxResource(v1.ResourceList)                {}

// statuses is a NodeToStatusReader over a map; absent nodes read as
// UnschedulableAndUnresolvable, as in the scheduler.
type statuses map[string]*fwk.Status

func (s statuses) Get(node string) *fwk.Status {
	if st, ok := s[node]; ok {
		return st
	}
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable)
}

func (s statuses) NodesForStatusCode(lister fwk.NodeInfoLister, code fwk.Code) ([]fwk.NodeInfo, error) {
	all, err := lister.List()
	if err != nil {
		return nil, err
	}
	var out []fwk.NodeInfo
	for _, ni := range all {
		if s.Get(ni.Node().Name).Code() == code {
			out = append(out, ni)
		}
	}
	return out, nil
}

// event is one recorded event.
type event struct {
	Regarding string
	Related   bool
	Type      string
	Reason    string
	Action    string
	Note      string
}

type recorder struct {
	mu     sync.Mutex
	events []event
}

func (r *recorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	p := regarding.(*v1.Pod)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, event{Regarding: p.Name, Related: related != nil, Type: eventtype, Reason: reason, Action: action, Note: fmt.Sprintf(note, args...)})
}

func (r *recorder) WithLogger(klog.Logger) events.EventRecorderLogger { return r }

func (r *recorder) list() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event(nil), r.events...)
}

func klogDiscard() klog.Logger { return klog.Background().V(10) }

// cycleState is a CycleState whose clones are itself: the fake filters keep
// no state.
type cycleState struct{ fwk.CycleState }

func (s cycleState) Clone() fwk.CycleState { return s }
