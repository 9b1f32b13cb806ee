package e2e

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/evictkit/eviction/controllers/e2e/framework"
)

// A write kind is one of the writes our controllers make, as the fault
// proxy recognises it.
const (
	writeDisruptionPatch = "pod status patch (DisruptionTarget)"
	writePodDelete       = "pod delete (UID precondition)"
	writeNodeStatus      = "node status update"
	writeNodeTaints      = "node update (taints)"
	writePodNotReady     = "pod status update (not ready)"
	writeEviction        = "pod eviction"
)

// faultPlan is the answers the proxy gives, in order, to the first writes of
// each kind instead of passing them on: kube-apiserver's internal error and
// unavailability, and for deletes also a conflict first. A lost answer
// (answerLost) passes the write on and answers 500 once it is done, as when
// the connection fails after the server wrote.
var faultPlan = map[string][]int{
	writeDisruptionPatch: {http.StatusInternalServerError, http.StatusServiceUnavailable},
	writePodDelete:       {http.StatusConflict, http.StatusInternalServerError, http.StatusServiceUnavailable},
	// answerLost: the status written, the monitor reads the node back and
	// finds it Unknown already; it still marks the pods not ready (upstream's
	// monitorNodeHealth sees no transition there and never marks them).
	writeNodeStatus:  {http.StatusInternalServerError, answerLost},
	writeNodeTaints:  {http.StatusServiceUnavailable, http.StatusInternalServerError, answerLost},
	writePodNotReady: {http.StatusInternalServerError, http.StatusServiceUnavailable},
}

// answerLost in a fault plan passes the write on, then answers 500; any
// negative status -N passes it on, then answers N.
const answerLost = -http.StatusInternalServerError

// faultProxy stands between our controllers and kube-apiserver: it passes
// every request on (watches streamed) but answers the first writes of each
// kind with the faults of faultPlan, and counts them.
type faultProxy struct {
	srv        *httptest.Server
	kubeconfig string
	prefix     string // only writes to objects named with it are faulted
	plan       map[string][]int

	mu       sync.Mutex
	injected map[string][]int // by write kind, the statuses answered
	passed   map[string]int   // by write kind, the writes passed on
	// refusing holds the pods ("namespace/name") whose every delete is
	// answered 503 (see refuseDeletes), ahead of the plan; refused and
	// deletes count, by pod, the deletes refused and all deletes seen.
	refusing map[string]bool
	refused  map[string]int
	deletes  map[string]int
}

// refuseDeletes makes the proxy answer 503 to every delete of the pod
// ns/name until allowDeletes, as an API server that cannot delete it.
func (p *faultProxy) refuseDeletes(ns, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.refusing == nil {
		p.refusing, p.refused, p.deletes = map[string]bool{}, map[string]int{}, map[string]int{}
	}
	p.refusing[ns+"/"+name] = true
}

// allowDeletes ends refuseDeletes for ns/name: its deletes go the usual
// way (the fault plan, then kube-apiserver).
func (p *faultProxy) allowDeletes(ns, name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.refusing, ns+"/"+name)
}

// podDeletes returns how many deletes of ns/name the proxy refused, and
// how many it saw in all.
func (p *faultProxy) podDeletes(ns, name string) (refused, seen int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.refused[ns+"/"+name], p.deletes[ns+"/"+name]
}

var (
	podPath  = regexp.MustCompile(`^/api/v1/namespaces/([^/]+)/pods/([^/]+)(/status)?$`)
	nodePath = regexp.MustCompile(`^/api/v1/nodes/([^/]+)(/status)?$`)
	evicPath = regexp.MustCompile(`^/api/v1/namespaces/([^/]+)/pods/([^/]+)/eviction$`)
	uid      = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
)

// kind returns the write kind of a request to the test's objects (in a
// namespace or on a node whose name starts with prefix), "" for any other
// request.
func (p *faultProxy) kind(r *http.Request, body []byte) string {
	if m := podPath.FindStringSubmatch(r.URL.Path); m != nil && strings.HasPrefix(m[1], p.prefix) {
		switch {
		case r.Method == http.MethodPatch && m[3] != "" && bytes.Contains(body, []byte(string(v1.DisruptionTarget))):
			return writeDisruptionPatch
		case r.Method == http.MethodDelete && m[3] == "" && uid.Match(body):
			// The body is DeleteOptions, JSON or protobuf: the pod's UID
			// in it is the precondition.
			return writePodDelete
		case r.Method == http.MethodPut && m[3] != "":
			return writePodNotReady
		}
	}
	if m := evicPath.FindStringSubmatch(r.URL.Path); m != nil && strings.HasPrefix(m[1], p.prefix) && r.Method == http.MethodPost {
		return writeEviction
	}
	if m := nodePath.FindStringSubmatch(r.URL.Path); m != nil && strings.HasPrefix(m[1], p.prefix) {
		switch {
		case r.Method == http.MethodPut && m[2] != "":
			return writeNodeStatus
		case r.Method == http.MethodPut || r.Method == http.MethodPatch:
			return writeNodeTaints
		}
	}
	return ""
}

func (p *faultProxy) ServeHTTP(w http.ResponseWriter, r *http.Request, next http.Handler) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	kind := p.kind(r, body)
	if kind == "" {
		next.ServeHTTP(w, r)
		return
	}
	p.mu.Lock()
	n := len(p.injected[kind])
	plan := p.plan[kind]
	code := 0
	if kind == writePodDelete && p.deletes != nil {
		m := podPath.FindStringSubmatch(r.URL.Path)
		pod := m[1] + "/" + m[2]
		p.deletes[pod]++
		if p.refusing[pod] {
			p.refused[pod]++
			code = http.StatusServiceUnavailable
		}
	}
	switch {
	case code != 0: // refused: neither an answer of the plan nor a write passed on
	case n < len(plan):
		code = plan[n]
		p.injected[kind] = append(p.injected[kind], code)
	default:
		p.passed[kind]++
	}
	p.mu.Unlock()
	if code == 0 {
		next.ServeHTTP(w, r)
		return
	}
	if code < 0 {
		next.ServeHTTP(httptest.NewRecorder(), r)
		code = -code
	}
	reason := map[int]metav1.StatusReason{
		http.StatusConflict:            metav1.StatusReasonConflict,
		http.StatusInternalServerError: metav1.StatusReasonInternalError,
		http.StatusServiceUnavailable:  metav1.StatusReasonServiceUnavailable,
		http.StatusGatewayTimeout:      metav1.StatusReasonTimeout,
	}[code]
	status := metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Code: int32(code), Reason: reason,
		Message: fmt.Sprintf("fault injected by the test into the %s", kind),
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(status)
}

// startFaultProxy starts the proxy in front of the cluster's kube-apiserver
// and writes a kubeconfig that reaches the API server through it.
func startFaultProxy(t *testing.T, c *cluster, prefix string) *faultProxy {
	t.Helper()
	return newFaultProxy(t, c.ControlPlane, prefix, faultPlan)
}

// newFaultProxy starts a proxy with plan in front of cp's kube-apiserver.
func newFaultProxy(t *testing.T, c *framework.ControlPlane, prefix string, plan map[string][]int) *faultProxy {
	t.Helper()
	rp := apiServerProxy(t, c)
	p := &faultProxy{prefix: prefix, plan: plan, injected: map[string][]int{}, passed: map[string]int{}}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { p.ServeHTTP(w, r, rp) }))
	t.Cleanup(func() {
		p.srv.CloseClientConnections() // the controllers' watches
		p.srv.Close()
	})

	p.kubeconfig = proxyKubeconfig(t, c, p.srv.URL, "kubeconfig-faults-"+prefix)
	return p
}

// apiServerProxy returns a reverse proxy to cp's kube-apiserver. It holds the
// credentials (client-go sends no token over plain HTTP to a proxy); watches
// stream through it.
func apiServerProxy(t *testing.T, cp *framework.ControlPlane) *httputil.ReverseProxy {
	t.Helper()
	return reverseProxy(t, cp, cp.Config.BearerToken)
}

// reverseProxy returns a reverse proxy to cp's kube-apiserver that sends
// token as the bearer token, or without a token each request's own
// credentials. Watches stream through it.
func reverseProxy(t *testing.T, cp *framework.ControlPlane, token string) *httputil.ReverseProxy {
	t.Helper()
	target, err := url.Parse(cp.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	ca, err := os.ReadFile(cp.Config.TLSClientConfig.CAFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			if token != "" {
				r.Out.Header.Set("Authorization", "Bearer "+token)
			}
		},
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true},
		FlushInterval: -1,
	}
}

// proxyKubeconfig writes, as file in cp's folder, a kubeconfig that reaches
// the API server through the proxy at server, and returns its path.
func proxyKubeconfig(t *testing.T, cp *framework.ControlPlane, server, file string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["proxy"] = &clientcmdapi.Cluster{Server: server}
	cfg.AuthInfos["through-proxy"] = &clientcmdapi.AuthInfo{}
	cfg.Contexts["proxy"] = &clientcmdapi.Context{Cluster: "proxy", AuthInfo: "through-proxy"}
	cfg.CurrentContext = "proxy"
	path := filepath.Join(cp.Dir, file)
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// report returns the faults injected and the writes passed on, by kind.
func (p *faultProxy) report() (injected map[string][]int, passed map[string]int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	injected = map[string][]int{}
	for k, v := range p.injected {
		injected[k] = slices.Clone(v)
	}
	passed = map[string]int{}
	for k, v := range p.passed {
		passed[k] = v
	}
	return injected, passed
}

// TestServerErrors runs our two controllers behind the fault proxy: the
// first writes of every kind they make are answered 500 or 503 (deletes
// also 409), and still every node is marked Unknown and tainted, every pod
// marked not ready, and every pod due evicted, each exactly once, as the
// API server holds them: one taint of each key, one DisruptionTarget
// condition, one deletion event per pod, the pods that tolerate the taint
// untouched.
func TestServerErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	t.Parallel()
	start := time.Now()
	const prefix = "s4e"
	c := startCluster(t, variant{name: "ours-behind-faults", taintEviction: true, nodeLifecycle: true, faultPrefix: prefix})
	p := c.faults
	t.Logf("control plane and controllers up in %v", time.Since(start).Round(100*time.Millisecond))
	ns := c.namespace(t, prefix)
	for i := range 4 {
		c.createNode(t, prefix+"-"+string(rune('0'+i)), prefix, v1.ConditionTrue, nil)
	}
	unreachable := v1.TaintNodeUnreachable
	c.createPod(t, ns, "zero", prefix+"-1", tolerate(unreachable, ptr(int64(0))))
	c.createPod(t, ns, "two", prefix+"-1", tolerate(unreachable, ptr(int64(2))))
	c.createPod(t, ns, "forever", prefix+"-1", tolerate(unreachable, nil))
	c.createPod(t, ns, "user-taint", prefix+"-2")
	c.createPod(t, ns, "tolerates-user-taint", prefix+"-2", tolerate("example.com/maintenance", nil))
	c.createPod(t, ns, "healthy", prefix+"-0")
	for i := range 4 {
		c.waitNoExecute(t, 20*time.Second, prefix+"-"+string(rune('0'+i)))
	}

	c.setAlive(prefix+"-1", false)
	c.addTaint(t, prefix+"-2", v1.Taint{Key: "example.com/maintenance", Effect: v1.TaintEffectNoExecute})
	c.waitNoExecute(t, 30*time.Second, prefix+"-1", unreachable)
	c.waitEvicted(t, 30*time.Second, ns, "user-taint")
	c.waitEvicted(t, 30*time.Second, ns, "zero")
	c.waitEvicted(t, 30*time.Second, ns, "two")
	c.requirePresent(t, ns, "forever", "tolerates-user-taint", "healthy")

	// The silent node: Unknown, each taint once.
	node, err := c.client.CoreV1().Nodes().Get(c.ctx, prefix+"-1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := readyOf(node); r != v1.ConditionUnknown {
		t.Errorf("node %s Ready = %q, want Unknown", node.Name, r)
	}
	for _, want := range []string{unreachable + ":NoSchedule", unreachable + ":NoExecute"} {
		if n := countOf(taintSet(node), want); n != 1 {
			t.Errorf("node %s: taint %s %d times, want once (taints %v)", node.Name, want, n, taintSet(node))
		}
	}
	// Every pod on it marked not ready, once (one Ready condition).
	for _, name := range []string{"forever", "zero", "two"} {
		_, pod := c.podState(ns, name)
		if pod == nil {
			t.Errorf("pod %s gone, want it kept (terminating or not)", name)
			continue
		}
		var ready []v1.PodCondition
		for _, cond := range pod.Status.Conditions {
			if cond.Type == v1.PodReady {
				ready = append(ready, cond)
			}
		}
		if len(ready) != 1 || ready[0].Status != v1.ConditionFalse {
			t.Errorf("pod %s: Ready conditions %+v, want one, False", name, ready)
		}
	}
	// One deletion event per evicted pod, none for the others.
	eventually(t, 30*time.Second, "one deletion event per evicted pod", func() (bool, string) {
		marked, err := c.markedForDeletion(ns)
		if err != nil {
			return false, err.Error()
		}
		for name, n := range marked {
			if n > 1 || !slices.Contains([]string{"user-taint", "zero", "two"}, name) {
				t.Fatalf("deletion events %v, want one for each of user-taint, zero and two", marked)
			}
		}
		return len(marked) == 3, fmt.Sprint(marked)
	})

	// Our controller counted each deletion once.
	const deletions = "taint_eviction_controller_pod_deletions_total"
	eventually(t, 10*time.Second, "each deletion counted once", func() (bool, string) {
		v := c.ours["taint-eviction-controller-a"].metric(deletions)
		if v > 3 {
			t.Fatalf("%s = %v, want 3", deletions, v)
		}
		return v == 3, fmt.Sprintf("%s = %v", deletions, v)
	})

	// The faults happened: every kind's plan was used up, and the write
	// that followed passed (none needs to follow a lost answer: that write
	// was applied).
	injected, passed := p.report()
	for kind, plan := range faultPlan {
		if !slices.Equal(injected[kind], plan) || (passed[kind] == 0 && plan[len(plan)-1] != answerLost) {
			t.Errorf("%s: answered %v then passed %d, want %v then at least one passed", kind, injected[kind], passed[kind], plan)
		}
	}
	t.Logf("faults injected %v; writes passed on after them %v", injected, passed)
	t.Logf("server errors took %v", time.Since(start).Round(100*time.Millisecond))
}

func countOf(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}
