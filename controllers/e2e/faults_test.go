package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/evictkit/eviction/controllers/internal/command"
)

// TestFaults runs our two controllers through failures: the leader of two
// taint-eviction replicas is killed and the other takes over and evicts;
// kube-apiserver is stopped and started again while nodes are silent and
// evictions are due, and every eviction still happens, once. It runs beside
// TestServerErrors, the other half of the faults.
func TestFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	t.Parallel()
	start := time.Now()
	// kube-apiserver's graceful stop waits up to its request timeout (60 s)
	// for the watches to end, so StopAPIServer would always kill it after
	// 20 s; with 5 s (far above any request here) it exits by itself.
	v := ourBoth
	v.apiServerArgs = []string{"--request-timeout=5s"}
	c := startCluster(t, v)
	a := c.ours["taint-eviction-controller-a"]
	b := c.runOurs(t, "taint-eviction-controller", "b")
	ns := c.namespace(t, "s4")
	for i := range 4 {
		c.createNode(t, "s4-"+string(rune('0'+i)), "s4", v1.ConditionTrue, nil)
	}
	for i := range 4 {
		c.waitNoExecute(t, 20*time.Second, "s4-"+string(rune('0'+i)))
	}

	t.Run("leader killed", func(t *testing.T) {
		eventually(t, 30*time.Second, "a leader among two replicas", func() (bool, string) {
			return a.leading() != b.leading(), "a leading: " + boolString(a.leading()) + ", b leading: " + boolString(b.leading())
		})
		leader, follower := a, b
		if b.leading() {
			leader, follower = b, a
		}
		leader.Kill()
		c.createPod(t, ns, "after-takeover", "s4-1")
		c.addTaint(t, "s4-1", v1.Taint{Key: "example.com/maintenance", Effect: v1.TaintEffectNoExecute})
		c.waitEvicted(t, 30*time.Second, ns, "after-takeover")
		if !follower.leading() {
			t.Errorf("the pod was evicted but the surviving replica never led")
		}
		const deletions = "taint_eviction_controller_pod_deletions_total"
		eventually(t, 10*time.Second, "the new leader counts its deletion", func() (bool, string) {
			v := follower.metric(deletions)
			return v == 1, fmt.Sprintf("%s = %v", deletions, v)
		})
	})

	t.Run("kube-apiserver restarted", func(t *testing.T) {
		unreachable := v1.TaintNodeUnreachable
		c.createPod(t, ns, "two", "s4-2", tolerate(unreachable, ptr(int64(2))))
		c.createPod(t, ns, "eight", "s4-2", tolerate(unreachable, ptr(int64(8))))
		c.createPod(t, ns, "forever", "s4-2", tolerate(unreachable, nil))
		c.setAlive("s4-2", false)
		c.waitNoExecute(t, 30*time.Second, "s4-2", unreachable)
		stop := time.Now()
		c.StopAPIServer()
		restart := time.Now()
		if err := c.StartAPIServer(); err != nil {
			t.Fatal(err)
		}
		t.Logf("kube-apiserver stopped in %v, ready again in %v", restart.Sub(stop).Round(100*time.Millisecond), time.Since(restart).Round(100*time.Millisecond))
		c.waitEvicted(t, 40*time.Second, ns, "two")
		c.waitEvicted(t, 40*time.Second, ns, "eight")
		c.requirePresent(t, ns, "forever")
	})

	// Every pod the test expected gone was marked for deletion once (the
	// events of the outage reach the server when the recorder retries).
	eventually(t, 40*time.Second, "one deletion event per evicted pod", func() (bool, string) {
		marked, err := c.markedForDeletion(ns)
		if err != nil {
			return false, err.Error()
		}
		for _, name := range []string{"two", "eight"} {
			if marked[name] > 1 {
				t.Fatalf("pod %s marked for deletion %d times, want once", name, marked[name])
			}
		}
		return marked["two"] == 1 && marked["eight"] == 1, fmt.Sprint(marked)
	})

	t.Run("lease renewals fail", func(t *testing.T) {
		// Two fresh replicas, each behind a proxy of its own that records
		// its pod writes; the first two are stopped.
		a.Stop(10 * time.Second)
		b.Stop(10 * time.Second)
		hns := c.namespace(t, "s4h")
		c.createNode(t, "s4h-0", "s4h", v1.ConditionTrue, nil)
		c.waitNoExecute(t, 20*time.Second, "s4h-0")
		proxies := map[*replica]*writeProxy{}
		var replicas []*replica
		for _, name := range []string{"c", "d"} {
			p := startWriteProxy(t, c, name, hns)
			saved := c.ourKubeconfig
			c.ourKubeconfig = p.kubeconfig
			r := c.runOurs(t, "taint-eviction-controller", name)
			c.ourKubeconfig = saved
			proxies[r] = p
			replicas = append(replicas, r)
		}
		eventually(t, 30*time.Second, "a leader among two replicas", func() (bool, string) {
			return replicas[0].leading() != replicas[1].leading(), "c leading: " + boolString(replicas[0].leading()) + ", d leading: " + boolString(replicas[1].leading())
		})
		old, next := replicas[0], replicas[1]
		if next.leading() {
			old, next = next, old
		}
		// Work all along: a pod that tolerates nothing every 200 ms on a
		// node tainted NoExecute.
		c.addTaint(t, "s4h-0", v1.Taint{Key: "example.com/maintenance", Effect: v1.TaintEffectNoExecute})
		stopPods := make(chan struct{})
		podsDone := make(chan struct{})
		go func() {
			defer close(podsDone)
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for i := 0; ; i++ {
				select {
				case <-stopPods:
					return
				case <-tick.C:
				}
				pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), Namespace: hns},
					Spec: v1.PodSpec{NodeName: "s4h-0", Containers: []v1.Container{{Name: "c", Image: "registry.k8s.io/pause:3.10"}}}}
				_, _ = c.client.CoreV1().Pods(hns).Create(c.ctx, pod, metav1.CreateOptions{})
			}
		}()
		defer func() {
			select {
			case <-stopPods:
			default:
				close(stopPods)
			}
			<-podsDone
		}()
		eventually(t, 30*time.Second, "the leader deletes pods", func() (bool, string) {
			n := proxies[old].count()
			return n >= 3, fmt.Sprintf("%d pod writes", n)
		})
		// The leader's renewals now fail; its other requests pass.
		proxies[old].failRenewals()
		eventually(t, 40*time.Second, "the other replica takes over and deletes pods", func() (bool, string) {
			n := proxies[next].count()
			return next.leading() && n >= 3, fmt.Sprintf("leading: %s, %d pod writes", boolString(next.leading()), n)
		})
		close(stopPods)
		<-podsDone
		oldWrites, newWrites := proxies[old].applied(), proxies[next].applied()
		if len(oldWrites) == 0 || len(newWrites) == 0 {
			t.Fatalf("writes of the old leader %d, of the new one %d: want both", len(oldWrites), len(newWrites))
		}
		lastOld, firstNew := oldWrites[len(oldWrites)-1], newWrites[0]
		// The old leader's last write was answered before the new leader's
		// first write reached the proxy: applied in that order.
		if !lastOld.end.Before(firstNew.start) {
			t.Errorf("the old leader's last write (%s, answered %s) does not precede the new leader's first (%s, sent %s)",
				lastOld.what, lastOld.end.Format(time.StampMicro), firstNew.what, firstNew.start.Format(time.StampMicro))
		}
		t.Logf("old leader: %d pod writes, the last answered %s; new leader: %d, the first sent %s (%v later)",
			len(oldWrites), lastOld.end.Format(time.StampMicro), len(newWrites), firstNew.start.Format(time.StampMicro), firstNew.start.Sub(lastOld.end).Round(time.Millisecond))
	})
	t.Logf("faults took %v", time.Since(start).Round(100*time.Millisecond))
}

// writeProxy stands between one replica and kube-apiserver: it passes every
// request on, records the pod writes (anything but a read) in namespace ns
// that the server applied (a 2xx answer), with when each reached the proxy
// and when it was answered, and, once failRenewals is called, answers 500 to
// every renewal of the replica's leader Lease (a release still passes, so
// that a replica that released the lease while it still acted would let the
// other in at once).
type writeProxy struct {
	kubeconfig string
	ns         string

	mu      sync.Mutex
	failing bool
	writes  []write
}

type write struct {
	what       string
	start, end time.Time
}

func startWriteProxy(t *testing.T, c *cluster, name, ns string) *writeProxy {
	t.Helper()
	rp := apiServerProxy(t, c.ControlPlane)
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	p := &writeProxy{ns: ns}
	lease := "/apis/coordination.k8s.io/v1/namespaces/" + command.DefaultLeaseNamespace + "/leases/taint-eviction-controller"
	pods := "/api/v1/namespaces/" + ns + "/pods/"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPut && r.URL.Path == lease {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			p.mu.Lock()
			failing := p.failing
			p.mu.Unlock()
			// A renewal names the replica (host_uuid, JSON or protobuf);
			// a release (no holder) passes.
			if failing && bytes.Contains(body, []byte(host+"_")) {
				http.Error(w, "renewal failed by the test", http.StatusInternalServerError)
				return
			}
		}
		if r.Method == http.MethodGet || !strings.HasPrefix(r.URL.Path, pods) {
			rp.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK}
		rp.ServeHTTP(rec, r)
		end := time.Now()
		if rec.code/100 == 2 {
			p.mu.Lock()
			p.writes = append(p.writes, write{what: r.Method + " " + strings.TrimPrefix(r.URL.Path, pods), start: start, end: end})
			p.mu.Unlock()
		}
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
	})
	p.kubeconfig = proxyKubeconfig(t, c.ControlPlane, srv.URL, "kubeconfig-writes-"+name)
	return p
}

func (p *writeProxy) failRenewals() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failing = true
}

func (p *writeProxy) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.writes)
}

// applied returns the writes the server applied, by the time they were
// answered.
func (p *writeProxy) applied() []write {
	p.mu.Lock()
	defer p.mu.Unlock()
	ws := slices.Clone(p.writes)
	slices.SortFunc(ws, func(a, b write) int { return a.end.Compare(b.end) })
	return ws
}

// statusRecorder keeps the status code a handler answered.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

func boolString(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}
