// Package e2e runs kube-scheduler v1.37.2, built with the EvictkitPreemption
// plugin (../cmd), on a real etcd and kube-apiserver (the controllers
// module's e2e framework) and compares, scenario by scenario, what
// DefaultPreemption and EvictkitPreemption do: the victims, the node, the
// writes to the API server and the events.
package e2e
