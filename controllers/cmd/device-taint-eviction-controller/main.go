// Command device-taint-eviction-controller is a drop-in for
// kube-controller-manager's device-taint-eviction-controller: it deletes
// the pods whose allocated DRA devices carry a NoExecute taint (of their
// ResourceSlice or of a DeviceTaintRule) that their claims do not
// tolerate, at once or when the toleration runs out, and keeps each
// DeviceTaintRule's EvictionInProgress condition. Run
// kube-controller-manager with --controllers=*,-device-taint-eviction-controller
// and one or more replicas of this program (they elect a leader on a
// Lease).
//
//	device-taint-eviction-controller --kubeconfig=$HOME/.kube/config
//
// Without --kubeconfig it uses the in-cluster configuration.
package main

import (
	"github.com/evictkit/eviction/controllers/devicetaintevictioncontroller"
	"github.com/evictkit/eviction/controllers/internal/manager"
)

func main() {
	manager.Main(manager.Program{Name: devicetaintevictioncontroller.ControllerName, Controllers: []manager.New{manager.DeviceTaintEviction}})
}
