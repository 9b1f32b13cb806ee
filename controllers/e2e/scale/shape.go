package scale

import (
	"context"
	"fmt"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Shape is the cluster a run builds: Nodes nodes spread round-robin over
// Zones zones, each with PodsPerNode pods bound to it.
type Shape struct {
	Nodes, PodsPerNode, Zones int
}

// namespace holds every pod of a run.
const namespace = "scale"

// The tolerations of unreachable and not-ready a pod has, by its role.
// Pods cycle through ten roles on every node: one tolerates every taint
// (as a DaemonSet's pods do), six tolerate a silent node for shortTolerance,
// two for longTolerance, one for ever.
const (
	shortTolerance = 5 * time.Second
	longTolerance  = 60 * time.Second
)

// role is a pod's part on its node.
type role int

const (
	tolerateAll role = iota
	tolerateShort
	tolerateLong
	tolerateForever
)

func roleOf(podIndex int) role {
	switch i := podIndex % 10; {
	case i == 0:
		return tolerateAll
	case i <= 6:
		return tolerateShort
	case i <= 8:
		return tolerateLong
	default:
		return tolerateForever
	}
}

// tolerationOf returns how long a pod of role r stays on a silent node
// (unreachable or not ready) once the node is tainted; ok is false if it
// stays for ever.
func (r role) tolerationOf() (d time.Duration, ok bool) {
	switch r {
	case tolerateShort:
		return shortTolerance, true
	case tolerateLong:
		return longTolerance, true
	}
	return 0, false
}

// evictedByUserTaint reports whether a pod of role r leaves a node that a
// user tainted with a NoExecute taint no pod names.
func (r role) evictedByUserTaint() bool { return r != tolerateAll }

// shortPerNode is how many pods of a node tolerate a silent node only
// shortly.
func (s Shape) shortPerNode() int {
	n := 0
	for j := range s.PodsPerNode {
		if roleOf(j) == tolerateShort {
			n++
		}
	}
	return n
}

func (s Shape) nodeName(i int) string { return fmt.Sprintf("n-%05d", i) }
func (s Shape) zoneOf(i int) string   { return fmt.Sprintf("zone-%d", i%s.Zones) }
func (s Shape) podName(node, j int) string {
	return fmt.Sprintf("p-%05d-%02d", node, j)
}

func (s Shape) node(i int) *v1.Node {
	name := s.nodeName(i)
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
			heartbeatLabel:           "on",
			zoneLabel:                s.zoneOf(i),
			regionLabel:              "region-0",
			"kubernetes.io/hostname": name,
			"type":                   "kwok",
		}},
		Spec: v1.NodeSpec{ProviderID: "kwok://" + name},
	}
}

func (s Shape) pod(node, j int) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: s.podName(node, j), Namespace: namespace},
		Spec: v1.PodSpec{
			NodeName:   s.nodeName(node),
			Containers: []v1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
	r := roleOf(j)
	if r == tolerateAll {
		p.Spec.Tolerations = []v1.Toleration{{Operator: v1.TolerationOpExists}}
		return p
	}
	var seconds *int64
	if d, ok := r.tolerationOf(); ok {
		s := int64(d / time.Second)
		seconds = &s
	}
	for _, key := range []string{v1.TaintNodeUnreachable, v1.TaintNodeNotReady} {
		p.Spec.Tolerations = append(p.Spec.Tolerations, v1.Toleration{
			Key: key, Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoExecute, TolerationSeconds: seconds,
		})
	}
	return p
}

// create makes the shape's namespace, nodes and pods with workers parallel
// requests.
func (s Shape) create(ctx context.Context, c kubernetes.Interface, workers int) error {
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}
	if _, err := c.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("scale: namespace %s: %w", namespace, err)
	}
	if err := parallel(workers, s.Nodes, func(i int) error {
		_, err := c.CoreV1().Nodes().Create(ctx, s.node(i), metav1.CreateOptions{})
		if err != nil {
			return fmt.Errorf("scale: node %s: %w", s.nodeName(i), err)
		}
		return nil
	}); err != nil {
		return err
	}
	return parallel(workers, s.Nodes*s.PodsPerNode, func(k int) error {
		p := s.pod(k/s.PodsPerNode, k%s.PodsPerNode)
		if _, err := c.CoreV1().Pods(namespace).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("scale: pod %s/%s: %w", namespace, p.Name, err)
		}
		return nil
	})
}

// parallel calls f(0) … f(n-1) on workers goroutines and returns the first
// error; after an error no new call starts.
func parallel(workers, n int, f func(i int) error) error {
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	for range min(workers, n) {
		wg.Go(func() {
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil || i >= n
				mu.Unlock()
				if stop {
					return
				}
				if err := f(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return first
}
