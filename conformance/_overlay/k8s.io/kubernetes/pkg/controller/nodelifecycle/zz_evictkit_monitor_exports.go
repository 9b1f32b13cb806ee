// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance
// adds it to this package with `go test -overlay` so that its differential
// tests and benchmarks can run a controller built by NewNodeLifecycleController
// one monitor pass and one tainting pass at a time. It only names them and
// sets the fields they read.

package nodelifecycle

import (
	"context"

	corelisters "k8s.io/client-go/listers/core/v1"
)

// MonitorNodeHealth runs monitorNodeHealth.
func (nc *Controller) MonitorNodeHealth(ctx context.Context) error { return nc.monitorNodeHealth(ctx) }

// DoNoExecuteTaintingPass runs doNoExecuteTaintingPass.
func (nc *Controller) DoNoExecuteTaintingPass(ctx context.Context) { nc.doNoExecuteTaintingPass(ctx) }

// SetNodeUpdateWorkers sets how many nodes monitorNodeHealth judges at once.
func (nc *Controller) SetNodeUpdateWorkers(n int) { nc.nodeUpdateWorkerSize = n }

// SetNodeLister replaces the node lister monitorNodeHealth and
// doNoExecuteTaintingPass read.
func (nc *Controller) SetNodeLister(l corelisters.NodeLister) { nc.nodeLister = l }

// ZoneTainters returns the zones that have a NoExecute tainting queue.
func (nc *Controller) ZoneTainters() []string {
	nc.evictorLock.Lock()
	defer nc.evictorLock.Unlock()
	out := make([]string, 0, len(nc.zoneNoExecuteTainter))
	for z := range nc.zoneNoExecuteTainter {
		out = append(out, z)
	}
	return out
}
