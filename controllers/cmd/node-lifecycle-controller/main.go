// Command node-lifecycle-controller is a drop-in for kube-controller-
// manager's node lifecycle controller: it marks silent nodes Unknown, marks
// their pods not ready and taints them NoSchedule and NoExecute, rate-limited
// per zone, with kube-controller-manager's flags and defaults, and records
// its events (RegisteredNode, NodeNotReady, ...). Run
// kube-controller-manager with --controllers=*,-node-lifecycle-controller
// and one or more replicas of this program (they elect a leader on a Lease).
//
//	node-lifecycle-controller --kubeconfig=$HOME/.kube/config --node-monitor-grace-period=50s
//
// Without --kubeconfig it uses the in-cluster configuration.
//
// --enable-taint-manager=false runs kube-controller-manager v1.26's legacy
// mode (off by default, gone from kube-controller-manager since v1.27): no
// NoExecute taint is written, and the pods of a node whose Ready condition
// has been False or Unknown for longer than --pod-eviction-timeout (5m0s) are
// deleted by the controller itself, rate-limited per zone, DaemonSet pods
// kept. That mode also lists and watches DaemonSets and deletes pods, which
// deploy/rbac.yaml does not grant.
package main

import (
	"github.com/evictkit/eviction/controllers/internal/manager"
	"github.com/evictkit/eviction/controllers/nodelifecyclecontroller"
)

func main() {
	manager.Main(manager.Program{Name: nodelifecyclecontroller.ControllerName, Controllers: []manager.New{manager.NodeLifecycle}})
}
