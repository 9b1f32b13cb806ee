// Package gensnap writes large, realistic cluster snapshots for whatif's
// scale tests and benchmarks, in the exact forms that
//
//	kubectl get nodes,pods,pdb -A -o json
//	kubectl get nodes,pods,pdb -A -o yaml
//
// print: a v1 List whose items carry apiVersion and kind, keys in the order
// kubectl prints them (sorted, as for any object it prints from the API
// server's JSON), JSON indented by four spaces, YAML as sigs.k8s.io/yaml
// writes it.
//
//	var b bytes.Buffer
//	err := gensnap.Write(&b, gensnap.Config{Nodes: 1000, Format: gensnap.JSON})
//
// The cluster is N nodes over Z zones of one region, the first node of each
// zone a control-plane node, every 20th a GPU node tainted
// nvidia.com/gpu=present:NoSchedule, every 10th a batch node tainted
// dedicated=batch:NoSchedule, every 15th a spot node tainted
// spot=true:PreferNoSchedule, and one node in a hundred already NotReady and
// tainted not-ready. Every node runs four DaemonSet pods (two of
// them system-node-critical); control-plane nodes run the four static pods
// and CoreDNS; the other nodes are filled up to PodsPerNode with Deployment
// replicas (each Deployment under a PodDisruptionBudget but one in three),
// StatefulSet replicas (under PDBs), Job pods (half of them finished),
// critical kube-system pods and a few bare BestEffort pods. Tolerations come
// in every form: all taints, one key of any effect, Equal with a value,
// NoSchedule, PreferNoSchedule, NoExecute with and without
// tolerationSeconds (the DefaultTolerationSeconds 300 s, shorter, 0) and
// none. That is the Large shape; Config.Shape picks a cluster of small pods
// instead, with many budgets, many namespaces, uneven zones or empty nodes
// (see Shape), and Config.Compact writes JSON without white space.
// Everything is derived from the node and slot numbers: the same Config
// writes the same bytes.
package gensnap

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// Format is the output form.
type Format string

// The forms kubectl prints.
const (
	JSON Format = "json"
	YAML Format = "yaml"
)

// Config says what to generate. Zero fields take the defaults.
type Config struct {
	// Nodes is the number of nodes (default 1000).
	Nodes int
	// Zones is the number of zones (default 3).
	Zones int
	// PodsPerNode is the number of pods on each worker node (default 30);
	// control-plane nodes run fewer.
	PodsPerNode int
	// Format is JSON (default) or YAML.
	Format Format
	// Now is the latest node heartbeat (default 2026-11-29T12:00:00Z).
	Now time.Time
	// Shape is the kind of cluster (default Large; see Shape).
	Shape Shape
	// Compact writes JSON without white space, as jq -c prints kubectl's
	// output; the default is kubectl's indented form.
	Compact bool
}

func (c Config) withDefaults() Config {
	if c.Nodes <= 0 {
		c.Nodes = 1000
	}
	if c.Shape == "" {
		c.Shape = Large
	}
	if c.Zones <= 0 {
		c.Zones = 3
		if c.Shape == Uneven {
			c.Zones = unevenZones
		}
	}
	if c.PodsPerNode <= 0 {
		c.PodsPerNode = 30
	}
	if c.Format == "" {
		c.Format = JSON
	}
	if c.Now.IsZero() {
		c.Now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	}
	return c
}

// NodeName returns the name of node i (0-based) in a cluster of zones zones.
func NodeName(i, zones int) string {
	return fmt.Sprintf("node-%s-%05d", zoneLetter(i%zones), i)
}

// ZoneNodes returns the names of the nodes of zone z (0-based).
func ZoneNodes(c Config, z int) []string {
	c = c.withDefaults()
	var out []string
	for i := 0; i < c.Nodes; i++ {
		if c.zone(i) == z {
			out = append(out, c.Node(i))
		}
	}
	return out
}

func zoneLetter(z int) string {
	if z < 26 {
		return string(rune('a' + z))
	}
	return fmt.Sprintf("z%d", z)
}

// Write writes the snapshot.
func Write(w io.Writer, c Config) error {
	c = c.withDefaults()
	if c.Format != JSON && c.Format != YAML {
		return fmt.Errorf("gensnap: format %q: want json or yaml", c.Format)
	}
	if !c.Shape.valid() {
		return fmt.Errorf("gensnap: shape %q: want one of %v", c.Shape, Shapes)
	}
	if c.Shape == Uneven && c.Zones > 16 {
		return fmt.Errorf("gensnap: %d zones: the uneven shape has at most 16", c.Zones)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	g := &generator{c: c, w: bw}
	g.header()
	if c.Shape.small() {
		g.runSmall()
	} else {
		g.run()
	}
	g.footer()
	if g.err != nil {
		return g.err
	}
	return bw.Flush()
}

type generator struct {
	c     Config
	w     *bufio.Writer
	err   error
	first bool
	// deployments, statefulsets: the workloads, sized on the first pass.
	deploySlots, stsSlots int
	// zoneFirst holds the first node of each zone (Uneven).
	zoneFirst map[int]bool
	// podNames holds the namespace/name of every pod written.
	podNames map[string]bool
}

// uniqueName returns the name for a pod of namespace ns: name, unless a pod
// of the namespace has it already, when its random suffix (the last five
// characters) is drawn again until it is unique. The suffixes are hashes:
// among the thousands of replicas of a large cluster two may come out the
// same, which the API server would never allow.
func (g *generator) uniqueName(ns, name string) string {
	if g.podNames == nil {
		g.podNames = map[string]bool{}
	}
	for salt := 1; g.podNames[ns+"/"+name]; salt++ {
		name = name[:max(len(name)-5, 0)] + suffix(5, "again", name, salt)
	}
	g.podNames[ns+"/"+name] = true
	return name
}

func (g *generator) header() {
	g.first = true
	if g.compact() {
		g.w.WriteString(`{"apiVersion":"v1","items":[`)
		return
	}
	if g.c.Format == JSON {
		g.w.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n")
	} else {
		g.w.WriteString("apiVersion: v1\nitems:\n")
	}
}

// compact reports whether JSON is written without white space.
func (g *generator) compact() bool { return g.c.Compact && g.c.Format == JSON }

func (g *generator) footer() {
	if g.compact() {
		g.w.WriteString(`],"kind":"List","metadata":{"resourceVersion":""}}` + "\n")
		return
	}
	if g.c.Format == JSON {
		g.w.WriteString("\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
	} else {
		g.w.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	}
}

// item writes one object as kubectl prints it: through its JSON as a
// generic map, so that keys are sorted.
func (g *generator) item(obj any) {
	if g.err != nil {
		return
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		g.err = err
		return
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		g.err = err
		return
	}
	switch {
	case g.compact():
		out, err := json.Marshal(generic)
		if err != nil {
			g.err = err
			return
		}
		if !g.first {
			g.w.WriteString(",")
		}
		g.w.Write(out)
	case g.c.Format == JSON:
		out, err := json.MarshalIndent(generic, "        ", "    ")
		if err != nil {
			g.err = err
			return
		}
		if !g.first {
			g.w.WriteString(",\n")
		}
		g.w.WriteString("        ")
		g.w.Write(out)
	default:
		// Marshalled inside a list under a key, as in the whole List, so
		// that indentation and line folding are the same.
		out, err := yaml.Marshal(map[string]any{"items": []any{generic}})
		if err != nil {
			g.err = err
			return
		}
		g.w.Write(bytes.TrimPrefix(out, []byte("items:\n")))
	}
	g.first = false
}

// slot kinds of a worker node, after its DaemonSet pods.
const (
	slotDeploy = iota
	slotSts
	slotJob
	slotCritical
	slotBare
)

// workerSlots returns the kinds of a worker node's non-DaemonSet pods: about
// 60% Deployment replicas, 15% StatefulSet replicas, 15% Job pods, one
// critical kube-system pod and one bare pod.
func workerSlots(n int) []int {
	var out []int
	for i := 0; i < n; i++ {
		switch {
		case i == n-1:
			out = append(out, slotBare)
		case i == n-2:
			out = append(out, slotCritical)
		case i%7 == 3 || i%7 == 5:
			out = append(out, []int{slotSts, slotJob}[i%7/4])
		default:
			out = append(out, slotDeploy)
		}
	}
	return out
}

const (
	deployReplicas = 6
	stsReplicas    = 3
)

// controlPlane reports whether node i is a control-plane node: the first of
// its zone.
func (g *generator) controlPlane(i int) bool {
	if g.c.Shape != Uneven {
		return i < g.c.Zones
	}
	if g.zoneFirst == nil {
		g.zoneFirst = map[int]bool{}
		for j, seen := 0, map[int]bool{}; len(seen) < g.c.Zones && j < g.c.Nodes; j++ {
			if z := g.c.zone(j); z >= 0 && !seen[z] {
				seen[z], g.zoneFirst[j] = true, true
			}
		}
	}
	return g.zoneFirst[i]
}

// dedicated reports whether node i is a GPU or batch node: tainted
// NoSchedule, it runs only Job pods besides its DaemonSet pods.
func (g *generator) dedicated(i int) bool { return !g.controlPlane(i) && i%10 == 0 }

// slots returns the kinds of node i's pods after its DaemonSet pods.
func (g *generator) slots(i int) []int {
	n := max(g.c.PodsPerNode-len(daemonSets), 0)
	if g.dedicated(i) {
		out := make([]int, n)
		for k := range out {
			out[k] = slotJob
		}
		return out
	}
	return workerSlots(n)
}

func (g *generator) run() {
	c := g.c
	for i := 0; i < c.Nodes; i++ {
		if g.controlPlane(i) {
			continue
		}
		for _, s := range g.slots(i) {
			switch s {
			case slotDeploy:
				g.deploySlots++
			case slotSts:
				g.stsSlots++
			}
		}
	}
	for i := 0; i < c.Nodes; i++ {
		g.item(g.node(i))
	}
	var deploy, sts, job, other int
	for i := 0; i < c.Nodes; i++ {
		name := NodeName(i, c.Zones)
		for _, ds := range daemonSets {
			g.item(g.daemonPod(ds, i, name))
		}
		if g.controlPlane(i) {
			for _, sp := range staticPods {
				g.item(g.staticPod(sp, i, name))
			}
			g.item(g.coreDNS(i, name))
			continue
		}
		for _, s := range g.slots(i) {
			switch s {
			case slotDeploy:
				g.item(g.deployPod(deploy, i, name))
				deploy++
			case slotSts:
				g.item(g.stsPod(sts, i, name))
				sts++
			case slotJob:
				g.item(g.jobPod(job, i, name))
				job++
			case slotCritical:
				g.item(g.criticalPod(other, i, name))
				other++
			case slotBare:
				g.item(g.barePod(other, i, name))
				other++
			}
		}
	}
	for d := 0; d < g.deployments(); d++ {
		if pdb := g.deployPDB(d); pdb != nil {
			g.item(pdb)
		}
	}
	for s := 0; s < g.statefulSets(); s++ {
		g.item(g.stsPDB(s))
	}
}

func (g *generator) deployments() int  { return (g.deploySlots + deployReplicas - 1) / deployReplicas }
func (g *generator) statefulSets() int { return (g.stsSlots + stsReplicas - 1) / stsReplicas }

// ---- helpers

// hash returns a deterministic number for the parts.
func hash(parts ...any) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, parts...)
	return h.Sum64()
}

// suffix returns n characters of the alphabet Kubernetes uses for generated
// names.
func suffix(n int, parts ...any) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	v := hash(parts...)
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[v%uint64(len(alphabet))]
		v /= uint64(len(alphabet))
		if v == 0 {
			v = hash(parts...) ^ uint64(i+1)*0x9e3779b97f4a7c15
		}
	}
	return string(b)
}

func uid(parts ...any) types.UID {
	a, b := hash(append(parts, "a")...), hash(append(parts, "b")...)
	return types.UID(fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", a>>32, a>>16&0xffff, a&0xfff, b>>48&0xfff, b&0xffffffffffff))
}

func hexID(n int, parts ...any) string {
	var s string
	for i := 0; len(s) < n; i++ {
		s += fmt.Sprintf("%016x", hash(append(parts, i)...))
	}
	return s[:n]
}

func mtime(t time.Time) metav1.Time { return metav1.NewTime(t.Truncate(time.Second)) }

func q(s string) resource.Quantity { return resource.MustParse(s) }

func i64(v int64) *int64 { return &v }
func i32(v int32) *int32 { return &v }
func boolp(v bool) *bool { return &v }

func (g *generator) created(parts ...any) time.Time {
	// between 2 days and 20 minutes before now
	span := int64(47 * 3600)
	return g.c.Now.Add(-20*time.Minute - time.Duration(int64(hash(parts...)%uint64(span)))*time.Second)
}

// ---- nodes

var images = []struct {
	names []string
	size  int64
}{
	{[]string{"registry.k8s.io/kube-proxy:v1.37.2"}, 30872115},
	{[]string{"docker.io/calico/node:v3.30.3"}, 143211233},
	{[]string{"quay.io/prometheus/node-exporter:v1.9.1"}, 12134211},
	{[]string{"cr.fluentbit.io/fluent/fluent-bit:4.0.7"}, 34988122},
	{[]string{"registry.example.com/shop/web:2.14.0"}, 88213003},
	{[]string{"registry.example.com/shop/cart:1.9.3"}, 41220876},
	{[]string{"registry.k8s.io/pause:3.10"}, 320368},
}

func (g *generator) node(i int) *corev1.Node {
	c := g.c
	name := NodeName(i, c.Zones)
	zone := "region-1" + zoneLetter(i%c.Zones)
	created := g.created("node", i).Add(-48 * time.Hour)
	beat := c.Now.Add(-time.Duration(hash("beat", i)%10) * time.Second)
	if i == 0 {
		beat = c.Now
	}
	labels := map[string]string{
		"beta.kubernetes.io/arch":                  "amd64",
		"beta.kubernetes.io/instance-type":         "m6i.2xlarge",
		"beta.kubernetes.io/os":                    "linux",
		"failure-domain.beta.kubernetes.io/region": "region-1",
		"failure-domain.beta.kubernetes.io/zone":   zone,
		"kubernetes.io/arch":                       "amd64",
		"kubernetes.io/hostname":                   name,
		"kubernetes.io/os":                         "linux",
		"node.kubernetes.io/instance-type":         "m6i.2xlarge",
		"topology.kubernetes.io/region":            "region-1",
		"topology.kubernetes.io/zone":              zone,
	}
	var taints []corev1.Taint
	cpu, mem, pods := "8", "32827136Ki", "110"
	switch {
	case g.controlPlane(i):
		labels["node-role.kubernetes.io/control-plane"] = ""
		labels["node.kubernetes.io/exclude-from-external-load-balancers"] = ""
		taints = append(taints, corev1.Taint{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule})
	case i%20 == 0:
		labels["nvidia.com/gpu.present"] = "true"
		taints = append(taints, corev1.Taint{Key: "nvidia.com/gpu", Value: "present", Effect: corev1.TaintEffectNoSchedule})
		cpu, mem = "16", "65658272Ki"
	case i%10 == 0:
		labels["dedicated"] = "batch"
		taints = append(taints, corev1.Taint{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule})
	case i%15 == 0:
		labels["node.kubernetes.io/lifecycle"] = "spot"
		taints = append(taints, corev1.Taint{Key: "spot", Value: "true", Effect: corev1.TaintEffectPreferNoSchedule})
	}
	capacity := corev1.ResourceList{
		corev1.ResourceCPU: q(cpu), corev1.ResourceEphemeralStorage: q("263112772Ki"),
		"hugepages-1Gi": q("0"), "hugepages-2Mi": q("0"), corev1.ResourceMemory: q(mem), corev1.ResourcePods: q(pods),
	}
	if i%20 == 0 && !g.controlPlane(i) {
		capacity["nvidia.com/gpu"] = q("4")
	}
	allocatable := capacity.DeepCopy()
	cond := func(t corev1.NodeConditionType, status corev1.ConditionStatus, reason, msg string) corev1.NodeCondition {
		return corev1.NodeCondition{Type: t, Status: status, LastHeartbeatTime: mtime(beat),
			LastTransitionTime: mtime(created.Add(5 * time.Second)), Reason: reason, Message: msg}
	}
	ip := fmt.Sprintf("10.%d.%d.%d", i%c.Zones, i/250%250, i%250+2)
	var imgs []corev1.ContainerImage
	for k, im := range images {
		if k < 4 || hash("img", i, k)%2 == 0 {
			imgs = append(imgs, corev1.ContainerImage{Names: im.names, SizeBytes: im.size})
		}
	}
	n := &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{
			Name: name, UID: uid("node", i), ResourceVersion: fmt.Sprint(100000 + hash("rv", i)%900000),
			CreationTimestamp: mtime(created), Labels: labels,
			Annotations: map[string]string{
				"kubeadm.alpha.kubernetes.io/cri-socket":                 "unix:///run/containerd/containerd.sock",
				"node.alpha.kubernetes.io/ttl":                           "0",
				"volumes.kubernetes.io/controller-managed-attach-detach": "true",
			},
		},
		Spec: corev1.NodeSpec{
			PodCIDR: fmt.Sprintf("10.%d.%d.0/24", 64+i/250, i%250), PodCIDRs: []string{fmt.Sprintf("10.%d.%d.0/24", 64+i/250, i%250)},
			ProviderID: "aws:///" + zone + "/i-" + hexID(17, "inst", i), Taints: taints,
		},
		Status: corev1.NodeStatus{
			Capacity: capacity, Allocatable: allocatable,
			Conditions: []corev1.NodeCondition{
				cond(corev1.NodeMemoryPressure, corev1.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
				cond(corev1.NodeDiskPressure, corev1.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
				cond(corev1.NodePIDPressure, corev1.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
				cond(corev1.NodeReady, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
			},
			Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}, {Type: corev1.NodeHostName, Address: name}},
			DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
			NodeInfo: corev1.NodeSystemInfo{
				MachineID: hexID(32, "machine", i), SystemUUID: string(uid("sys", i)), BootID: string(uid("boot", i)),
				KernelVersion: "6.8.0-1015-aws", OSImage: "Ubuntu 24.04.1 LTS", ContainerRuntimeVersion: "containerd://2.1.4",
				KubeletVersion: "v1.37.2", OperatingSystem: "linux", Architecture: "amd64",
			},
			Images: imgs,
		},
	}
	// One node in a hundred is already in trouble in the snapshot.
	if i%100 == 51 {
		n.Status.Conditions[3] = cond(corev1.NodeReady, corev1.ConditionFalse, "KubeletNotReady", "container runtime network not ready")
		n.Spec.Taints = append(n.Spec.Taints,
			corev1.Taint{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoSchedule},
			corev1.Taint{Key: "node.kubernetes.io/not-ready", Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: beat.Add(-time.Hour).Truncate(time.Second)}})
	}
	return n
}

// ---- pods

// podTemplate is what a pod's controller gives it.
type podTemplate struct {
	namespace, app, image  string
	priorityClass          string
	priority               int32
	requests, limits       corev1.ResourceList
	tolerations            []corev1.Toleration
	restart                corev1.RestartPolicy
	owner                  metav1.OwnerReference
	labels                 map[string]string
	annotations            map[string]string
	nodeAffinityToNodeName bool
	hostNetwork            bool
}

func res(kv ...string) corev1.ResourceList {
	if len(kv) == 0 {
		return nil
	}
	l := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		l[corev1.ResourceName(kv[i])] = q(kv[i+1])
	}
	return l
}

// defaultTolerations are what the DefaultTolerationSeconds admission plugin
// adds.
func defaultTolerations() []corev1.Toleration {
	return []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: i64(300)},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: i64(300)},
	}
}

// daemonTolerations are what the DaemonSet controller adds.
func daemonTolerations(hostNetwork bool) []corev1.Toleration {
	t := []corev1.Toleration{
		{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
		{Key: "node.kubernetes.io/disk-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/memory-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/pid-pressure", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
		{Key: "node.kubernetes.io/unschedulable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
	}
	if hostNetwork {
		t = append(t, corev1.Toleration{Key: "node.kubernetes.io/network-unavailable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule})
	}
	return t
}

type daemonSet struct {
	name, namespace, image, class string
	priority                      int32
	extra                         []corev1.Toleration
	requests, limits              []string
	hostNetwork                   bool
}

var daemonSets = []daemonSet{
	{name: "kube-proxy", namespace: "kube-system", image: "registry.k8s.io/kube-proxy:v1.37.2", class: "system-node-critical", priority: 2000001000,
		extra: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, hostNetwork: true},
	{name: "calico-node", namespace: "kube-system", image: "docker.io/calico/node:v3.30.3", class: "system-node-critical", priority: 2000001000,
		extra: []corev1.Toleration{{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule},
			{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}, {Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
		requests: []string{"cpu", "250m"}, hostNetwork: true},
	{name: "node-exporter", namespace: "monitoring", image: "quay.io/prometheus/node-exporter:v1.9.1",
		extra:    []corev1.Toleration{{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		requests: []string{"cpu", "100m", "memory", "30Mi"}, limits: []string{"cpu", "250m", "memory", "180Mi"}, hostNetwork: true},
	{name: "fluent-bit", namespace: "logging", image: "cr.fluentbit.io/fluent/fluent-bit:4.0.7",
		extra:    []corev1.Toleration{{Key: "node-role.kubernetes.io/control-plane", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
		requests: []string{"cpu", "50m", "memory", "64Mi"}, limits: []string{"memory", "256Mi"}},
}

func (g *generator) daemonPod(ds daemonSet, i int, node string) *corev1.Pod {
	hashPart := suffix(10, "dsrev", ds.name)
	t := podTemplate{
		namespace: ds.namespace, app: ds.name, image: ds.image, priorityClass: ds.class, priority: ds.priority,
		requests: res(ds.requests...), limits: res(ds.limits...), hostNetwork: ds.hostNetwork,
		tolerations: append(append([]corev1.Toleration{}, ds.extra...), daemonTolerations(ds.hostNetwork)...),
		owner: metav1.OwnerReference{APIVersion: "apps/v1", Kind: "DaemonSet", Name: ds.name, UID: uid("ds", ds.name),
			Controller: boolp(true), BlockOwnerDeletion: boolp(true)},
		labels:                 map[string]string{"app.kubernetes.io/name": ds.name, "controller-revision-hash": hashPart, "pod-template-generation": "1"},
		nodeAffinityToNodeName: true,
	}
	return g.pod(t, ds.name+"-"+suffix(5, "ds", ds.name, i), node, i, corev1.PodRunning)
}

type staticPod struct {
	name, image string
	cpu         string
}

var staticPods = []staticPod{
	{"etcd", "registry.k8s.io/etcd:3.6.5-0", "100m"},
	{"kube-apiserver", "registry.k8s.io/kube-apiserver:v1.37.2", "250m"},
	{"kube-controller-manager", "registry.k8s.io/kube-controller-manager:v1.37.2", "200m"},
	{"kube-scheduler", "registry.k8s.io/kube-scheduler:v1.37.2", "100m"},
}

func (g *generator) staticPod(sp staticPod, i int, node string) *corev1.Pod {
	t := podTemplate{
		namespace: "kube-system", app: sp.name, image: sp.image, priorityClass: "system-node-critical", priority: 2000001000,
		requests:    res("cpu", sp.cpu),
		tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute}},
		owner:       metav1.OwnerReference{APIVersion: "v1", Kind: "Node", Name: node, UID: uid("node", i), Controller: boolp(true)},
		labels:      map[string]string{"component": sp.name, "tier": "control-plane"},
		annotations: map[string]string{
			"kubernetes.io/config.hash":   hexID(32, "cfg", sp.name, i),
			"kubernetes.io/config.mirror": hexID(32, "cfg", sp.name, i),
			"kubernetes.io/config.seen":   g.created("seen", i).Format(time.RFC3339Nano),
			"kubernetes.io/config.source": "file",
		},
		hostNetwork: true,
	}
	p := g.pod(t, sp.name+"-"+node, node, i, corev1.PodRunning)
	return p
}

func (g *generator) coreDNS(i int, node string) *corev1.Pod {
	t := podTemplate{
		namespace: "kube-system", app: "coredns", image: "registry.k8s.io/coredns/coredns:v1.12.4",
		priorityClass: "system-cluster-critical", priority: 2000000000,
		requests: res("cpu", "100m", "memory", "70Mi"), limits: res("memory", "170Mi"),
		tolerations: append([]corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists},
			{Key: "node-role.kubernetes.io/control-plane", Effect: corev1.TaintEffectNoSchedule}}, defaultTolerations()...),
		owner: metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "coredns-7d9c8b6f5d", UID: uid("rs", "coredns"),
			Controller: boolp(true), BlockOwnerDeletion: boolp(true)},
		labels: map[string]string{"k8s-app": "kube-dns", "pod-template-hash": "7d9c8b6f5d"},
	}
	return g.pod(t, "coredns-7d9c8b6f5d-"+suffix(5, "dns", i), node, i, corev1.PodRunning)
}

// app is a Deployment or StatefulSet kind in the catalogue.
type app struct {
	namespace, name, image string
	class                  string
	priority               int32
	requests, limits       []string
	tolerations            func() []corev1.Toleration
}

var apps = []app{
	{"shop", "web", "registry.example.com/shop/web:2.14.0", "", 0, []string{"cpu", "200m", "memory", "256Mi"}, []string{"cpu", "1", "memory", "512Mi"}, defaultTolerations},
	{"shop", "cart", "registry.example.com/shop/cart:1.9.3", "", 0, []string{"cpu", "100m", "memory", "128Mi"}, []string{"cpu", "100m", "memory", "128Mi"}, defaultTolerations},
	{"payments", "api", "registry.example.com/payments/api:4.2.1", "business-critical", 100000, []string{"cpu", "500m", "memory", "1Gi"}, []string{"cpu", "500m", "memory", "1Gi"},
		func() []corev1.Toleration {
			return []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: i64(60)},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: i64(30)},
			}
		}},
	{"search", "search", "registry.example.com/search/search:7.1.0", "", 0, []string{"cpu", "1", "memory", "2Gi"}, []string{"memory", "4Gi"},
		func() []corev1.Toleration {
			return append([]corev1.Toleration{{Key: "spot", Operator: corev1.TolerationOpEqual, Value: "true", Effect: corev1.TaintEffectPreferNoSchedule}}, defaultTolerations()...)
		}},
	{"shop", "recommender", "registry.example.com/shop/recommender:0.8.4", "low", -10, nil, nil,
		func() []corev1.Toleration {
			return []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: i64(0)},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: i64(0)},
			}
		}},
	{"data", "ingest", "registry.example.com/data/ingest:3.3.0", "", 0, []string{"cpu", "250m", "memory", "512Mi"}, []string{"memory", "1Gi"},
		func() []corev1.Toleration {
			return []corev1.Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: i64(300)},
				{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute},
			}
		}},
}

var statefulApps = []app{
	{"data", "postgres", "docker.io/library/postgres:17.6", "business-critical", 100000, []string{"cpu", "1", "memory", "2Gi"}, []string{"cpu", "1", "memory", "2Gi"}, defaultTolerations},
	{"data", "kafka", "docker.io/bitnami/kafka:4.0.0", "", 0, []string{"cpu", "500m", "memory", "1Gi"}, []string{"memory", "2Gi"}, defaultTolerations},
	{"shop", "redis", "docker.io/library/redis:8.2", "", 0, []string{"cpu", "100m", "memory", "256Mi"}, nil,
		func() []corev1.Toleration {
			return append([]corev1.Toleration{{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: i64(120)}},
				defaultTolerations()[0])
		}},
}

func (a app) template() podTemplate {
	return podTemplate{namespace: a.namespace, app: a.name, image: a.image, priorityClass: a.class, priority: a.priority,
		requests: res(a.requests...), limits: res(a.limits...), tolerations: a.tolerations()}
}

func (g *generator) deployName(d int) (app, string) {
	a := apps[d%len(apps)]
	return a, fmt.Sprintf("%s-%d", a.name, d/len(apps))
}

func (g *generator) deployPod(k, i int, node string) *corev1.Pod {
	d := k % g.deployments()
	a, name := g.deployName(d)
	t := a.template()
	tmpl := suffix(10, "rs", d)
	rs := name + "-" + tmpl
	t.app = name
	t.owner = metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: uid("rs", d), Controller: boolp(true), BlockOwnerDeletion: boolp(true)}
	t.labels = map[string]string{"app": name, "pod-template-hash": tmpl}
	return g.pod(t, rs+"-"+suffix(5, "dp", k), node, i, corev1.PodRunning)
}

func (g *generator) deployPDB(d int) *policyv1.PodDisruptionBudget {
	if d%3 == 2 {
		return nil
	}
	a, name := g.deployName(d)
	spec := policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}}
	replicas := int32(0)
	for k := d; k < g.deploySlots; k += g.deployments() {
		replicas++
	}
	desired := replicas - 1
	if d%2 == 0 {
		spec.MinAvailable = ptr(intstr.FromString("50%"))
		desired = (replicas + 1) / 2
	} else {
		spec.MaxUnavailable = ptr(intstr.FromInt32(1))
	}
	return g.pdb(a.namespace, name, d, spec, replicas, desired)
}

func (g *generator) stsName(s int) (app, string) {
	a := statefulApps[s%len(statefulApps)]
	return a, fmt.Sprintf("%s-%d", a.name, s/len(statefulApps))
}

func (g *generator) stsPod(k, i int, node string) *corev1.Pod {
	s := k % g.statefulSets()
	a, name := g.stsName(s)
	t := a.template()
	t.app = name
	rev := name + "-" + suffix(10, "sts", s)
	ordinal := k / g.statefulSets()
	pod := fmt.Sprintf("%s-%d", name, ordinal)
	t.owner = metav1.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: name, UID: uid("sts", s), Controller: boolp(true), BlockOwnerDeletion: boolp(true)}
	t.labels = map[string]string{"app": name, "apps.kubernetes.io/pod-index": fmt.Sprint(ordinal),
		"controller-revision-hash": rev, "statefulset.kubernetes.io/pod-name": pod}
	return g.pod(t, pod, node, i, corev1.PodRunning)
}

func (g *generator) stsPDB(s int) *policyv1.PodDisruptionBudget {
	a, name := g.stsName(s)
	replicas := int32(0)
	for k := s; k < g.stsSlots; k += g.statefulSets() {
		replicas++
	}
	spec := policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
		MaxUnavailable: ptr(intstr.FromInt32(1))}
	return g.pdb(a.namespace, name, 1000000+s, spec, replicas, replicas-1)
}

func ptr[T any](v T) *T { return &v }

func (g *generator) pdb(ns, name string, k int, spec policyv1.PodDisruptionBudgetSpec, healthy, desired int32) *policyv1.PodDisruptionBudget {
	created := g.created("pdb", k)
	allowed := max(healthy-desired, 0)
	reason, status := "SufficientPods", metav1.ConditionTrue
	if allowed == 0 {
		reason, status = "InsufficientPods", metav1.ConditionFalse
	}
	return &policyv1.PodDisruptionBudget{
		TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: uid("pdb", k), Generation: 1,
			ResourceVersion: fmt.Sprint(100000 + hash("rv", "pdb", k)%900000), CreationTimestamp: mtime(created)},
		Spec: spec,
		Status: policyv1.PodDisruptionBudgetStatus{
			ObservedGeneration: 1, DisruptionsAllowed: allowed, CurrentHealthy: healthy, DesiredHealthy: desired, ExpectedPods: healthy,
			Conditions: []metav1.Condition{{Type: "DisruptionAllowed", Status: status, ObservedGeneration: 1, Reason: reason,
				LastTransitionTime: mtime(created.Add(time.Minute))}},
		},
	}
}

var jobs = []struct {
	namespace, name, image string
	restart                corev1.RestartPolicy
	requests               []string
	tolerations            func() []corev1.Toleration
}{
	{"batch", "nightly-report", "registry.example.com/batch/report:1.4.0", corev1.RestartPolicyNever, []string{"cpu", "500m", "memory", "1Gi"},
		func() []corev1.Toleration {
			return append([]corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "batch", Effect: corev1.TaintEffectNoSchedule}}, defaultTolerations()...)
		}},
	{"batch", "db-backup", "registry.example.com/batch/backup:2.0.2", corev1.RestartPolicyOnFailure, nil,
		func() []corev1.Toleration {
			return append([]corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpExists}}, defaultTolerations()...)
		}},
	{"ml", "train", "registry.example.com/ml/train:0.31.0", corev1.RestartPolicyNever, []string{"cpu", "4", "memory", "8Gi"},
		func() []corev1.Toleration {
			return append([]corev1.Toleration{{Key: "nvidia.com/gpu", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}, defaultTolerations()...)
		}},
}

func (g *generator) jobPod(k, i int, node string) *corev1.Pod {
	j := jobs[k%2]
	if i%20 == 0 {
		j = jobs[2] // the GPU nodes train
	}
	sched := 29391840 + k/len(jobs)
	job := fmt.Sprintf("%s-%d", j.name, sched)
	t := podTemplate{namespace: j.namespace, app: j.name, image: j.image, requests: res(j.requests...), restart: j.restart,
		tolerations: j.tolerations(),
		owner:       metav1.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: job, UID: uid("job", k), Controller: boolp(true), BlockOwnerDeletion: boolp(true)},
		labels: map[string]string{"batch.kubernetes.io/controller-uid": string(uid("job", k)), "batch.kubernetes.io/job-name": job,
			"controller-uid": string(uid("job", k)), "job-name": job},
	}
	if j.name == "train" {
		t.requests[corev1.ResourceName("nvidia.com/gpu")] = q("1")
		t.limits = res("nvidia.com/gpu", "1")
	}
	phase := corev1.PodRunning
	if k%2 == 1 {
		phase = corev1.PodSucceeded
	}
	return g.pod(t, job+"-"+suffix(5, "job", k), node, i, phase)
}

func (g *generator) criticalPod(k, i int, node string) *corev1.Pod {
	names := []string{"metrics-server", "cluster-autoscaler", "ebs-csi-controller"}
	name := names[k%len(names)]
	tmpl := suffix(10, "crit", name)
	t := podTemplate{namespace: "kube-system", app: name, image: "registry.k8s.io/" + name + ":v0.8.0",
		priorityClass: "system-cluster-critical", priority: 2000000000,
		requests: res("cpu", "100m", "memory", "200Mi"),
		tolerations: append([]corev1.Toleration{{Key: "CriticalAddonsOnly", Operator: corev1.TolerationOpExists}},
			defaultTolerations()...),
		owner: metav1.OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: name + "-" + tmpl, UID: uid("rs", name),
			Controller: boolp(true), BlockOwnerDeletion: boolp(true)},
		labels: map[string]string{"k8s-app": name, "pod-template-hash": tmpl},
	}
	return g.pod(t, name+"-"+tmpl+"-"+suffix(5, "crit", k), node, i, corev1.PodRunning)
}

func (g *generator) barePod(k, i int, node string) *corev1.Pod {
	t := podTemplate{namespace: "default", app: "debug", image: "docker.io/library/busybox:1.37", tolerations: defaultTolerations(),
		labels: map[string]string{"run": fmt.Sprintf("debug-%d", k)}}
	return g.pod(t, fmt.Sprintf("debug-%d", k), node, i, corev1.PodRunning)
}

// pod assembles a pod as the API server and kubelet leave it.
func (g *generator) pod(t podTemplate, name, node string, i int, phase corev1.PodPhase) *corev1.Pod {
	name = g.uniqueName(t.namespace, name)
	created := g.created("pod", name, node)
	started := created.Add(2 * time.Second)
	restart := t.restart
	if restart == "" {
		restart = corev1.RestartPolicyAlways
	}
	container := corev1.Container{
		Name: t.app, Image: t.image, ImagePullPolicy: corev1.PullIfNotPresent,
		Resources:                corev1.ResourceRequirements{Requests: t.requests, Limits: t.limits},
		TerminationMessagePath:   "/dev/termination-log",
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
	}
	pol := corev1.PreemptLowerPriority
	spec := corev1.PodSpec{
		Containers: []corev1.Container{container}, DNSPolicy: corev1.DNSClusterFirst, EnableServiceLinks: boolp(true),
		NodeName: node, PreemptionPolicy: &pol, Priority: i32(t.priority), PriorityClassName: t.priorityClass,
		RestartPolicy: restart, SchedulerName: "default-scheduler", SecurityContext: &corev1.PodSecurityContext{},
		ServiceAccountName: "default", DeprecatedServiceAccount: "default", TerminationGracePeriodSeconds: i64(30),
		Tolerations: t.tolerations, HostNetwork: t.hostNetwork,
	}
	if t.nodeAffinityToNodeName {
		spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
				{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}}}}}
	}
	qos := corev1.PodQOSBestEffort
	switch {
	case len(t.requests) > 0 && len(t.limits) > 0 && t.requests.Cpu().Equal(*t.limits.Cpu()) && t.requests.Memory().Equal(*t.limits.Memory()) && !t.limits.Cpu().IsZero():
		qos = corev1.PodQOSGuaranteed
	case len(t.requests) > 0 || len(t.limits) > 0:
		qos = corev1.PodQOSBurstable
	}
	hostIP := fmt.Sprintf("10.%d.%d.%d", i%g.c.Zones, i/250%250, i%250+2)
	podIP := fmt.Sprintf("10.%d.%d.%d", 64+i/250, i%250, hash("ip", name)%250+2)
	if t.hostNetwork {
		podIP = hostIP
	}
	ready := corev1.ConditionTrue
	state := corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: mtime(started)}}
	cs := corev1.ContainerStatus{Name: t.app, Image: t.image, ImageID: t.image + "@sha256:" + hexID(64, "image", t.image),
		ContainerID: "containerd://" + hexID(64, "ctr", name), Ready: true, Started: boolp(true), State: state,
		RestartCount: int32(hash("restarts", name) % 3)}
	if phase == corev1.PodSucceeded {
		ready = corev1.ConditionFalse
		cs.Ready, cs.Started = false, boolp(false)
		cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed",
			StartedAt: mtime(started), FinishedAt: mtime(started.Add(3 * time.Minute)), ContainerID: cs.ContainerID}}
	}
	if len(t.requests) > 0 || len(t.limits) > 0 {
		cs.AllocatedResources = t.requests
	}
	cond := func(ty corev1.PodConditionType, s corev1.ConditionStatus) corev1.PodCondition {
		return corev1.PodCondition{Type: ty, Status: s, LastTransitionTime: mtime(started)}
	}
	p := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: t.namespace, UID: uid("pod", name, node),
			ResourceVersion: fmt.Sprint(1000 + hash("rv", name)%900000), CreationTimestamp: mtime(created),
			Labels: t.labels, Annotations: t.annotations},
		Spec: spec,
		Status: corev1.PodStatus{
			Phase: phase, HostIP: hostIP, HostIPs: []corev1.HostIP{{IP: hostIP}}, PodIP: podIP, PodIPs: []corev1.PodIP{{IP: podIP}},
			QOSClass: qos, StartTime: ptr(mtime(created)),
			Conditions: []corev1.PodCondition{
				cond("PodReadyToStartContainers", ready), cond(corev1.PodInitialized, corev1.ConditionTrue),
				cond(corev1.PodReady, ready), cond(corev1.ContainersReady, ready), cond(corev1.PodScheduled, corev1.ConditionTrue),
			},
			ContainerStatuses: []corev1.ContainerStatus{cs},
		},
	}
	if t.owner.Kind != "" {
		p.OwnerReferences = []metav1.OwnerReference{t.owner}
	}
	if t.owner.Kind == "ReplicaSet" || t.owner.Kind == "StatefulSet" {
		p.GenerateName = t.owner.Name + "-"
		if t.owner.Kind == "StatefulSet" {
			p.Spec.Hostname = name
			p.Spec.Subdomain = t.owner.Name
		}
	}
	return p
}
