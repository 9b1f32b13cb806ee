package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"

	"github.com/evictkit/eviction/tolerations"
)

// cluster stands in for the API server and the informer caches: the nodes and
// pods the controller reads.
type cluster struct {
	nodes map[string]*v1.Node
	pods  map[types.NamespacedName]*v1.Pod
}

// createPod stores a pod as the API server would admit it: the
// DefaultTolerationSeconds admission plugin adds 300 s not-ready and
// unreachable tolerations unless the pod already has some for those keys.
func (c *cluster) createPod(p *v1.Pod) *v1.Pod {
	p.Spec.Tolerations, _ = tolerations.WithDefaultSeconds(p.Spec.Tolerations, tolerations.DefaultSecondsOptions{})
	c.pods[key(p)] = p
	return p
}

// updatePod replaces a pod and returns the old one. Like the API server it
// refuses tolerations changes other than new tolerations and new seconds.
func (c *cluster) updatePod(p *v1.Pod) (*v1.Pod, error) {
	old := c.pods[key(p)]
	if errs := tolerations.ValidateUpdate(p.Spec.Tolerations, old.Spec.Tolerations, nil, tolerations.Options{}); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	c.pods[key(p)] = p
	return old, nil
}

// podsOn lists the pods bound to a node, sorted by key so that the output
// never depends on map order.
func (c *cluster) podsOn(node string) []*v1.Pod {
	var out []*v1.Pod
	for _, k := range slices.SortedFunc(maps.Keys(c.pods), func(a, b types.NamespacedName) int {
		return cmp.Compare(a.String(), b.String())
	}) {
		if p := c.pods[k]; p.Spec.NodeName == node {
			out = append(out, p)
		}
	}
	return out
}

// timeline prints lines stamped with the (fake) clock's time of day.
type timeline struct {
	w     io.Writer
	clock clock.PassiveClock
	err   error // the first write error
}

func (t *timeline) printf(format string, args ...any) {
	if t.err != nil {
		return
	}
	_, t.err = fmt.Fprintf(t.w, "%s  %s\n", clockTime(t.clock.Now()), fmt.Sprintf(format, args...))
}

// event prints an event as upstream records it, reason TaintManagerEviction.
func (t *timeline) event(message string) {
	t.printf("    event TaintManagerEviction: %s", message)
}

func clockTime(t time.Time) string { return t.UTC().Format(time.TimeOnly) }
