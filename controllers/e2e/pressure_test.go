package e2e

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/evictkit/eviction/controllers/e2e/framework"
	"github.com/evictkit/eviction/controllers/pressureevictor"
	"github.com/evictkit/eviction/thresholds"
)

// The stats servers stand in for kubelets at this address, which the test
// gives its own network namespace's loopback: kube-apiserver proxies only to
// global unicast addresses, so 127.0.0.1 is refused ("address not allowed"),
// while 10.211.0.1 counts as one and reaches nothing outside the namespace.
const (
	kubeletAddress = "10.211.0.1"
	envInNetns     = "EVICTKIT_E2E_IN_NETNS"
	envPrograms    = "EVICTKIT_E2E_PROGRAMS"
)

// TestPressureEvictor runs the evictor against a real kube-apiserver (with
// kube-controller-manager's disruption controller), reading each node's
// summary through the API server's node proxy from a stats server registered
// as the node's kubelet endpoint. It needs root, to run itself again inside
// a network namespace of its own (unshare -n) once the binaries are built.
func TestPressureEvictor(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	t.Parallel() // beside TestFaults and TestServerErrors
	if os.Getenv(envInNetns) == "" {
		if os.Geteuid() != 0 {
			t.Skip("needs root for a network namespace (unshare -n), where the stats servers get an address kube-apiserver proxies to")
		}
		if _, err := exec.LookPath("unshare"); err != nil {
			t.Skip("needs unshare and ip")
		}
		bin, err := framework.Build()
		if err != nil {
			t.Fatal(err)
		}
		progs := ourPrograms(t)
		badFlagsGiveOneLine(t, filepath.Join(progs, "pressure-evictor"))
		cmd := exec.Command("unshare", "-n", "sh", "-c",
			`ip link set lo up && ip addr add `+kubeletAddress+`/32 dev lo && exec "$0" "$@"`,
			os.Args[0], "-test.run=^TestPressureEvictor$", "-test.v", "-test.timeout=5m")
		cmd.Env = append(os.Environ(), envInNetns+"=1", framework.EnvBinDir+"="+filepath.Dir(bin.Etcd), envPrograms+"="+progs)
		out, err := cmd.CombinedOutput()
		t.Logf("inside the network namespace:\n%s", out)
		if err != nil {
			t.Fatalf("in the network namespace: %v", err)
		}
		return
	}

	cp := framework.Start(t, framework.Options{
		ControllerManager: &framework.ControllerManager{Controllers: []string{"disruption", "serviceaccount"}},
	})
	// Subtests run in parallel, after this function returned.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	client := cp.Client

	// The kubelet's part: pods being deleted go at once.
	go actAsKubelet(ctx, client)

	t.Run("RisingPressureInKubeletOrder", func(t *testing.T) {
		t.Parallel()
		n := startNode(ctx, t, client, "rising", 50, []statsPod{
			{name: "steady", usage: 100, request: 500}, {name: "best", usage: 150}, {name: "burst", usage: 400, request: 100},
		})
		n.run(ctx, t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}})
		n.waitGone(ctx, t, "burst", "best")
		n.stays(ctx, t, 3*time.Second, "steady")
		assert(t, n.evictedOrder(), "burst,best")
		assertEvents(ctx, t, client, "Evicted", "The node was low on resource: memory.", 2)
	})
	t.Run("Program", func(t *testing.T) {
		t.Parallel()
		n := startNode(ctx, t, client, "program", 50, []statsPod{
			{name: "steady", usage: 100, request: 500}, {name: "best", usage: 150}, {name: "burst", usage: 400, request: 100},
		})
		p, err := cp.Run("pressure-evictor-"+n.name, filepath.Join(os.Getenv(envPrograms), "pressure-evictor"),
			"--kubeconfig="+deployedKubeconfig(ctx, t, cp), "--node="+n.name, "--interval=500ms", "--metrics-bind-address=0",
			"--eviction-soft=memory.available<500Mi", "--eviction-soft-grace-period=memory.available=1s")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Stop(5 * time.Second) })
		n.waitGone(ctx, t, "burst", "best")
		n.stays(ctx, t, 2*time.Second, "steady")
		assert(t, n.evictedOrder(), "burst,best")
		assertEvents(ctx, t, client, "Evicted", "The node was low on resource: memory.", 1, "burst")
		if log := p.Log(64 << 10); strings.Contains(log, "forbidden") {
			t.Errorf("the deployment's RBAC lacks a permission:\n%s", log)
		}
	})
	t.Run("BudgetProtectsTheFirstRanked", func(t *testing.T) {
		t.Parallel()
		n := startNode(ctx, t, client, "budget", 50, []statsPod{{name: "best", usage: 150}, {name: "burst", usage: 400, request: 100}})
		pdb := &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "burst", Namespace: n.ns},
			Spec: policyv1.PodDisruptionBudgetSpec{
				MinAvailable: &intstr.IntOrString{IntVal: 1},
				Selector:     &metav1.LabelSelector{MatchLabels: map[string]string{"app": "burst"}},
			},
		}
		if _, err := client.PolicyV1().PodDisruptionBudgets(n.ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		n.run(ctx, t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}})
		n.waitGone(ctx, t, "best")
		n.stays(ctx, t, 3*time.Second, "burst")
		assert(t, n.evictedOrder(), "best")
	})
	t.Run("BelowThresholdOrInsideGrace", func(t *testing.T) {
		t.Parallel()
		n := startNode(ctx, t, client, "calm", 300, []statsPod{{name: "best", usage: 150}, {name: "burst", usage: 400, request: 100}})
		n.run(ctx, t, thresholds.Flags{
			Soft: []string{"memory.available<500Mi"}, SoftGracePeriod: []string{"memory.available=1h"},
			Hard: []string{"memory.available<100Mi"},
		})
		n.stays(ctx, t, 4*time.Second, "best", "burst")
	})
	t.Run("LostAnswer", func(t *testing.T) {
		t.Parallel()
		// The eviction of burst is applied, its answer lost (504); burst
		// stays terminating (a finalizer holds it, as a long grace period
		// would) and still uses its memory: no second pod may go.
		n := startNode(ctx, t, client, "lostanswer", 50, []statsPod{
			{name: "steady", usage: 100, request: 500}, {name: "best", usage: 150}, {name: "burst", usage: 400, request: 100},
		})
		n.holdTerminating(ctx, t, "burst")
		p := newFaultProxy(t, cp, n.ns, map[string][]int{writeEviction: {-http.StatusGatewayTimeout}})
		cfg, err := clientcmd.BuildConfigFromFlags("", p.kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		proxied, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			t.Fatal(err)
		}
		n.runWith(ctx, t, proxied, thresholds.Flags{Hard: []string{"memory.available<500Mi"}})
		n.waitTerminating(ctx, t, "burst")
		n.stays(ctx, t, 4*time.Second, "best", "steady")
		injected, passed := p.report()
		if got := fmt.Sprint(injected[writeEviction], passed[writeEviction]); got != "[-504] 0" {
			t.Errorf("evictions through the proxy: answered %v, passed %d; want one, its answer lost, and no other", injected[writeEviction], passed[writeEviction])
		}
		assertEvents(ctx, t, client, "Evicted", "The node was low on resource: memory.", 1, "burst")
	})
	t.Run("OneBadPod", func(t *testing.T) {
		t.Parallel()
		// burst ranks first and is under two budgets: the API server
		// answers 500 to its eviction. The next pod goes all the same.
		n := startNode(ctx, t, client, "onebadpod", 50, []statsPod{{name: "best", usage: 150}, {name: "burst", usage: 400, request: 100}})
		for _, name := range []string{"burst-a", "burst-b"} {
			pdb := &policyv1.PodDisruptionBudget{
				ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: n.ns},
				Spec: policyv1.PodDisruptionBudgetSpec{
					MaxUnavailable: &intstr.IntOrString{IntVal: 1},
					Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "burst"}},
				},
			}
			if _, err := client.PolicyV1().PodDisruptionBudgets(n.ns).Create(ctx, pdb, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		n.run(ctx, t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}})
		n.waitGone(ctx, t, "best")
		n.stays(ctx, t, 2*time.Second, "burst")
		assert(t, n.evictedOrder(), "best")
		assertEvents(ctx, t, client, pressureevictor.ReasonEvictionFailed, "Eviction failed: ", 1, "burst")
	})
	for _, tc := range []struct{ name, body string }{{"Missing", ""}, {"Malformed", `{"node":{"memory":{"availableBytes":"lots"}}}`}} {
		t.Run("Summary"+tc.name, func(t *testing.T) {
			t.Parallel()
			n := startNode(ctx, t, client, tc.name, 50, []statsPod{{name: "best", usage: 150}})
			if tc.body != "" {
				n.mu.Lock()
				n.broken = tc.body
				n.mu.Unlock()
			}
			n.run(ctx, t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}})
			assertEvents(ctx, t, client, "SummaryUnavailable", "Eviction cycle skipped: ", 1, n.name)
			n.stays(ctx, t, time.Second, "best")
		})
	}
}

// deployedKubeconfig applies deploy/pressure-evictor/rbac.yaml and returns a
// kubeconfig for its service account: the program runs with exactly the
// permissions the deployment grants.
func deployedKubeconfig(ctx context.Context, t *testing.T, cp *framework.ControlPlane) string {
	t.Helper()
	data, err := os.ReadFile("../../deploy/pressure-evictor/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(string(data), "\n---\n")
	if len(docs) != 3 {
		t.Fatalf("rbac.yaml: %d documents, want 3", len(docs))
	}
	var (
		sa      v1.ServiceAccount
		role    rbacv1.ClusterRole
		binding rbacv1.ClusterRoleBinding
	)
	for i, obj := range []any{&sa, &role, &binding} {
		if err := yaml.UnmarshalStrict([]byte(docs[i]), obj); err != nil {
			t.Fatal(err)
		}
	}
	c := cp.Client
	if _, err := c.CoreV1().ServiceAccounts(sa.Namespace).Create(ctx, &sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RbacV1().ClusterRoles().Create(ctx, &role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RbacV1().ClusterRoleBindings().Create(ctx, &binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tok, err := c.CoreV1().ServiceAccounts(sa.Namespace).CreateToken(ctx, sa.Name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: cp.Config.Host, CertificateAuthority: cp.Config.TLSClientConfig.CAFile}
	cfg.AuthInfos["evictor"] = &clientcmdapi.AuthInfo{Token: tok.Status.Token}
	cfg.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: "evictor"}
	cfg.CurrentContext = "e2e"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// badFlagsGiveOneLine runs the program with a bad flag: one line on stderr,
// exit status 2.
func badFlagsGiveOneLine(t *testing.T, path string) {
	t.Helper()
	for _, args := range [][]string{{"--node=n", "--bogus"}, {"--node=n", "--eviction-soft=memory.available<1Gi"}} {
		cmd := exec.Command(path, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 2 {
			t.Errorf("%v: want exit status 2, got %v", args, err)
		}
		if lines := strings.Count(stderr.String(), "\n"); lines != 1 || !strings.HasPrefix(stderr.String(), "pressure-evictor: ") {
			t.Errorf("%v: want one error line, got %q", args, stderr.String())
		}
	}
}

func assert(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

type statsPod struct {
	name           string
	usage, request int64 // MiB
}

// fakeNode is a Node whose kubelet endpoint is a stats server: memory.available
// is base plus the usage of the pods gone.
type fakeNode struct {
	name, ns string
	client   kubernetes.Interface
	mu       sync.Mutex
	base     int64
	pods     []statsPod
	gone     []string
	broken   string // served instead of the summary when set; "404" serves 404
}

func startNode(ctx context.Context, t *testing.T, client kubernetes.Interface, name string, base int64, pods []statsPod) *fakeNode {
	t.Helper()
	n := &fakeNode{name: "pressure-" + strings.ToLower(name), ns: "pressure-" + strings.ToLower(name), client: client, base: base, pods: pods}
	if name == "Missing" {
		n.broken = "404"
	}
	l, err := net.Listen("tcp", kubeletAddress+":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(n.serve))
	srv.Listener = l
	srv.StartTLS()
	t.Cleanup(srv.Close)
	port := l.Addr().(*net.TCPAddr).Port

	if _, err := client.CoreV1().Namespaces().Create(ctx, &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n.ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	node, err := client.CoreV1().Nodes().Create(ctx, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n.name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	node.Status.Addresses = []v1.NodeAddress{{Type: v1.NodeInternalIP, Address: kubeletAddress}}
	node.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(port)
	node.Status.Conditions = []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, LastHeartbeatTime: metav1.Now()}}
	if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range pods {
		c := v1.Container{Name: "app", Image: "app"}
		if p.request > 0 {
			c.Resources.Requests = v1.ResourceList{v1.ResourceMemory: *resource.NewQuantity(p.request<<20, resource.BinarySI)}
		}
		pod := &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: n.ns, Labels: map[string]string{"app": p.name}},
			Spec:       v1.PodSpec{NodeName: n.name, Containers: []v1.Container{c}},
		}
		pod, err := client.CoreV1().Pods(n.ns).Create(ctx, pod, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		pod.Status.Phase = v1.PodRunning
		pod.Status.Conditions = []v1.PodCondition{{Type: v1.PodReady, Status: v1.ConditionTrue}}
		if _, err := client.CoreV1().Pods(n.ns).UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

func (n *fakeNode) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/stats/summary" {
		http.NotFound(w, r)
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	switch n.broken {
	case "":
	case "404":
		http.NotFound(w, r)
		return
	default:
		_, _ = w.Write([]byte(n.broken))
		return
	}
	// Refresh which pods are gone.
	list, err := n.client.CoreV1().Pods(n.ns).List(r.Context(), metav1.ListOptions{})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	present := map[string]bool{}
	for _, p := range list.Items {
		present[p.Name] = true
	}
	available := n.base
	now := time.Now().UTC().Format(time.RFC3339Nano)
	var stats []string
	for _, p := range n.pods {
		if !present[p.name] {
			if !contains(n.gone, p.name) {
				n.gone = append(n.gone, p.name)
			}
			available += p.usage
			continue
		}
		for _, q := range list.Items {
			if q.Name == p.name {
				stats = append(stats, fmt.Sprintf(`{"podRef":{"name":%q,"namespace":%q,"uid":%q},"memory":{"time":%q,"workingSetBytes":%d},"containers":[{"name":"app","memory":{"time":%q,"workingSetBytes":%d}}]}`,
					q.Name, q.Namespace, q.UID, now, p.usage<<20, now, p.usage<<20))
			}
		}
	}
	fmt.Fprintf(w, `{"node":{"nodeName":%q,"memory":{"time":%q,"availableBytes":%d,"workingSetBytes":%d}},"pods":[%s]}`,
		n.name, now, available<<20, (8192-available)<<20, strings.Join(stats, ","))
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

func (n *fakeNode) evictedOrder() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.gone, ",")
}

// run starts an evictor for the node, as the program does, until the test
// ends.
func (n *fakeNode) run(ctx context.Context, t *testing.T, f thresholds.Flags) {
	t.Helper()
	n.runWith(ctx, t, n.client, f)
}

// runWith starts an evictor for the node that reaches the API server with
// client, until the test ends.
func (n *fakeNode) runWith(ctx context.Context, t *testing.T, client kubernetes.Interface, f thresholds.Flags) {
	t.Helper()
	ts, err := pressureevictor.ParseThresholds(f)
	if err != nil {
		t.Fatal(err)
	}
	factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
		informers.WithTweakListOptions(func(lo *metav1.ListOptions) {
			lo.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", n.name).String()
		}))
	pods := factory.Core().V1().Pods()
	e, err := pressureevictor.New(pressureevictor.Config{
		Client: client, Node: n.name, Pods: pods.Lister(), PodsSynced: pods.Informer().HasSynced,
		Source: pressureevictor.NewProxySource(client, n.name), Thresholds: ts, Interval: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	factory.Start(ctx.Done())
	go func() { defer close(done); _ = e.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; factory.Shutdown() })
}

func (n *fakeNode) waitGone(ctx context.Context, t *testing.T, names ...string) {
	t.Helper()
	for ctx.Err() == nil {
		n.mu.Lock()
		all := true
		for _, name := range names {
			all = all && contains(n.gone, name)
		}
		n.mu.Unlock()
		if all {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("pods %v not evicted; gone: %q", names, n.evictedOrder())
}

// holdTerminating puts a finalizer on the pod, so that once deleted it stays
// terminating (and using its memory) until the test ends.
func (n *fakeNode) holdTerminating(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	const finalizer = "e2e.evictkit.dev/hold"
	p, err := n.client.CoreV1().Pods(n.ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Finalizers = append(p.Finalizers, finalizer)
	if _, err := n.client.CoreV1().Pods(n.ns).Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		patch := []byte(`{"metadata":{"finalizers":null}}`)
		_, _ = n.client.CoreV1().Pods(n.ns).Patch(context.Background(), name, types.MergePatchType, patch, metav1.PatchOptions{})
	})
}

// waitTerminating waits for the pod to be terminating.
func (n *fakeNode) waitTerminating(ctx context.Context, t *testing.T, name string) {
	t.Helper()
	for ctx.Err() == nil {
		p, err := n.client.CoreV1().Pods(n.ns).Get(ctx, name, metav1.GetOptions{})
		if err == nil && p.DeletionTimestamp != nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("pod %s not terminating", name)
}

// stays checks that the pods are still there, not terminating, for d.
func (n *fakeNode) stays(ctx context.Context, t *testing.T, d time.Duration, names ...string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		for _, name := range names {
			p, err := n.client.CoreV1().Pods(n.ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil || p.DeletionTimestamp != nil {
				t.Fatalf("pod %s should stay: %v", name, err)
			}
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// actAsKubelet removes every pod being deleted, as a kubelet does once its
// containers stopped.
func actAsKubelet(ctx context.Context, client kubernetes.Interface) {
	zero := int64(0)
	for ctx.Err() == nil {
		list, err := client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		if err == nil {
			for _, p := range list.Items {
				if p.DeletionTimestamp != nil {
					_ = client.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// assertEvents waits for at least n events with reason and a message starting
// with prefix (on the named object, if given).
func assertEvents(ctx context.Context, t *testing.T, client kubernetes.Interface, reason, prefix string, n int, object ...string) {
	t.Helper()
	var got []string
	for ctx.Err() == nil {
		got = nil
		list, err := client.CoreV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: "reason=" + reason})
		if err == nil {
			for _, e := range list.Items {
				if strings.HasPrefix(e.Message, prefix) && (len(object) == 0 || e.InvolvedObject.Name == object[0]) {
					got = append(got, e.Message)
				}
			}
		}
		if len(got) >= n {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("want %d %s events starting %q, got %q", n, reason, prefix, got)
}
