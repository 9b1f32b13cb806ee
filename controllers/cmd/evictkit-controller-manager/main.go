// Command evictkit-controller-manager hosts evictkit's drop-ins for
// kube-controller-manager's node-lifecycle-controller,
// taint-eviction-controller and device-taint-eviction-controller in one
// process, as kube-controller-manager hosts its own: one API client, one
// watch and one cache of pods and nodes for all of them, one metrics
// endpoint and one leader Lease. It takes the flags of each (the same as
// the programs that run one controller each) and kube-controller-manager's
// --controllers. Run kube-controller-manager without the controllers this
// program runs, for example
//
//	kube-controller-manager --controllers=*,-node-lifecycle-controller,-taint-eviction-controller,-device-taint-eviction-controller ...
//	evictkit-controller-manager --kubeconfig=$HOME/.kube/config
//
// Without --kubeconfig it uses the in-cluster configuration. On a large
// cluster it holds one copy of every pod and node where the separate
// programs hold one each (BENCHMARKS.md measures both at 1,000 nodes).
package main

import (
	"github.com/evictkit/eviction/controllers/internal/manager"
)

func main() {
	manager.Main(manager.Program{
		Name:        "evictkit-controller-manager",
		Controllers: []manager.New{manager.NodeLifecycle, manager.TaintEviction, manager.DeviceTaintEviction},
	})
}
