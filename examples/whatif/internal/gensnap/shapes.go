package gensnap

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Shape is the kind of cluster Write generates.
type Shape string

// The shapes. Large is the realistic cluster of the package comment; the
// others are clusters of small pods (about 0.9 KB of JSON each without
// white space, as from a cluster whose pods carry little status), where
// the fixed cost of each object counts for more than the bytes of its
// text. Their nodes are small too; the first node of each zone is a
// control-plane node running only DaemonSet pods, and one node in a
// hundred is already NotReady.
//
//   - Small: three zones of equal size; on each worker node two DaemonSet
//     pods, then Deployment replicas (five in seven), StatefulSet replicas
//     and Job pods (a third of them finished); Deployments of 100 replicas
//     each under one PodDisruptionBudget (about 0.2 per node) in a dozen
//     namespaces; most pods with the default 300 s tolerations, one
//     Deployment in ten tolerating unreachable for 60 s, one for 900 s and
//     one forever.
//   - Namespaces: Small, but Deployments of 3 replicas, two to a
//     namespace, each under its budget: about 7 budgets and 3 namespaces
//     per node.
//   - Uneven: Small over five zones (Zones, at most 16), each half the size
//     of the one before (16:8:4:2:1), and one node in 97 with no zone
//     label.
//   - Sparse: Small, but two worker nodes in five are cordoned and run no
//     pod at all, not even DaemonSet pods (as nodes on their way out of
//     the cluster).
const (
	Large      Shape = "large"
	Small      Shape = "small"
	Namespaces Shape = "namespaces"
	Uneven     Shape = "uneven"
	Sparse     Shape = "sparse"
)

// Shapes lists every shape, Large first.
var Shapes = []Shape{Large, Small, Namespaces, Uneven, Sparse}

func (s Shape) valid() bool {
	for _, v := range Shapes {
		if s == v {
			return true
		}
	}
	return false
}

// small reports whether the shape is one of small pods.
func (s Shape) small() bool { return s != Large }

// unevenZones is the number of zones of the Uneven shape.
const unevenZones = 5

// zone returns node i's zone (0-based), -1 for none.
func (c Config) zone(i int) int {
	if c.Shape != Uneven {
		return i % c.Zones
	}
	if i%97 == 13 {
		return -1
	}
	// Zone z holds 2^(Z-1-z) nodes in every 2^Z-1.
	b := i % (1<<c.Zones - 1)
	for z := 0; ; z++ {
		w := 1 << (c.Zones - 1 - z)
		if b < w {
			return z
		}
		b -= w
	}
}

// Node returns the name of node i (0-based) of the cluster c describes.
func (c Config) Node(i int) string {
	c = c.withDefaults()
	z := c.zone(i)
	if z < 0 {
		return fmt.Sprintf("node-nozone-%05d", i)
	}
	return fmt.Sprintf("node-%s-%05d", zoneLetter(z), i)
}

// Worker returns a worker node of zone 1 (0-based) that runs pods and has no
// taint: the node the scale tests and benchmarks take down, taint and put
// under pressure.
func Worker(c Config) string {
	c = c.withDefaults()
	g := &generator{c: c}
	for i := 0; i < c.Nodes; i++ {
		if c.zone(i) == 1 && !g.controlPlane(i) && !g.empty(i) && !g.tainted(i) {
			return c.Node(i)
		}
	}
	return ""
}

// tainted reports whether node i has a taint.
func (g *generator) tainted(i int) bool {
	if g.c.Shape.small() {
		return len(g.nodeTaints(i)) > 0
	}
	return g.controlPlane(i) || i%10 == 0 || i%15 == 0 || i%100 == 51
}

// empty reports whether node i runs no pod (Sparse).
func (g *generator) empty(i int) bool {
	return g.c.Shape == Sparse && !g.controlPlane(i) && (i%5 == 1 || i%5 == 3)
}

// smallSlots returns the kinds of a small-shape worker node's pods after its
// DaemonSet pods: Deployment replicas, one StatefulSet replica and one Job
// pod in every seven.
func smallSlots(n int) []int {
	out := make([]int, n)
	for k := range out {
		switch k % 7 {
		case 3:
			out[k] = slotSts
		case 5:
			out[k] = slotJob
		default:
			out[k] = slotDeploy
		}
	}
	return out
}

// smallDaemonSets are the DaemonSets of the small shapes.
var smallDaemonSets = []daemonSet{
	{name: "kube-proxy", namespace: "kube-system", image: "registry.k8s.io/kube-proxy:v1.37.2", class: "system-node-critical", priority: 2000001000,
		extra: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}},
	{name: "node-exporter", namespace: "monitoring", image: "quay.io/prometheus/node-exporter:v1.9.1",
		extra: []corev1.Toleration{
			{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
			{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		},
		requests: []string{"cpu", "100m", "memory", "32Mi"}},
}

// smallReplicas returns the replicas of a Deployment of the shape.
func (g *generator) smallReplicas() int {
	if g.c.Shape == Namespaces {
		return 3
	}
	return 100
}

func (g *generator) smallDeployments() int {
	r := g.smallReplicas()
	return (g.deploySlots + r - 1) / r
}

// smallNamespace returns the namespace of Deployment d (StatefulSets and
// Jobs are spread the same way).
func (g *generator) smallNamespace(d int) string {
	if g.c.Shape == Namespaces {
		return fmt.Sprintf("ns-%05d", d/2)
	}
	return fmt.Sprintf("team-%02d", d%12)
}

// runSmall writes a small-shape cluster.
func (g *generator) runSmall() {
	c := g.c
	n := max(c.PodsPerNode-len(smallDaemonSets), 0)
	for i := 0; i < c.Nodes; i++ {
		if g.controlPlane(i) || g.empty(i) {
			continue
		}
		for _, s := range smallSlots(n) {
			switch s {
			case slotDeploy:
				g.deploySlots++
			case slotSts:
				g.stsSlots++
			}
		}
	}
	for i := 0; i < c.Nodes; i++ {
		g.item(g.smallNode(i))
	}
	var deploy, sts, job int
	for i := 0; i < c.Nodes; i++ {
		if g.empty(i) {
			continue
		}
		name := c.Node(i)
		for _, ds := range smallDaemonSets {
			g.item(g.smallDaemonPod(ds, i, name))
		}
		if g.controlPlane(i) {
			continue
		}
		for _, s := range smallSlots(n) {
			switch s {
			case slotDeploy:
				g.item(g.smallDeployPod(deploy, i, name))
				deploy++
			case slotSts:
				g.item(g.smallStsPod(sts, i, name))
				sts++
			case slotJob:
				g.item(g.smallJobPod(job, i, name))
				job++
			}
		}
	}
	for d := 0; d < g.smallDeployments(); d++ {
		g.item(g.smallPDB(d))
	}
}

// nodeTaints returns the taints node i has in the small shapes.
func (g *generator) nodeTaints(i int) []corev1.Taint {
	if !g.c.Shape.small() {
		return nil
	}
	var out []corev1.Taint
	if g.controlPlane(i) {
		out = append(out, corev1.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule})
	}
	if g.empty(i) {
		out = append(out, corev1.Taint{Key: corev1.TaintNodeUnschedulable, Effect: corev1.TaintEffectNoSchedule})
	}
	if i%100 == 51 {
		out = append(out,
			corev1.Taint{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoSchedule},
			corev1.Taint{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoExecute,
				TimeAdded: &metav1.Time{Time: g.c.Now.Add(-time.Hour).Truncate(time.Second)}})
	}
	return out
}

func (g *generator) smallNode(i int) *corev1.Node {
	c := g.c
	name := c.Node(i)
	created := g.created("node", i).Add(-48 * time.Hour)
	beat := c.Now.Add(-time.Duration(hash("beat", i)%10) * time.Second)
	if i == 0 {
		beat = c.Now
	}
	labels := map[string]string{
		"kubernetes.io/arch":               "amd64",
		"kubernetes.io/hostname":           name,
		"kubernetes.io/os":                 "linux",
		"node.kubernetes.io/instance-type": "m6i.2xlarge",
	}
	if z := c.zone(i); z >= 0 {
		labels["topology.kubernetes.io/region"] = "region-1"
		labels["topology.kubernetes.io/zone"] = "region-1" + zoneLetter(z)
	}
	if g.controlPlane(i) {
		labels["node-role.kubernetes.io/control-plane"] = ""
	}
	capacity := corev1.ResourceList{corev1.ResourceCPU: q("8"), corev1.ResourceMemory: q("32827136Ki"), corev1.ResourcePods: q("110")}
	ready := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: mtime(beat),
		LastTransitionTime: mtime(created.Add(5 * time.Second)), Reason: "KubeletReady", Message: "kubelet is posting ready status"}
	if i%100 == 51 {
		ready.Status, ready.Reason, ready.Message = corev1.ConditionFalse, "KubeletNotReady", "container runtime network not ready"
	}
	return &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid("node", i), ResourceVersion: fmt.Sprint(100000 + hash("rv", i)%900000),
			CreationTimestamp: mtime(created), Labels: labels},
		Spec: corev1.NodeSpec{PodCIDR: fmt.Sprintf("10.%d.%d.0/24", 64+i/250, i%250), Taints: g.nodeTaints(i), Unschedulable: g.empty(i)},
		Status: corev1.NodeStatus{
			Capacity: capacity, Allocatable: capacity.DeepCopy(),
			Conditions: []corev1.NodeCondition{ready},
			Addresses: []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: fmt.Sprintf("10.%d.%d.%d", i%3, i/250%250, i%250+2)},
				{Type: corev1.NodeHostName, Address: name}},
			NodeInfo: corev1.NodeSystemInfo{KubeletVersion: "v1.37.2", OperatingSystem: "linux", Architecture: "amd64",
				ContainerRuntimeVersion: "containerd://2.1.4"},
		},
	}
}

// smallPod assembles a pod with what a small cluster's API server keeps.
func (g *generator) smallPod(t podTemplate, name, node string, i int, phase corev1.PodPhase) *corev1.Pod {
	name = g.uniqueName(t.namespace, name)
	created := g.created("pod", name, node)
	container := corev1.Container{Name: t.app, Image: t.image,
		Resources: corev1.ResourceRequirements{Requests: t.requests, Limits: t.limits}}
	qos := corev1.PodQOSBestEffort
	switch {
	case len(t.requests) > 0 && len(t.limits) > 0 && t.requests.Cpu().Equal(*t.limits.Cpu()) && t.requests.Memory().Equal(*t.limits.Memory()):
		qos = corev1.PodQOSGuaranteed
	case len(t.requests) > 0 || len(t.limits) > 0:
		qos = corev1.PodQOSBurstable
	}
	p := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: t.namespace, UID: uid("pod", name, node),
			CreationTimestamp: mtime(created), Labels: t.labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{container}, NodeName: node, Priority: i32(t.priority),
			PriorityClassName: t.priorityClass, Tolerations: t.tolerations},
		Status: corev1.PodStatus{Phase: phase, PodIP: fmt.Sprintf("10.%d.%d.%d", 64+i/250, i%250, hash("ip", name)%250+2),
			QOSClass: qos, StartTime: ptr(mtime(created.Add(time.Second)))},
	}
	if t.owner.Kind != "" {
		p.OwnerReferences = []metav1.OwnerReference{t.owner}
		p.GenerateName = t.owner.Name + "-"
	}
	return p
}

func (g *generator) smallDaemonPod(ds daemonSet, i int, node string) *corev1.Pod {
	t := podTemplate{namespace: ds.namespace, app: ds.name, image: ds.image, priorityClass: ds.class, priority: ds.priority,
		requests: res(ds.requests...), tolerations: ds.extra,
		owner: metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.name, UID: uid("ds", ds.name),
			Controller: boolp(true), BlockOwnerDeletion: boolp(true)},
		labels: map[string]string{"app": ds.name},
	}
	return g.smallPod(t, ds.name+"-"+suffix(5, "ds", ds.name, i), node, i, corev1.PodRunning)
}

// unreachableFor returns the tolerations of Deployment d: the default 300 s
// ones, but for one in ten each tolerating unreachable for 60 s, 900 s and
// forever.
func unreachableFor(d int) []corev1.Toleration {
	t := defaultTolerations()
	switch d % 10 {
	case 3:
		t[1].TolerationSeconds = i64(60)
	case 6:
		t[1].TolerationSeconds = i64(900)
	case 9:
		t[1].TolerationSeconds = nil
	}
	return t
}

// smallRequests are the containers' requests and limits, by workload.
var smallRequests = []struct{ requests, limits []string }{
	{[]string{"cpu", "100m", "memory", "128Mi"}, nil},
	{[]string{"cpu", "250m", "memory", "256Mi"}, []string{"cpu", "250m", "memory", "256Mi"}},
	{[]string{"cpu", "50m", "memory", "64Mi"}, []string{"memory", "128Mi"}},
	{nil, nil},
	{[]string{"cpu", "200m", "memory", "512Mi"}, []string{"memory", "1Gi"}},
}

func (g *generator) smallDeployName(d int) string { return fmt.Sprintf("app-%d", d) }

func (g *generator) smallDeployPod(k, i int, node string) *corev1.Pod {
	d := k % g.smallDeployments()
	name := g.smallDeployName(d)
	tmpl := suffix(10, "rs", d)
	rs := name + "-" + tmpl
	r := smallRequests[d%len(smallRequests)]
	t := podTemplate{namespace: g.smallNamespace(d), app: "app", image: fmt.Sprintf("registry.example.com/app-%d:1.%d", d%50, d%7),
		requests: res(r.requests...), limits: res(r.limits...), tolerations: unreachableFor(d),
		owner: metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: uid("rs", d),
			Controller: boolp(true), BlockOwnerDeletion: boolp(true)},
		labels: map[string]string{"app": name, "pod-template-hash": tmpl},
	}
	if d%8 == 1 {
		t.priorityClass, t.priority = "high", 1000
	}
	return g.smallPod(t, rs+"-"+suffix(5, "dp", k), node, i, corev1.PodRunning)
}

func (g *generator) smallPDB(d int) *policyv1.PodDisruptionBudget {
	name := g.smallDeployName(d)
	replicas := int32(0)
	for k := d; k < g.deploySlots; k += g.smallDeployments() {
		replicas++
	}
	spec := policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}}
	desired := replicas - 1
	switch d % 3 {
	case 0:
		spec.MinAvailable = ptr(intstr.FromString("50%"))
		desired = (replicas + 1) / 2
	case 1:
		spec.MaxUnavailable = ptr(intstr.FromInt32(1))
	default:
		spec.MinAvailable = ptr(intstr.FromInt32(max(replicas-1, 0)))
	}
	return g.pdb(g.smallNamespace(d), name, d, spec, replicas, max(desired, 0))
}

func (g *generator) smallStsPod(k, i int, node string) *corev1.Pod {
	sets := max((g.stsSlots+2)/3, 1)
	s := k % sets
	name := fmt.Sprintf("db-%d", s)
	ordinal := k / sets
	t := podTemplate{namespace: g.smallNamespace(s), app: "db", image: "docker.io/library/postgres:17.6",
		requests: res("cpu", "250m", "memory", "512Mi"), tolerations: defaultTolerations(),
		owner: metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: name, UID: uid("sts", s),
			Controller: boolp(true), BlockOwnerDeletion: boolp(true)},
		labels: map[string]string{"app": name, "statefulset.kubernetes.io/pod-name": fmt.Sprintf("%s-%d", name, ordinal)},
	}
	return g.smallPod(t, fmt.Sprintf("%s-%d", name, ordinal), node, i, corev1.PodRunning)
}

func (g *generator) smallJobPod(k, i int, node string) *corev1.Pod {
	job := fmt.Sprintf("job-%d", 29391840+k/2)
	t := podTemplate{namespace: g.smallNamespace(k % max(g.smallDeployments(), 1)), app: "job", image: "registry.example.com/batch/job:1.4.0",
		requests: res("cpu", "100m", "memory", "64Mi"), restart: corev1.RestartPolicyNever, tolerations: defaultTolerations(),
		owner: metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: job, UID: uid("job", k/2),
			Controller: boolp(true), BlockOwnerDeletion: boolp(true)},
		labels: map[string]string{"job-name": job},
	}
	phase := corev1.PodRunning
	if k%3 == 2 {
		phase = corev1.PodSucceeded
	}
	return g.smallPod(t, job+"-"+suffix(5, "job", k), node, i, phase)
}
