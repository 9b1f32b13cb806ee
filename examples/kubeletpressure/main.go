// Command kubeletpressure is the kubelet's eviction manager
// (upstream pkg/kubelet/eviction, eviction_manager.go synchronize) in
// miniature: every 10 s it hands the node's stats to a nodepressure.Manager,
// which decides the node conditions, whether memory is starved, the ranking
// and the one pod to evict; the scenario carries the decision out. A
// scripted scenario on fixed times prints each cycle: the thresholds met, the
// node conditions, the ranking and which pod is evicted, with what grace
// period and message.
//
// The scenario shows:
//
//   - a soft threshold sets MemoryPressure at once, but evicts only after its
//     grace period, and the pod's grace period is then capped by
//     --eviction-max-pod-grace-period;
//   - a hard threshold evicts at once, with a 1 s grace period;
//   - static and system-critical pods are ranked like any other but never
//     evicted: the kubelet skips them and takes the next pod;
//   - one pod per cycle: a soft threshold that stays met keeps its first
//     observation time, so once its grace period is over it evicts again at
//     the next cycle;
//   - a pod within its requests can be evicted: pods above their requests
//     rank first, but here those are all critical;
//   - after recovery, MemoryPressure stays for the pressure transition period
//     (5 minutes by default) after it was last observed.
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/nodepressure"
	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "kubeletpressure:", err)
		os.Exit(1)
	}
}

// start is the time of the first cycle; the kubelet's monitoring period is
// 10 s.
var start = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

const period = 10 * time.Second

// run plays the scenario and writes the report to w.
func run(out io.Writer) error {
	w := &errWriter{w: out}

	// The kubelet's command line. Flags replace the defaults wholesale, so
	// the default nodefs and imagefs thresholds are gone. --enforce-node-allocatable
	// keeps its default "pods", so the hard memory threshold is copied to
	// allocatableMemory.available, which watches the pods' cgroup; this
	// scenario observes only the node's memory, so that copy never fires.
	flags := thresholds.Flags{
		Hard:            []string{"memory.available<500Mi"},
		Soft:            []string{"memory.available<1536Mi"},
		SoftGracePeriod: []string{"memory.available=30s"},
	}
	const maxPodGrace = 60 // --eviction-max-pod-grace-period
	cfg, err := flags.Apply(thresholds.Config{})
	if err != nil {
		return err
	}
	ts, err := thresholds.ParseConfig(cfg)
	if err != nil {
		return err
	}
	// The kubelet's eviction manager, called once per monitoring period
	// with that cycle's time.
	pm, err := nodepressure.NewManager(nodepressure.Config{Thresholds: ts, MaxPodGracePeriodSeconds: maxPodGrace})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "kubelet --eviction-hard=%s --eviction-soft=%s --eviction-soft-grace-period=%s --eviction-max-pod-grace-period=%d\n",
		flags.Hard[0], flags.Soft[0], flags.SoftGracePeriod[0], maxPodGrace)
	for _, t := range ts {
		fmt.Fprintf(w, "  threshold %-34v grace period %v\n", t, t.GracePeriod)
	}

	n := scenarioNode()
	fmt.Fprintln(w, "pods:")
	for _, p := range n.pods {
		fmt.Fprintf(w, "  %-28s %-10s priority %-10d terminationGracePeriodSeconds %d\n",
			p.Namespace+"/"+p.Name, ranking.QOSClass(p, ranking.Options{}), ranking.Priority(p), *p.Spec.TerminationGracePeriodSeconds)
	}
	fmt.Fprintln(w)

	m := &manager{w: w, node: n, pm: pm, maxGrace: maxPodGrace}
	for now := start; now.Sub(start) <= 7*time.Minute; now = now.Add(period) {
		for _, s := range story {
			if s.at == now.Sub(start) {
				fmt.Fprintf(w, "%s  » %s\n", clock(now), s.text)
			}
		}
		m.synchronize(now)
	}
	return w.err
}

// scenarioNode is an 8Gi node. A batch job slowly fills memory until the
// soft threshold evicts it; later a system service outside any pod takes
// 1800Mi at once, crossing the hard threshold.
func scenarioNode() *node {
	critical := int32(2000001000) // system-node-critical
	normal, low := int32(1000), int32(0)
	etcd := newPod("kube-system", "etcd-node-1", nil, 0, 0, 30)
	etcd.Annotations = map[string]string{ranking.ConfigSourceAnnotationKey: "file"} // a static pod
	pods := []*v1.Pod{
		etcd,
		newPod("kube-system", "kube-proxy-7x2kq", &critical, 50, 0, 30),
		newPod("shop", "db-0", &normal, 2048, 2048, 120),
		newPod("shop", "web-1", &normal, 512, 0, 30),
		newPod("shop", "report-1", &low, 1024, 0, 10),
		newPod("shop", "batch-1", &low, 0, 0, 120),
	}
	return &node{
		capacity: 8192 * mi,
		pods:     pods,
		workingSet: func(name string, t time.Duration) int64 {
			switch name {
			case "system":
				if t >= 70*time.Second && t < 90*time.Second {
					return (1024 + 1800) * mi
				}
				return 1024 * mi
			case "etcd-node-1":
				return 2048 * mi
			case "kube-proxy-7x2kq":
				return 100 * mi
			case "db-0":
				return 1900 * mi
			case "web-1":
				return 400 * mi
			case "report-1":
				return 500 * mi
			case "batch-1": // grows 20Mi a second
				return (200 + 20*int64(t/time.Second)) * mi
			}
			return 0
		},
	}
}

// story says what happens to the node, printed before the cycle at that time.
var story = []struct {
	at   time.Duration
	text string
}{
	{0, "batch-1 starts filling memory, 20Mi a second"},
	{70 * time.Second, "the node's log agent, a systemd service outside any pod, suddenly takes 1800Mi"},
	{90 * time.Second, "systemd restarts the log agent; its memory is free again"},
}

// errWriter remembers the first write error, so that the report code need
// not check every Fprintf.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
