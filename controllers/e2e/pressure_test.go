package e2e

import (
	"cmp"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
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
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/yaml"

	"github.com/evictkit/eviction/controllers/e2e/framework"
	"github.com/evictkit/eviction/controllers/pressureevictor"
	"github.com/evictkit/eviction/thresholds"
)

// The stats servers stand in for kubelets at this address, which the test
// gives its own network namespace's loopback, as a node's IP: the evictors
// reach it directly, as a DaemonSet reaches its node's kubelet at
// status.hostIP, and each Node reports it as its InternalIP. (It is a global
// unicast address, which kube-apiserver's node proxy would also reach, where
// it refuses 127.0.0.1: "address not allowed".)
const (
	kubeletAddress = "10.211.0.1"
	envInNetns     = "EVICTKIT_E2E_IN_NETNS"
	envPrograms    = "EVICTKIT_E2E_PROGRAMS"
)

// TestPressureEvictor runs the evictor against a real kube-apiserver (with
// kube-controller-manager's disruption controller), reading each node's
// summary from a stats server that stands in for the node's kubelet (its
// port registered as the Node's kubelet endpoint) and authorizes like one:
// it authenticates the bearer token with a TokenReview and asks the API
// server, with a SubjectAccessReview, whether its user may get nodes/stats
// of the node, answering 401 or 403 otherwise. The evictors hold the token
// of deploy/pressure-evictor/rbac.yaml's service account, with exactly its
// rights. The test needs root, to run itself again inside a network
// namespace of its own (unshare -n) once the binaries are built.
func TestPressureEvictor(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	t.Parallel() // beside the other suites
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
	env := &pressureEnv{cp: cp, pki: newKubeletPKI(t)}
	env.deployed = deployEvictor(ctx, t, cp)

	// The kubelet's part: pods being deleted go at once.
	go actAsKubelet(ctx, client)

	t.Run("RisingPressureInKubeletOrder", func(t *testing.T) {
		t.Parallel()
		n := env.startNode(ctx, t, "rising", 50, []statsPod{
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
		n := env.startNode(ctx, t, "program", 50, []statsPod{
			{name: "steady", usage: 100, request: 500}, {name: "best", usage: 150}, {name: "burst", usage: 400, request: 100},
		})
		// The program as the DaemonSet runs it: the kubelet source by
		// default, the node's IP and the service account's token and CA
		// given as its projected volume would; the API server reached
		// through a proxy that records every request.
		rec := newRecordingProxy(t, cp)
		p, err := cp.Run("pressure-evictor-"+n.name, filepath.Join(os.Getenv(envPrograms), "pressure-evictor"),
			"--kubeconfig="+rec.kubeconfig(t, cp, env.deployed.token), "--node="+n.name, "--interval=500ms", "--metrics-bind-address=0",
			"--node-ip="+kubeletAddress, "--kubelet-token-file="+env.deployed.tokenFile, "--kubelet-certificate-authority="+env.pki.caFile,
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
		allowed, denied := n.decisions()
		if allowed[deployedUser] == 0 || len(denied) > 0 {
			t.Errorf("the kubelet authorized %v and refused %v, want only %s, allowed", allowed, denied, deployedUser)
		}
		// The API server saw the Node read (the kubelet's port) and the
		// evictions, and no request for any node's proxy.
		var nodeRead, evictions int
		for _, r := range rec.requests() {
			switch {
			case strings.Contains(r, "/proxy"):
				t.Errorf("the program asked the API server for %s", r)
			case r == "GET /api/v1/nodes/"+n.name:
				nodeRead++
			case strings.HasPrefix(r, "POST /api/v1/namespaces/"+n.ns+"/pods/") && strings.HasSuffix(r, "/eviction"):
				evictions++
			}
		}
		if nodeRead == 0 || evictions < 2 {
			t.Errorf("through the proxy: %d reads of the Node and %d evictions, want at least 1 and 2:\n%s", nodeRead, evictions, strings.Join(rec.requests(), "\n"))
		}
	})
	t.Run("TokenRefusedByTheKubelet", func(t *testing.T) {
		t.Parallel()
		// A token without get on nodes/stats (a service account with every
		// other right of the deployment), and one the API server does not
		// authenticate: the kubelet answers 403 and 401, the evictor
		// evicts nothing and says why on the Node, and counts it.
		n := env.startNode(ctx, t, "refused", 50, []statsPod{{name: "best", usage: 150}})
		var rules []rbacv1.PolicyRule
		for _, r := range env.deployed.rules {
			r.Resources = slices.DeleteFunc(slices.Clone(r.Resources), func(res string) bool { return res == "nodes/stats" })
			if len(r.Resources) > 0 {
				rules = append(rules, r)
			}
		}
		noStats := serviceAccount(ctx, t, cp, n.ns, "no-stats", rules)
		reg := prometheus.NewRegistry()
		m, err := pressureevictor.NewMetrics(reg)
		if err != nil {
			t.Fatal(err)
		}
		n.runWith(ctx, t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}}, evictorRun{client: noStats.client, tokenFile: noStats.tokenFile, metrics: m})
		assertEventSays(ctx, t, client, pressureevictor.ReasonSummaryUnavailable, n.name,
			`which needs get on nodes/stats of node "`+n.name+`" (403 Forbidden: Forbidden (user=system:serviceaccount:`+n.ns+`:no-stats, verb=get, resource=nodes, subresource(s)=[stats]))`)

		garbage := filepath.Join(t.TempDir(), "token")
		if err := os.WriteFile(garbage, []byte("not-a-token"), 0o600); err != nil {
			t.Fatal(err)
		}
		n.runWith(ctx, t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}}, evictorRun{tokenFile: garbage, metrics: m})
		assertEventSays(ctx, t, client, pressureevictor.ReasonSummaryUnavailable, n.name,
			"did not authenticate the token of "+garbage+" (401 Unauthorized")

		n.stays(ctx, t, 2*time.Second, "best")
		if got := counterValue(t, reg, "pressure_evictor_summary_failures_total", pressureevictor.SummaryRefused); got < 2 {
			t.Errorf("pressure_evictor_summary_failures_total{cause=refused} = %v, want at least 2", got)
		}
		if got := counterValue(t, reg, "pressure_evictor_cycles_total", pressureevictor.OutcomeEvicted); got != 0 {
			t.Errorf("pressure_evictor_cycles_total{outcome=evicted} = %v, want 0", got)
		}
		allowed, denied := n.decisions()
		if len(allowed) > 0 || denied["system:serviceaccount:"+n.ns+":no-stats"] == 0 {
			t.Errorf("the kubelet authorized %v and refused %v, want no-stats refused only", allowed, denied)
		}
	})
	t.Run("BudgetProtectsTheFirstRanked", func(t *testing.T) {
		t.Parallel()
		n := env.startNode(ctx, t, "budget", 50, []statsPod{{name: "best", usage: 150}, {name: "burst", usage: 400, request: 100}})
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
		n := env.startNode(ctx, t, "calm", 300, []statsPod{{name: "best", usage: 150}, {name: "burst", usage: 400, request: 100}})
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
		n := env.startNode(ctx, t, "lostanswer", 50, []statsPod{
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
		n.runWith(ctx, t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}}, evictorRun{client: proxied})
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
		n := env.startNode(ctx, t, "onebadpod", 50, []statsPod{{name: "best", usage: 150}, {name: "burst", usage: 400, request: 100}})
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
	t.Run("PodOfAnotherNodeInTheSummary", func(t *testing.T) {
		t.Parallel()
		// The kubelet's summary names a pod of another node, the largest
		// user of memory by far: the evictor evicts from its own node's
		// pods only.
		neighbour := env.startNode(ctx, t, "neighbour", 300, []statsPod{{name: "big", usage: 10}})
		big, err := client.CoreV1().Pods(neighbour.ns).Get(ctx, "big", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		n := env.startNode(ctx, t, "strangers", 50, []statsPod{{name: "best", usage: 150}})
		n.mu.Lock()
		n.extra = podStats(big, 5000)
		n.mu.Unlock()
		n.run(ctx, t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}})
		n.waitGone(ctx, t, "best")
		neighbour.stays(ctx, t, 2*time.Second, "big")
	})
	for _, tc := range []struct{ name, body, says string }{
		{"Missing", "", "answered 404 Not Found"},
		{"Malformed", `{"node":{"memory":{"availableBytes":"lots"}}}`, "node.memory.availableBytes: wrong type"},
		// Another node's figures, under pressure: not acted on.
		{"Foreign", `{"node":{"nodeName":"elsewhere","memory":{"availableBytes":0}},"pods":[]}`, `summary of node "elsewhere", not "pressure-foreign"`},
	} {
		t.Run("Summary"+tc.name, func(t *testing.T) {
			t.Parallel()
			n := env.startNode(ctx, t, tc.name, 50, []statsPod{{name: "best", usage: 150}})
			if tc.body != "" {
				n.mu.Lock()
				n.broken = tc.body
				n.mu.Unlock()
			}
			n.run(ctx, t, thresholds.Flags{Hard: []string{"memory.available<500Mi"}})
			assertEvents(ctx, t, client, "SummaryUnavailable", "Eviction cycle skipped: ", 1, n.name)
			assertEventSays(ctx, t, client, "SummaryUnavailable", n.name, tc.says)
			n.stays(ctx, t, time.Second, "best")
		})
	}
}

// deployedUser is the user of deploy/pressure-evictor/rbac.yaml's service
// account.
const deployedUser = "system:serviceaccount:kube-system:pressure-evictor"

// identity is a service account's token, in a file as its projected volume
// holds it, and a client that uses it.
type identity struct {
	token, tokenFile string
	client           kubernetes.Interface
	// rules are the rules of its ClusterRole.
	rules []rbacv1.PolicyRule
}

// deployEvictor applies deploy/pressure-evictor/rbac.yaml and returns its
// service account's identity: the evictors run with exactly the
// permissions the deployment grants.
func deployEvictor(ctx context.Context, t *testing.T, cp *framework.ControlPlane) identity {
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
	if u := "system:serviceaccount:" + sa.Namespace + ":" + sa.Name; u != deployedUser {
		t.Fatalf("rbac.yaml's service account is %s, want %s", u, deployedUser)
	}
	c := cp.Client
	// kube-apiserver creates kube-system shortly after it is ready.
	for {
		_, err := c.CoreV1().Namespaces().Get(ctx, sa.Namespace, metav1.GetOptions{})
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("namespace %s: %v", sa.Namespace, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if _, err := c.CoreV1().ServiceAccounts(sa.Namespace).Create(ctx, &sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RbacV1().ClusterRoles().Create(ctx, &role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RbacV1().ClusterRoleBindings().Create(ctx, &binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	id := token(ctx, t, cp, sa.Namespace, sa.Name)
	id.rules = role.Rules
	return id
}

// serviceAccount creates the service account ns/name bound to a
// ClusterRole of rules, and returns its identity.
func serviceAccount(ctx context.Context, t *testing.T, cp *framework.ControlPlane, ns, name string, rules []rbacv1.PolicyRule) identity {
	t.Helper()
	c := cp.Client
	sa := &v1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if _, err := c.CoreV1().ServiceAccounts(ns).Create(ctx, sa, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "e2e:" + ns + ":" + name}, Rules: rules}
	if _, err := c.RbacV1().ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role.Name},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: name, Namespace: ns}},
	}
	if _, err := c.RbacV1().ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	id := token(ctx, t, cp, ns, name)
	id.rules = rules
	return id
}

// token mints a token of the service account ns/name (TokenRequest, as
// the kubelet does for a projected volume) and writes it to a file.
func token(ctx context.Context, t *testing.T, cp *framework.ControlPlane, ns, name string) identity {
	t.Helper()
	tok, err := cp.Client.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	id := identity{token: tok.Status.Token, tokenFile: filepath.Join(t.TempDir(), "token")}
	if err := os.WriteFile(id.tokenFile, []byte(id.token), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := &rest.Config{Host: cp.Config.Host, BearerToken: id.token, TLSClientConfig: cp.Config.TLSClientConfig, QPS: 50, Burst: 100}
	if id.client, err = kubernetes.NewForConfig(cfg); err != nil {
		t.Fatal(err)
	}
	return id
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

// pressureEnv is what the scenarios share: the control plane, the
// kubelets' certificate authority, and the deployment's service account.
type pressureEnv struct {
	cp       *framework.ControlPlane
	pki      *kubeletPKI
	deployed identity
}

// kubeletPKI is a CA and the serving certificate it signed for
// kubeletAddress, as kubelet serving certificates are issued for the
// node's IP.
type kubeletPKI struct {
	caFile string
	cert   tls.Certificate
}

func newKubeletPKI(t *testing.T) *kubeletPKI {
	t.Helper()
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "e2e-kubelet-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "e2e-kubelet"},
		IPAddresses: []net.IP{net.ParseIP(kubeletAddress)},
		NotBefore:   now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	p := &kubeletPKI{caFile: filepath.Join(t.TempDir(), "kubelet-ca.crt"), cert: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}}
	if err := os.WriteFile(p.caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// fakeNode is a Node whose kubelet endpoint is a stats server: memory.available
// is base plus the usage of the pods gone. The server authorizes each
// request as a kubelet does (authorize).
type fakeNode struct {
	name, ns string
	env      *pressureEnv
	client   kubernetes.Interface
	mu       sync.Mutex
	base     int64
	pods     []statsPod
	gone     []string
	broken   string // served instead of the summary when set; "404" serves 404
	extra    string // more pod stats in the summary, JSON
	// allowed and denied count the kubelet's decisions, by user.
	allowed, denied map[string]int
}

func (e *pressureEnv) startNode(ctx context.Context, t *testing.T, name string, base int64, pods []statsPod) *fakeNode {
	t.Helper()
	client := e.cp.Client
	n := &fakeNode{name: "pressure-" + strings.ToLower(name), ns: "pressure-" + strings.ToLower(name), env: e, client: client, base: base, pods: pods,
		allowed: map[string]int{}, denied: map[string]int{}}
	if name == "Missing" {
		n.broken = "404"
	}
	l, err := net.Listen("tcp", kubeletAddress+":0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(n.serve))
	srv.Listener = l
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{e.pki.cert}, MinVersion: tls.VersionTLS12}
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
	if code, msg := n.authorize(r); code != http.StatusOK {
		http.Error(w, msg, code)
		return
	}
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
				stats = append(stats, podStats(&q, p.usage))
			}
		}
	}
	if n.extra != "" {
		stats = append(stats, n.extra)
	}
	fmt.Fprintf(w, `{"node":{"nodeName":%q,"memory":{"time":%q,"availableBytes":%d,"workingSetBytes":%d}},"pods":[%s]}`,
		n.name, now, available<<20, (8192-available)<<20, strings.Join(stats, ","))
}

// authorize does what a kubelet with webhook authentication and
// authorization does with a request: it authenticates the bearer token with
// a TokenReview (401 when the API server does not), then asks the API
// server with a SubjectAccessReview whether the token's user may do the
// request's verb on the node's subresource the path maps to (403 when it
// may not). It returns 200 when the request may go on.
func (n *fakeNode) authorize(r *http.Request) (int, string) {
	token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || token == "" {
		return http.StatusUnauthorized, "Unauthorized"
	}
	tr, err := n.client.AuthenticationV1().TokenReviews().Create(r.Context(),
		&authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
	if err != nil {
		return http.StatusInternalServerError, err.Error()
	}
	if !tr.Status.Authenticated {
		return http.StatusUnauthorized, "Unauthorized"
	}
	u := tr.Status.User
	extra := map[string]authorizationv1.ExtraValue{}
	for k, v := range u.Extra {
		extra[k] = authorizationv1.ExtraValue(v)
	}
	attrs := &authorizationv1.ResourceAttributes{Verb: kubeletVerb(r.Method), Resource: "nodes", Subresource: kubeletSubresource(r.URL.Path), Name: n.name}
	sar, err := n.client.AuthorizationV1().SubjectAccessReviews().Create(r.Context(), &authorizationv1.SubjectAccessReview{
		Spec: authorizationv1.SubjectAccessReviewSpec{User: u.Username, UID: u.UID, Groups: u.Groups, Extra: extra, ResourceAttributes: attrs},
	}, metav1.CreateOptions{})
	if err != nil {
		return http.StatusInternalServerError, err.Error()
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !sar.Status.Allowed {
		n.denied[u.Username]++
		return http.StatusForbidden, fmt.Sprintf("Forbidden (user=%s, verb=%s, resource=%s, subresource(s)=[%s])", u.Username, attrs.Verb, attrs.Resource, attrs.Subresource)
	}
	n.allowed[u.Username]++
	return http.StatusOK, ""
}

// kubeletVerb is the verb a kubelet authorizes an HTTP method as.
func kubeletVerb(method string) string {
	switch method {
	case http.MethodPost:
		return "create"
	case http.MethodPut:
		return "update"
	case http.MethodPatch:
		return "patch"
	case http.MethodDelete:
		return "delete"
	}
	return "get"
}

// kubeletSubresource is the nodes subresource a kubelet with fine-grained
// authorization (KEP-2862) checks for a path: /stats/* is nodes/stats, and
// every path without a subresource of its own, exec and run among them, is
// nodes/proxy.
func kubeletSubresource(path string) string {
	first, _, _ := strings.Cut(strings.TrimPrefix(path, "/"), "/")
	switch first {
	case "stats":
		return "stats"
	case "metrics":
		return "metrics"
	case "logs":
		return "log"
	case "pods":
		return "pods"
	case "healthz":
		return "healthz"
	case "configz":
		return "configz"
	}
	return "proxy"
}

// decisions returns the kubelet's decisions so far, by user.
func (n *fakeNode) decisions() (allowed, denied map[string]int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return maps.Clone(n.allowed), maps.Clone(n.denied)
}

// podStats is the summary's stats of pod, using usage MiB of memory now.
func podStats(pod *v1.Pod, usage int64) string {
	now := time.Now().UTC().Format(time.RFC3339Nano)
	return fmt.Sprintf(`{"podRef":{"name":%q,"namespace":%q,"uid":%q},"memory":{"time":%q,"workingSetBytes":%d},"containers":[{"name":"app","memory":{"time":%q,"workingSetBytes":%d}}]}`,
		pod.Name, pod.Namespace, pod.UID, now, usage<<20, now, usage<<20)
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

// run starts an evictor for the node, as the program does, with the
// deployment's service account, until the test ends.
func (n *fakeNode) run(ctx context.Context, t *testing.T, f thresholds.Flags) {
	t.Helper()
	n.runWith(ctx, t, f, evictorRun{})
}

// evictorRun says how runWith runs an evictor; the zero value is the
// deployment's service account for both the API server and the kubelet.
type evictorRun struct {
	// client reaches the API server.
	client kubernetes.Interface
	// tokenFile holds the token the kubelet is given.
	tokenFile string
	// metrics, if set, are the evictor's.
	metrics *pressureevictor.Metrics
}

// runWith starts an evictor for the node that reads its summary from the
// node's stand-in kubelet directly, its port from the Node, until the test
// ends.
func (n *fakeNode) runWith(ctx context.Context, t *testing.T, f thresholds.Flags, r evictorRun) {
	t.Helper()
	client := cmp.Or[kubernetes.Interface](r.client, n.env.deployed.client)
	ts, err := pressureevictor.ParseThresholds(f)
	if err != nil {
		t.Fatal(err)
	}
	source, err := pressureevictor.NewKubeletSource(pressureevictor.KubeletConfig{
		Node: n.name, Address: kubeletAddress, Client: client,
		TokenFile: cmp.Or(r.tokenFile, n.env.deployed.tokenFile), CAFile: n.env.pki.caFile,
	})
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
		Source: source, Thresholds: ts, Interval: 500 * time.Millisecond, Metrics: r.metrics,
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

// assertEventSays waits for an event with reason on object whose message
// contains says.
func assertEventSays(ctx context.Context, t *testing.T, client kubernetes.Interface, reason, object, says string) {
	t.Helper()
	var got []string
	for ctx.Err() == nil {
		got = nil
		list, err := client.CoreV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: "reason=" + reason + ",involvedObject.name=" + object})
		if err == nil {
			for _, e := range list.Items {
				if strings.Contains(e.Message, says) {
					return
				}
				got = append(got, e.Message)
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("no %s event on %s saying %q; got %q", reason, object, says, got)
}

// counterValue is the value of the counter name with the one label value
// in reg, 0 when absent.
func counterValue(t *testing.T, reg *prometheus.Registry, name, label string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) == 1 && m.GetLabel()[0].GetValue() == label {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// recordingProxy stands between a program and kube-apiserver and records
// every request's method and path; it passes the program's own credentials
// on (it serves TLS, so that client-go sends them).
type recordingProxy struct {
	srv *httptest.Server
	mu  sync.Mutex
	log []string
}

func newRecordingProxy(t *testing.T, cp *framework.ControlPlane) *recordingProxy {
	t.Helper()
	rp := reverseProxy(t, cp, "")
	p := &recordingProxy{}
	p.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.log = append(p.log, r.Method+" "+r.URL.Path)
		p.mu.Unlock()
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		p.srv.CloseClientConnections() // the program's watches
		p.srv.Close()
	})
	return p
}

// kubeconfig writes a kubeconfig that reaches the API server through the
// proxy with token.
func (p *recordingProxy) kubeconfig(t *testing.T, cp *framework.ControlPlane, token string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["recorded"] = &clientcmdapi.Cluster{Server: p.srv.URL,
		CertificateAuthorityData: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw})}
	cfg.AuthInfos["evictor"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["recorded"] = &clientcmdapi.Context{Cluster: "recorded", AuthInfo: "evictor"}
	cfg.CurrentContext = "recorded"
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// requests returns the requests so far, as "METHOD /path".
func (p *recordingProxy) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.log)
}
