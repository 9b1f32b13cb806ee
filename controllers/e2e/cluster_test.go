package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/evictkit/eviction/controllers/e2e/framework"
)

// Node lifecycle settings of every run, for ours and kube-controller-
// manager's alike: short enough for test time.
const (
	monitorPeriod = time.Second
	gracePeriod   = 4 * time.Second
	startupGrace  = 10 * time.Second
	heartbeat     = 500 * time.Millisecond
	evictionRate  = 10 // nodes per second
)

var nodeLifecycleFlags = []string{
	"--node-monitor-period=" + monitorPeriod.String(),
	"--node-monitor-grace-period=" + gracePeriod.String(),
	"--node-startup-grace-period=" + startupGrace.String(),
	"--node-eviction-rate=" + strconv.Itoa(evictionRate),
}

// runSettings are the settings a run is judged by, given its measured lag.
func runSettings(lag time.Duration) settings {
	return settings{period: monitorPeriod, grace: gracePeriod, evictionRate: evictionRate, lag: lag}
}

// variant says which controllers of ours replace kube-controller-manager's.
type variant struct {
	name          string
	taintEviction bool // ours instead of taint-eviction-controller
	nodeLifecycle bool // ours instead of node-lifecycle-controller
	// deviceTaintEviction: ours instead of device-taint-eviction-controller.
	deviceTaintEviction bool
	// manager runs ours in one evictkit-controller-manager process (one
	// client and one set of informers) instead of one program each.
	manager bool
	// faultPrefix, if set, puts the fault proxy between our controllers and
	// kube-apiserver, faulting writes to the objects named with it.
	faultPrefix string
	// apiServerArgs are added to kube-apiserver's flags.
	apiServerArgs []string
	// nodeLifecycleArgs are added to our node-lifecycle-controller's flags.
	nodeLifecycleArgs []string
	// kcmOff names more of kube-controller-manager's controllers to turn off.
	kcmOff []string
}

var (
	upstream = variant{name: "kcm"}
	ourTaint = variant{name: "ours-taint-eviction", taintEviction: true}
	ourBoth  = variant{name: "ours-both", taintEviction: true, nodeLifecycle: true}
	// The drop-in scenarios run both of ours in evictkit-controller-
	// manager; the faults run them as programs of their own (ourBoth).
	ourManager = variant{name: "ours-manager", taintEviction: true, nodeLifecycle: true, manager: true}
	variants   = []variant{upstream, ourTaint, ourManager}
	programMu  sync.Mutex
	programs   string
)

// ourPrograms builds the controller programs once per test binary.
func ourPrograms(t *testing.T) string {
	t.Helper()
	programMu.Lock()
	defer programMu.Unlock()
	if programs != "" {
		return programs
	}
	dir, err := os.MkdirTemp("", "evictkit-e2e-programs-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", dir+"/", "./cmd/...")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the controllers: %v\n%s", err, out)
	}
	programs = dir
	return dir
}

// cluster is a control plane with kube-controller-manager and, per the
// variant, our controllers.
type cluster struct {
	*framework.ControlPlane
	v    variant
	ours map[string]*replica // by program and replica name
	// ourKubeconfig is what our controllers reach the API server with:
	// the cluster's, or the fault proxy's.
	ourKubeconfig string
	faults        *faultProxy
	ctx           context.Context
	client        kubernetes.Interface

	mu    sync.Mutex
	alive map[string]bool // nodes whose Lease the test renews

	// silence is what NodeGoesSilent recorded for the whatif check.
	silence *silence
}

func startCluster(t *testing.T, v variant) *cluster {
	t.Helper()
	controllers := []string{"*"}
	if v.taintEviction {
		controllers = append(controllers, "-taint-eviction-controller")
	}
	if v.nodeLifecycle {
		controllers = append(controllers, "-node-lifecycle-controller")
	}
	if v.deviceTaintEviction {
		controllers = append(controllers, "-device-taint-eviction-controller")
	}
	for _, name := range v.kcmOff {
		controllers = append(controllers, "-"+name)
	}
	cp := framework.Start(t, framework.Options{ControllerManager: &framework.ControllerManager{
		Controllers: controllers,
		Args:        nodeLifecycleFlags,
	}, APIServerArgs: v.apiServerArgs})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	c := &cluster{ControlPlane: cp, v: v, ctx: ctx, client: cp.Client, alive: map[string]bool{}, ours: map[string]*replica{}}
	c.ourKubeconfig = cp.Kubeconfig
	if v.faultPrefix != "" {
		c.faults = startFaultProxy(t, c, v.faultPrefix)
		c.ourKubeconfig = c.faults.kubeconfig
	}
	if v.manager {
		var hosted []string
		for _, h := range []struct {
			on   bool
			name string
		}{{v.nodeLifecycle, "node-lifecycle-controller"}, {v.taintEviction, "taint-eviction-controller"}, {v.deviceTaintEviction, "device-taint-eviction-controller"}} {
			if h.on {
				hosted = append(hosted, h.name)
			}
		}
		args := append([]string{"--controllers=" + strings.Join(hosted, ",")}, nodeLifecycleFlags...)
		r := c.runOurs(t, "evictkit-controller-manager", "a", append(args, v.nodeLifecycleArgs...)...)
		for _, name := range hosted {
			c.ours[name+"-a"] = r
		}
		go c.heartbeats()
		return c
	}
	if v.taintEviction {
		c.ours["taint-eviction-controller-a"] = c.runOurs(t, "taint-eviction-controller", "a")
	}
	if v.nodeLifecycle {
		args := append(slices.Clone(nodeLifecycleFlags), v.nodeLifecycleArgs...)
		c.ours["node-lifecycle-controller-a"] = c.runOurs(t, "node-lifecycle-controller", "a", args...)
	}
	if v.deviceTaintEviction {
		c.ours["device-taint-eviction-controller-a"] = c.runOurs(t, "device-taint-eviction-controller", "a")
	}
	go c.heartbeats()
	return c
}

// runOurs starts one replica of one of our programs.
func (c *cluster) runOurs(t *testing.T, program, name string, args ...string) *replica {
	t.Helper()
	port, err := framework.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	args = append([]string{
		"--kubeconfig=" + c.ourKubeconfig,
		"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(port),
		"--leader-elect-lease-duration=4s", "--leader-elect-renew-deadline=3s", "--leader-elect-retry-period=500ms",
	}, args...)
	p, err := c.Run(program+"-"+name, filepath.Join(ourPrograms(t), program), args...)
	if err != nil {
		t.Fatal(err)
	}
	return &replica{Process: p, metrics: "http://127.0.0.1:" + strconv.Itoa(port) + "/metrics"}
}

// replica is one running copy of one of our programs.
type replica struct {
	*framework.Process
	metrics string // its /metrics URL
}

// leading reports whether the replica has taken the leader lease.
func (r *replica) leading() bool { return strings.Contains(r.Log(1<<20), "msg=leading") }

// metric returns the value of an unlabelled metric, -1 if absent.
func (r *replica) metric(name string) float64 {
	resp, err := http.Get(r.metrics)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err == nil {
				return f
			}
		}
	}
	return -1
}

// createNode creates a node with a Ready condition of the given status and
// its Lease, in zone, and starts renewing the Lease.
func (c *cluster) createNode(t *testing.T, name, zone string, ready v1.ConditionStatus, labels map[string]string) {
	t.Helper()
	node := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		v1.LabelTopologyRegion: "region1",
		v1.LabelTopologyZone:   zone,
		v1.LabelHostname:       name,
	}}}
	for k, v := range labels {
		node.Labels[k] = v
	}
	// The status goes with the create, as a kubelet registers its node: a
	// controller that saw the node between a bare create and a later status
	// write would untaint and retaint it (the API server's admission adds
	// not-ready:NoSchedule to every new node), a race of the harness that
	// made the traces of two runs differ.
	node.Status = nodeStatus(ready)
	node, err := c.client.CoreV1().Nodes().Create(c.ctx, node, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: v1.NamespaceNodeLease, OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "v1", Kind: "Node", Name: name, UID: node.UID,
		}}},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &name, LeaseDurationSeconds: ptr(int32(40)), RenewTime: &metav1.MicroTime{Time: time.Now()}},
	}
	if _, err := c.client.CoordinationV1().Leases(v1.NamespaceNodeLease).Create(c.ctx, lease, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c.setAlive(name, true)
}

// postStatus writes the node's Ready condition as a kubelet would, with a
// fresh heartbeat, and the resources pods need.
func (c *cluster) postStatus(t *testing.T, name string, ready v1.ConditionStatus) {
	t.Helper()
	err := retryConflict(func() error {
		node, err := c.client.CoreV1().Nodes().Get(c.ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		fresh := nodeStatus(ready)
		node.Status.Capacity, node.Status.Allocatable = fresh.Capacity, fresh.Allocatable
		replaced := false
		for i := range node.Status.Conditions {
			if node.Status.Conditions[i].Type == v1.NodeReady {
				node.Status.Conditions[i] = fresh.Conditions[0]
				replaced = true
			}
		}
		if !replaced {
			node.Status.Conditions = append(node.Status.Conditions, fresh.Conditions[0])
		}
		_, err = c.client.CoreV1().Nodes().UpdateStatus(c.ctx, node, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// nodeStatus is what a kubelet posts: the Ready condition with a fresh
// heartbeat, and the resources pods need.
func nodeStatus(ready v1.ConditionStatus) v1.NodeStatus {
	res := v1.ResourceList{v1.ResourceCPU: mustQuantity("4"), v1.ResourceMemory: mustQuantity("16Gi"), v1.ResourcePods: mustQuantity("110")}
	now := metav1.Now()
	return v1.NodeStatus{
		Capacity:    res,
		Allocatable: res,
		Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: ready, Reason: "KubeletPosted", LastHeartbeatTime: now, LastTransitionTime: now}},
	}
}

func (c *cluster) setAlive(name string, alive bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.alive[name] = alive
}

// heartbeats renews the Lease of every live node, as kubelets do, until the
// cluster's context ends. Errors (an API server being restarted) are skipped:
// the next round tries again.
func (c *cluster) heartbeats() {
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-tick.C:
		}
		c.mu.Lock()
		var names []string
		for n, ok := range c.alive {
			if ok {
				names = append(names, n)
			}
		}
		c.mu.Unlock()
		for _, n := range names {
			leases := c.client.CoordinationV1().Leases(v1.NamespaceNodeLease)
			l, err := leases.Get(c.ctx, n, metav1.GetOptions{})
			if err != nil {
				continue
			}
			l.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
			_, _ = leases.Update(c.ctx, l, metav1.UpdateOptions{})
		}
	}
}

// createPod creates a running, ready pod bound to node.
func (c *cluster) createPod(t *testing.T, ns, name, node string, tols ...v1.Toleration) *v1.Pod {
	t.Helper()
	c.createUnreadyPod(t, ns, name, node, tols...)
	// Running and ready, as a kubelet reports it: a merge patch of the
	// status, so that a controller that already acted on the pod (its node
	// may be tainted NoExecute) causes no conflict and keeps its condition.
	status, err := json.Marshal(map[string]any{"status": map[string]any{
		"phase":      v1.PodRunning,
		"conditions": []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue, LastTransitionTime: metav1.Now()}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	pod, err := c.client.CoreV1().Pods(ns).Patch(c.ctx, name, types.StrategicMergePatchType, status, metav1.PatchOptions{}, "status")
	if err != nil {
		t.Fatal(err)
	}
	return pod
}

// createUnreadyPod creates a pod bound to node whose kubelet has reported
// nothing yet: it has no Ready condition.
func (c *cluster) createUnreadyPod(t *testing.T, ns, name, node string, tols ...v1.Toleration) {
	t.Helper()
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: v1.PodSpec{
			NodeName:    node,
			Containers:  []v1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}},
			Tolerations: tols,
		},
	}
	if _, err := c.client.CoreV1().Pods(ns).Create(c.ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func (c *cluster) namespace(t *testing.T, name string) string {
	t.Helper()
	_, err := c.client.CoreV1().Namespaces().Create(c.ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// addTaint adds a taint to the node, as kubectl taint does.
func (c *cluster) addTaint(t *testing.T, node string, taint v1.Taint) {
	t.Helper()
	err := retryConflict(func() error {
		n, err := c.client.CoreV1().Nodes().Get(c.ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.Now()
		taint.TimeAdded = &now
		n.Spec.Taints = append(n.Spec.Taints, taint)
		_, err = c.client.CoreV1().Nodes().Update(c.ctx, n, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// eventually polls cond every 100 ms until it reports true; it fails the
// test after timeout, with what cond last said.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		ok, msg := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v: %s", what, timeout, msg)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// podState reads a pod: gone, terminating (with or without the
// DisruptionTarget condition) or present.
func (c *cluster) podState(ns, name string) (string, *v1.Pod) {
	pod, err := c.client.CoreV1().Pods(ns).Get(c.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return "gone", nil
	}
	if err != nil {
		return "error: " + err.Error(), nil
	}
	if pod.DeletionTimestamp != nil {
		return "terminating", pod
	}
	return "present", pod
}

// waitEvicted waits until the pod is deleted (terminating, no kubelet
// finishes it) and checks that it carries upstream's DisruptionTarget
// condition.
func (c *cluster) waitEvicted(t *testing.T, timeout time.Duration, ns, name string) *v1.Pod {
	t.Helper()
	return c.waitEvictedBy(t, timeout, ns, name, "DeletionByTaintManager")
}

// waitEvictedBy is waitEvicted for the DisruptionTarget reason of a given
// controller.
func (c *cluster) waitEvictedBy(t *testing.T, timeout time.Duration, ns, name, reason string) *v1.Pod {
	t.Helper()
	var got *v1.Pod
	eventually(t, timeout, "pod "+ns+"/"+name+" evicted", func() (bool, string) {
		s, pod := c.podState(ns, name)
		got = pod
		return s == "terminating" || s == "gone", s
	})
	if got == nil {
		return nil
	}
	if cond := podCondition(got, v1.DisruptionTarget); cond == nil || cond.Status != v1.ConditionTrue || cond.Reason != reason {
		t.Errorf("pod %s/%s: DisruptionTarget condition = %+v, want True with reason %s", ns, name, cond, reason)
	}
	return got
}

// requirePresent fails unless the pod exists and is not being deleted.
func (c *cluster) requirePresent(t *testing.T, ns string, names ...string) {
	t.Helper()
	for _, name := range names {
		if s, _ := c.podState(ns, name); s != "present" {
			t.Errorf("pod %s/%s: %s, want it to stay", ns, name, s)
		}
	}
}

// waitTaints waits until the node carries exactly the given taint keys with
// the NoExecute effect.
func (c *cluster) waitNoExecute(t *testing.T, timeout time.Duration, node string, keys ...string) {
	t.Helper()
	eventually(t, timeout, fmt.Sprintf("node %s NoExecute taints %v", node, keys), func() (bool, string) {
		n, err := c.client.CoreV1().Nodes().Get(c.ctx, node, metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		var got []string
		for _, tn := range n.Spec.Taints {
			if tn.Effect == v1.TaintEffectNoExecute {
				got = append(got, tn.Key)
			}
		}
		return fmt.Sprint(got) == fmt.Sprint(keys), fmt.Sprint(n.Spec.Taints)
	})
}

func podCondition(pod *v1.Pod, ct v1.PodConditionType) *v1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == ct {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

func retryConflict(f func() error) error {
	var err error
	for range 10 {
		if err = f(); !apierrors.IsConflict(err) {
			return err
		}
	}
	return err
}

func ptr[T any](v T) *T { return &v }

// tolerate returns a NoExecute toleration of key for seconds (nil: forever).
func tolerate(key string, seconds *int64) v1.Toleration {
	return v1.Toleration{Key: key, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: seconds}
}

// markedForDeletion counts, by pod name, the "Marking for deletion" events
// of the taint eviction controller in namespace ns (repeats of one event
// raise its count).
func (c *cluster) markedForDeletion(ns string) (map[string]int32, error) {
	evs, err := c.client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "reason=TaintManagerEviction"})
	if err != nil {
		return nil, err
	}
	marked := map[string]int32{}
	for _, e := range evs.Items {
		if e.InvolvedObject.Kind == "Pod" && strings.HasPrefix(e.Message, "Marking for deletion") {
			marked[e.InvolvedObject.Name] += max(e.Count, 1)
		}
	}
	return marked, nil
}
