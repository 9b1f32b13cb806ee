package scale

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/evictkit/eviction/controllers/e2e/framework"
)

// The node lifecycle settings both kube-controller-manager and ours run
// with: kcm's defaults but for the eviction rates, which the defaults make
// hours long at this size (0.1 node per second).
const (
	monitorPeriod = 2 * time.Second
	gracePeriod   = 40 * time.Second
	evictionRate  = 20 // nodes per second in a healthy zone
)

var lifecycleFlags = []string{
	"--node-monitor-period=" + monitorPeriod.String(),
	"--node-monitor-grace-period=" + gracePeriod.String(),
	"--node-startup-grace-period=60s",
	"--node-eviction-rate=" + strconv.Itoa(evictionRate),
	"--secondary-node-eviction-rate=2",
	"--large-cluster-size-threshold=50",
	"--unhealthy-zone-threshold=0.55",
}

// clientFlags are the API client limits of both: kcm's defaults (20 and
// 30) would make the controllers, not the decisions, the bottleneck.
var clientFlags = []string{"--kube-api-qps=" + strconv.Itoa(apiQPS), "--kube-api-burst=200"}

// apiQPS is the controllers' --kube-api-qps.
const apiQPS = 100

// Variant says whose controllers a run starts.
type Variant string

// The variants a scenario runs with: kube-controller-manager's
// controllers, ours in one process (evictkit-controller-manager, one watch
// and cache of pods and nodes, as kcm), and ours as two programs.
const (
	KCM       Variant = "kcm"
	Ours      Variant = "ours"
	OursSplit Variant = "ours-split"
)

// variants are the known variants, in the order they are described.
var variants = []Variant{KCM, Ours, OursSplit}

// Result is what one run of one scenario measured.
type Result struct {
	Scenario string
	Variant  Variant
	Shape    Shape
	// Evicted and Expected count pods: evicted by the controllers, and as
	// the scenario predicts from its inputs (-1: it predicts none).
	Evicted, Expected int
	// EvictedPods names them, sorted.
	EvictedPods []string
	// NodeTaints lists, per node, the NoExecute taints added (+key) and
	// removed (-key) in the order seen.
	NodeTaints map[string][]string
	// LastEviction is the time from the scenario's start (the first
	// silenced or tainted node) to the last eviction seen.
	LastEviction time.Duration
	// Timeline is each eviction's time from the start, in seconds, sorted.
	Timeline []float64
	// Requests are the controllers' API requests from the start to the end
	// of the scenario, by verb and resource; AllRequests from their start.
	Requests, AllRequests Requests
	// CPU is the controllers' CPU time over the scenario; AllCPU over their
	// whole life (start, cache sync of the cluster, scenario).
	CPU, AllCPU time.Duration
	// PeakRSS is the controllers' peak resident memory (summed over our two
	// programs), in bytes.
	PeakRSS int64
	// Watcher is, with -watcher, the usage over the scenario (CPU) and
	// whole life (peak RSS) of a program beside the controllers that only
	// watches what they watch: the floor any implementation of them pays.
	Watcher *framework.Usage `json:",omitempty"`
	// APILatency is kube-apiserver's latency over the scenario.
	APILatency Latency
	// Setup is how long building the cluster took (nodes and pods created
	// and Ready, then the controllers started and settled).
	Setup time.Duration
	// Problems are what the run's own checks found: a wrong eviction, an
	// eviction earlier than its toleration allows, a bound passed.
	Problems []string
}

// runner runs one scenario with one variant on a fresh control plane.
type runner struct {
	t      testing.TB
	shape  Shape
	cp     *framework.ControlPlane
	client kubernetes.Interface
	obs    *observer
	start  time.Time
	nodes  []string // every node's name
	opts   options
	// pprofAddr is where ours serves its profiles, with opts.profile set.
	pprofAddr string
}

// options are what a run measures beyond its figures, and how it runs the
// controllers.
type options struct {
	// profile is the folder for ours' CPU and heap profiles; empty means
	// none.
	profile string
	// env are NAME=VALUE pairs added to every controller program's
	// environment (and the watcher's).
	env []string
	// watcher runs, beside the controllers, a program that only watches
	// what they watch.
	watcher bool
}

// parseEnv reads -env's comma-separated NAME=VALUE pairs.
func parseEnv(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	env := strings.Split(s, ",")
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, fmt.Errorf("scale: -env %q: %q is not NAME=VALUE", s, kv)
		}
	}
	return env, nil
}

// run builds the cluster, starts the variant's controllers, runs sc and
// measures it.
//
// With profile set, ours serves Go's profiles, and the CPU profile of the
// scenario (in 10-second pieces, which go tool pprof merges) and the heap
// profile at its end are written to that folder.
func run(ctx context.Context, t testing.TB, shape Shape, sc scenario, v Variant, opts options) Result {
	t.Helper()
	res := Result{Scenario: sc.name, Variant: v, Shape: shape}
	auditDir := t.TempDir()
	policy := filepath.Join(auditDir, "policy.yaml")
	auditLog := filepath.Join(auditDir, "audit.log")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	cp := framework.Start(t, framework.Options{
		Users:         []string{controllersUser, "kwok", watcherUser},
		APIServerArgs: auditArgs(policy, auditLog),
	})
	cfg := rest.CopyConfig(cp.Config)
	cfg.QPS, cfg.Burst = 2000, 4000
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	r := &runner{t: t, shape: shape, cp: cp, client: client, opts: opts}
	for i := range shape.Nodes {
		r.nodes = append(r.nodes, shape.nodeName(i))
	}
	if r.obs, err = observe(ctx, client); err != nil {
		t.Fatal(err)
	}
	kwokConfig, err := cp.KubeconfigOf("kwok")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := startKwok(cp, kwokConfig); err != nil {
		t.Fatal(err)
	}
	// The cluster is built before the controllers start: creating tens of
	// thousands of pods keeps kube-apiserver and kwok so busy on a small
	// machine that kwok renews some Leases late (at 3,000 nodes on 2 cores,
	// past the grace period), and controllers already running would rightly
	// mark those nodes Unknown and their pods not Ready, which kwok never
	// undoes. The controllers then start on a settled cluster, as after a
	// restart, and are given time to fill their caches.
	setup := time.Now()
	if err := shape.create(ctx, client, 32); err != nil {
		t.Fatal(err)
	}
	r.await(setupBound(shape), "every node and pod Ready", func() (bool, string) {
		nodes, pods := r.obs.counts()
		return nodes == shape.Nodes && pods == shape.Nodes*shape.PodsPerNode,
			fmt.Sprintf("%d of %d nodes and %d of %d pods Ready", nodes, shape.Nodes, pods, shape.Nodes*shape.PodsPerNode)
	})
	controllers := r.startControllers(v)
	var watcher []*framework.Process
	if opts.watcher {
		watcher = r.startWatcher()
	}
	time.Sleep(startSettle(shape))
	nodes, pods := r.obs.counts()
	tainted := r.obs.tainted(r.nodes, v1.TaintNodeNotReady, v1.TaintNodeUnreachable)
	if nodes != shape.Nodes || pods != shape.Nodes*shape.PodsPerNode || tainted != 0 {
		t.Fatalf("scale: the cluster did not stay settled while the controllers started: %d of %d nodes and %d of %d pods Ready, %d nodes tainted NoExecute",
			nodes, shape.Nodes, pods, shape.Nodes*shape.PodsPerNode, tainted)
	}
	res.Setup = time.Since(setup)

	before := usageOf(t, controllers)
	watcherBefore := usageOf(t, watcher)
	lat0, err := scrapeLatency(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	affected := sc.affected(shape)
	var expected map[string]bool
	if sc.expect != nil {
		expected = sc.expect(shape, affected)
	}
	r.start = time.Now()
	stopProfiling := r.profileCPU(ctx, sc.name+"-"+string(v))
	if err := sc.act(ctx, r, affected); err != nil {
		t.Fatal(err)
	}
	if !r.awaitSoft(sc.bound(shape), sc.name+" to end", func() (bool, string) {
		return sc.done(r, affected, len(expected))
	}) {
		res.Problems = append(res.Problems, fmt.Sprintf("the scenario did not end within %v", sc.bound(shape)))
	}
	time.Sleep(sc.settle)
	stopProfiling()
	after := usageOf(t, controllers)
	if watcher != nil {
		u := usageOf(t, watcher)
		res.Watcher = &framework.Usage{CPU: u.CPU - watcherBefore.CPU, PeakRSS: u.PeakRSS}
	}
	lat1, err := scrapeLatency(ctx, client)
	if err != nil {
		t.Fatal(err)
	}
	res.APILatency = lat1.since(lat0)
	res.CPU = after.CPU - before.CPU
	res.AllCPU, res.PeakRSS = after.CPU, after.PeakRSS
	time.Sleep(2 * time.Second) // the audit log's batches flush every second
	if res.Requests, err = readAudit(auditLog, controllersUser, r.start); err != nil {
		t.Fatal(err)
	}
	if res.AllRequests, err = readAudit(auditLog, controllersUser, time.Time{}); err != nil {
		t.Fatal(err)
	}

	evictions := r.obs.evictedSince(r.start)
	res.Expected = len(expected)
	if sc.expect == nil {
		res.Expected = -1
	}
	res.Evicted = len(evictions)
	for _, e := range evictions {
		res.EvictedPods = append(res.EvictedPods, e.Pod)
		at := e.At.Sub(r.start)
		res.Timeline = append(res.Timeline, at.Seconds())
		res.LastEviction = max(res.LastEviction, at)
	}
	slices.Sort(res.EvictedPods)
	changes := r.obs.changesSince(r.start)
	res.NodeTaints = map[string][]string{}
	for _, c := range changes {
		sign := "-"
		if c.Added {
			sign = "+"
		}
		res.NodeTaints[c.Node] = append(res.NodeTaints[c.Node], sign+c.Key)
	}
	if sc.expect != nil {
		res.Problems = append(res.Problems, wrongEvictions(res.EvictedPods, expected)...)
	}
	res.Problems = append(res.Problems, earlyEvictions(evictions, changes)...)
	if sc.check != nil {
		res.Problems = append(res.Problems, sc.check(r, affected, changes)...)
	}
	return res
}

// setupBound bounds the wait for a new cluster to be Ready.
func setupBound(s Shape) time.Duration {
	return 5*time.Minute + time.Duration(s.Nodes*s.PodsPerNode)*20*time.Millisecond
}

// startSettle is how long the controllers are given to list the cluster and
// fill their caches before a scenario acts.
func startSettle(s Shape) time.Duration {
	return 30*time.Second + time.Duration(s.Nodes*s.PodsPerNode)*time.Millisecond
}

// startControllers starts kube-controller-manager's two controllers or our
// two programs, as the controllers' user.
func (r *runner) startControllers(v Variant) []*framework.Process {
	t := r.t
	kubeconfig, err := r.cp.KubeconfigOf(controllersUser)
	if err != nil {
		t.Fatal(err)
	}
	common := append([]string{"--kubeconfig=" + kubeconfig, "--leader-elect=false"}, clientFlags...)
	switch v {
	case KCM:
		bin, err := framework.Build()
		if err != nil {
			t.Fatal(err)
		}
		args := append(slices.Clone(common), "--controllers=node-lifecycle-controller,taint-eviction-controller", "--secure-port=0")
		p, err := r.runWithEnv("kcm-controllers", bin.ControllerManager, append(args, lifecycleFlags...)...)
		if err != nil {
			t.Fatal(err)
		}
		return []*framework.Process{p}
	case Ours:
		bin, err := framework.BuildProgram("../..", "./cmd/evictkit-controller-manager", "evictkit-controller-manager")
		if err != nil {
			t.Fatal(err)
		}
		args := append(slices.Clone(common), "--controllers=node-lifecycle-controller,taint-eviction-controller")
		args = append(args, r.endpointFlags()...)
		p, err := r.runWithEnv("evictkit-controller-manager", bin, append(args, lifecycleFlags...)...)
		if err != nil {
			t.Fatal(err)
		}
		return []*framework.Process{p}
	case OursSplit:
		var out []*framework.Process
		for _, program := range []string{"node-lifecycle-controller", "taint-eviction-controller"} {
			bin, err := framework.BuildProgram("../..", "./cmd/"+program, program)
			if err != nil {
				t.Fatal(err)
			}
			args := append(slices.Clone(common), "--metrics-bind-address=0")
			if program == "node-lifecycle-controller" {
				args = append(args, lifecycleFlags...)
			}
			p, err := r.runWithEnv(program, bin, args...)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		return out
	}
	t.Fatalf("scale: unknown variant %q", v)
	return nil
}

// watcherUser is the watcher's user, so that its requests are not counted
// as the controllers'.
const watcherUser = "scale-watcher"

// startWatcher starts the watcher (package watcher beside this one), with
// -env's variables as the controllers.
func (r *runner) startWatcher() []*framework.Process {
	kubeconfig, err := r.cp.KubeconfigOf(watcherUser)
	if err != nil {
		r.t.Fatal(err)
	}
	bin, err := framework.BuildProgram("../..", "./e2e/scale/watcher", "scale-watcher")
	if err != nil {
		r.t.Fatal(err)
	}
	p, err := r.runWithEnv("scale-watcher", bin, "--kubeconfig="+kubeconfig)
	if err != nil {
		r.t.Fatal(err)
	}
	return []*framework.Process{p}
}

// runWithEnv runs a controller program as the control plane's Run does, with
// -env's variables added to its environment: env(1) sets them and execs the
// program in its own process, so its pid, CPU and RSS are the program's.
func (r *runner) runWithEnv(name, path string, args ...string) (*framework.Process, error) {
	if len(r.opts.env) == 0 {
		return r.cp.Run(name, path, args...)
	}
	return r.cp.Run(name, "/usr/bin/env", append(append(slices.Clone(r.opts.env), path), args...)...)
}

// usageOf sums the usage of ps (their peak RSS too: they run side by side).
func usageOf(t testing.TB, ps []*framework.Process) framework.Usage {
	t.Helper()
	var sum framework.Usage
	for _, p := range ps {
		u, err := p.Usage()
		if err != nil {
			t.Fatal(err)
		}
		sum.CPU += u.CPU
		sum.PeakRSS += u.PeakRSS
	}
	return sum
}

// await polls cond every 250 ms until it holds, failing the test after
// bound with cond's last description.
func (r *runner) await(bound time.Duration, what string, cond func() (bool, string)) {
	r.t.Helper()
	if !r.awaitSoft(bound, what, cond) {
		r.t.Fatalf("scale: waited %v for %s", bound, what)
	}
}

// awaitSoft is await that reports failure instead of failing the test.
func (r *runner) awaitSoft(bound time.Duration, what string, cond func() (bool, string)) bool {
	r.t.Helper()
	deadline := time.Now().Add(bound)
	for {
		ok, desc := cond()
		if ok {
			return true
		}
		if time.Now().After(deadline) {
			r.t.Logf("scale: waited %v for %s: %s", bound, what, desc)
			return false
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// renewLeases renews the node Lease of each of nodes once, now, and returns
// the resourceVersion each renewal left.
func (r *runner) renewLeases(ctx context.Context, nodes []string) (map[string]string, error) {
	leases := r.client.CoordinationV1().Leases(v1.NamespaceNodeLease)
	var mu sync.Mutex
	written := make(map[string]string, len(nodes))
	err := parallel(64, len(nodes), func(i int) error {
		l, err := leases.Get(ctx, nodes[i], metav1.GetOptions{})
		if err == nil {
			l.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
			l, err = leases.Update(ctx, l, metav1.UpdateOptions{})
		}
		if err != nil {
			return fmt.Errorf("scale: renewing the Lease of node %s: %w", nodes[i], err)
		}
		mu.Lock()
		written[nodes[i]] = l.ResourceVersion
		mu.Unlock()
		return nil
	})
	return written, err
}

// silence stops the heartbeats of nodes and makes sure kwok stopped: each
// node's Lease is renewed once more by the run itself, and a node whose Lease
// moves on after that, a renewal interval later, is one kwok still keeps
// alive (kwok v0.8.0 sometimes misses a node leaving its label selector: at
// 1,000 nodes it renewed 21 silenced nodes to the end of a run). Those are
// silenced again, up to a few times.
func (r *runner) silence(ctx context.Context, nodes []string) error {
	if err := r.setHeartbeat(ctx, nodes, false); err != nil {
		return err
	}
	for round := 1; ; round++ {
		// kwok's last renewals, even a late one, are then behind us, and
		// no Lease expired yet (renewal interval < grace period).
		if err := sleep(ctx, renewInterval); err != nil {
			return err
		}
		written, err := r.renewLeases(ctx, nodes)
		if err != nil {
			return err
		}
		if err := sleep(ctx, renewInterval+renewInterval/2); err != nil {
			return err
		}
		list, err := r.client.CoordinationV1().Leases(v1.NamespaceNodeLease).List(ctx, metav1.ListOptions{})
		if err != nil {
			return fmt.Errorf("scale: listing node Leases: %w", err)
		}
		var alive []string
		for _, l := range list.Items {
			if rv, ok := written[l.Name]; ok && l.ResourceVersion != rv {
				alive = append(alive, l.Name)
			}
		}
		if len(alive) == 0 {
			return nil
		}
		slices.Sort(alive)
		r.t.Logf("scale: kwok still renews %d silenced nodes (%s): silencing them again", len(alive), head(alive))
		if round == 5 {
			return fmt.Errorf("scale: kwok still renews %d silenced nodes after %d tries: %s", len(alive), round, head(alive))
		}
		if err := r.setHeartbeat(ctx, alive, true); err != nil {
			return err
		}
		if err := r.setHeartbeat(ctx, alive, false); err != nil {
			return err
		}
		nodes = alive
	}
}

// setHeartbeat silences nodes (on=false) or brings them back (on=true).
func (r *runner) setHeartbeat(ctx context.Context, nodes []string, on bool) error {
	value := "off"
	if on {
		value = "on"
	}
	patch := []byte(fmt.Sprintf(`{"metadata":{"labels":{%q:%q}}}`, heartbeatLabel, value))
	return parallel(32, len(nodes), func(i int) error {
		_, err := r.client.CoreV1().Nodes().Patch(ctx, nodes[i], types.StrategicMergePatchType, patch, metav1.PatchOptions{})
		if err != nil {
			return fmt.Errorf("scale: node %s heartbeat %s: %w", nodes[i], value, err)
		}
		return nil
	})
}

// wrongEvictions lists the pods evicted that should not have been and the
// pods expected that were not.
func wrongEvictions(evicted []string, expected map[string]bool) []string {
	var extra, missing []string
	seen := map[string]bool{}
	for _, p := range evicted {
		seen[p] = true
		if !expected[p] {
			extra = append(extra, p)
		}
	}
	for p := range expected {
		if !seen[p] {
			missing = append(missing, p)
		}
	}
	slices.Sort(missing)
	var out []string
	if len(extra) > 0 {
		out = append(out, fmt.Sprintf("%d pods evicted that the scenario keeps: %s", len(extra), head(extra)))
	}
	if len(missing) > 0 {
		out = append(out, fmt.Sprintf("%d pods not evicted that the scenario evicts: %s", len(missing), head(missing)))
	}
	return out
}

// earlyEvictions lists evictions of tolerating pods that came before their
// node's unreachable or not-ready taint was added plus the pod's
// tolerationSeconds. The
// taint's timeAdded is cut to the second, so it is at most the real time;
// the check allows that second.
func earlyEvictions(evictions []eviction, changes []taintChange) []string {
	addedAt := map[string]time.Time{} // node → earliest taint timeAdded seen
	for _, c := range changes {
		lifecycle := c.Key == v1.TaintNodeUnreachable || c.Key == v1.TaintNodeNotReady
		if c.Added && lifecycle && !c.TimeAdded.IsZero() {
			if t, ok := addedAt[c.Node]; !ok || c.TimeAdded.Before(t) {
				addedAt[c.Node] = c.TimeAdded
			}
		}
	}
	var early []string
	for _, e := range evictions {
		var node, j int
		if _, err := fmt.Sscanf(e.Pod, "p-%05d-%02d", &node, &j); err != nil {
			continue
		}
		tol, ok := roleOf(j).tolerationOf()
		taintedAt, tainted := addedAt[e.Node]
		if !ok || !tainted {
			continue
		}
		if e.At.Before(taintedAt.Add(tol - time.Second)) {
			early = append(early, fmt.Sprintf("%s at %s, taint added %s, tolerates %v", e.Pod, e.At.Format("15:04:05.000"), taintedAt.Format("15:04:05"), tol))
		}
	}
	if len(early) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%d pods evicted before their tolerationSeconds ran out: %s", len(early), head(early))}
}

// head returns the first few of items, joined.
func head(items []string) string {
	const n = 5
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

// endpointFlags are our program's metrics flags: no endpoint, or with
// r.opts.profile one on a free local port that serves Go's profiles.
func (r *runner) endpointFlags() []string {
	if r.opts.profile == "" {
		return []string{"--metrics-bind-address=0"}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		r.t.Fatal(err)
	}
	r.pprofAddr = l.Addr().String()
	if err := l.Close(); err != nil {
		r.t.Fatal(err)
	}
	return []string{"--metrics-bind-address=" + r.pprofAddr, "--profiling"}
}

// profileCPU fetches CPU profiles of ours, 10 seconds each, into
// r.opts.profile as NAME-cpu-N.pb.gz until the returned function is called,
// which then writes NAME-heap.pb.gz. Without a pprof address it does
// nothing. A fetch that fails is logged, not fatal: profiles are a help,
// not the measurement.
func (r *runner) profileCPU(ctx context.Context, name string) (stop func()) {
	if r.pprofAddr == "" {
		return func() {}
	}
	fetch := func(ctx context.Context, path, file string) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+r.pprofAddr+path, nil)
		if err == nil {
			var resp *http.Response
			if resp, err = http.DefaultClient.Do(req); err == nil {
				var body []byte
				body, err = io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if err == nil && resp.StatusCode != http.StatusOK {
					err = fmt.Errorf("%s: %s", path, resp.Status)
				}
				if err == nil {
					err = os.WriteFile(filepath.Join(r.opts.profile, file), body, 0o644)
				}
			}
		}
		if err != nil && ctx.Err() == nil {
			r.t.Logf("profile %s: %v", file, err)
		}
	}
	if err := os.MkdirAll(r.opts.profile, 0o755); err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ctx.Err() == nil; i++ {
			fetch(ctx, "/debug/pprof/profile?seconds=10", fmt.Sprintf("%s-cpu-%03d.pb.gz", name, i))
		}
	}()
	return func() {
		cancel()
		<-done
		fetch(context.Background(), "/debug/pprof/heap", name+"-heap.pb.gz")
	}
}
