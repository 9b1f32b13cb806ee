// Package scale runs the node lifecycle and taint-eviction controllers at
// cluster scale on a real control plane: kwok keeps a thousand or more fake
// nodes alive against kube-apiserver, a scenario silences or taints some of
// them, and the same scenario runs once with kube-controller-manager's two
// controllers and once with ours. It measures what each costs and checks that
// both evict the same pods.
//
//	./scripts/scale 1000                  # every scenario, 1,000 nodes × 10 pods
//	./scripts/scale 100 -scenarios=taint  # a smoke run
//	cd controllers && go test -run TestScale -timeout 3h ./e2e/scale -args -nodes=3000 -scenarios=zone
//
// Without -nodes, TestScale skips: it is a measurement, not a check, and
// ./scripts/check runs only the package's unit tests.
//
// # What a run is
//
// A fresh etcd and kube-apiserver (framework.Start), with an audit log of the
// controllers' requests; kwok (built from source by the tools module beside
// this package, cached like the control plane) managing every node whose
// label evictkit.io/kwok is "on": it posts their Ready status, renews their
// Leases, and runs, readies and finally deletes their pods. Removing the
// label silences a node: kwok stops renewing its Lease and the node goes
// quiet as a crashed kubelet would. Once every node and pod is Ready, the
// controllers start (as after a restart) and are given time to list the
// cluster: kube-controller-
// manager with --controllers=node-lifecycle-controller,taint-eviction-
// controller, or ours: evictkit-controller-manager hosting the same two
// (variant ours) or our two programs apart (ours-split), with the same node
// lifecycle and client flags. -profile=DIR keeps ours' CPU and heap
// profiles of each scenario; -env=GOMAXPROCS=1,GOGC=200 runs every variant's
// controllers with those variables, to measure what the Go runtime's knobs
// are worth; -watcher runs beside them a program that only watches what they
// watch (package watcher), whose CPU and peak RSS are the floor any
// implementation of the two controllers pays at that size.
//
// # The scenarios
//
//   - zone: one zone of three goes silent; its nodes are tainted at the
//     eviction rate and their pods evicted after their tolerations.
//   - flap: every tenth node goes silent; each comes back as soon as its
//     short-tolerating pods are evicted, long before its long-tolerating
//     ones would be.
//   - taint: a user adds a NoExecute taint to 500 nodes (half the cluster,
//     if smaller) at once.
//   - all: every node goes silent; every zone is in full disruption, and
//     no eviction should start.
//
// A silenced node's Lease is renewed once more by the run itself, and the
// run checks that kwok renews it no more (kwok v0.8.0 sometimes misses a
// node leaving its selector), silencing again the nodes it still keeps
// alive; each node's grace period is then known to run from the run's own
// last renewal.
//
// # What a run measures
//
// The pods evicted (first seen with a deletionTimestamp) and when, the
// NoExecute taints the controllers add and remove, each run's timing checked
// against its own inputs (a pod is evicted no earlier than its taint's
// timeAdded plus its tolerationSeconds), the controllers' API requests by
// verb and resource (from kube-apiserver's audit log; a request it refused,
// such as a taint patch whose resourceVersion a kwok status write overtook,
// wrote nothing and counts apart), their CPU seconds and
// peak RSS (from /proc), and kube-apiserver's request latency (from its
// metrics). TestScale fails when ours evicts other pods than
// kube-controller-manager, adds or removes other NoExecute taints, writes
// more per eviction (Events apart), or either evicts other pods than the
// scenario predicts from its inputs.
package scale
