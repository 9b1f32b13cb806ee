// Command taint-eviction-controller is a drop-in for kube-controller-
// manager's taint-eviction controller: it deletes the pods that do not
// tolerate their node's NoExecute taints, at once or when their toleration
// runs out. Run kube-controller-manager with
// --controllers=*,-taint-eviction-controller and one or more replicas of this
// program (they elect a leader on a Lease).
//
//	taint-eviction-controller --kubeconfig=$HOME/.kube/config
//
// Without --kubeconfig it uses the in-cluster configuration.
package main

import (
	"github.com/evictkit/eviction/controllers/internal/manager"
	"github.com/evictkit/eviction/controllers/taintevictioncontroller"
)

func main() {
	manager.Main(manager.Program{Name: taintevictioncontroller.ControllerName, Controllers: []manager.New{manager.TaintEviction}})
}
