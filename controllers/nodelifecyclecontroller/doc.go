// Package nodelifecyclecontroller runs the library's node lifecycle monitor
// (package nodelifecycle) against an API server: a drop-in for
// kube-controller-manager's node-lifecycle-controller.
//
//	c, err := nodelifecyclecontroller.New(nodelifecyclecontroller.Config{
//		Client: client, Nodes: f.Core().V1().Nodes(), Pods: f.Core().V1().Pods(),
//		Leases: f.Coordination().V1().Leases(),
//	})
//	f.Start(ctx.Done())
//	err = c.Run(ctx)
//
// Every --node-monitor-period it makes one monitor pass (nodelifecycle.Monitor
// Pass: node health from status and Leases, the status writes, pods marked
// not ready, NoExecute taints, zone states); every 100 ms it drains the zones'
// rate-limited tainting queues; on every node add or update it keeps the
// NoSchedule taints in line with the node's conditions; on every pod bound to
// a node that is not ready it marks the pod not ready. The writes are
// upstream's: UpdateStatus for nodes and pods; taints read (from the API
// server's cache first) and written as a strategic merge patch that carries
// the resourceVersion read, retried on a conflict, and not written when they
// would not change.
//
// It records upstream's events, with upstream's source ([EventSource],
// "node-controller"), through core/v1 Events: RegisteredNode and
// RemovingNode on a node the controller starts or stops listing,
// NodeNotReady on a node it turned not ready, and a Warning NodeNotReady on
// every pod it marks not ready. Its metrics ([NewMetrics]) are upstream's
// node_collector_* ones.
//
// One deliberate difference: a NoSchedule taint write that fails is retried
// with backoff, where upstream drops it until the node next changes.
//
// # Legacy pod eviction (v1.26, off by default)
//
// With Config.Legacy set (the program's --enable-taint-manager=false and
// --pod-eviction-timeout, kube-controller-manager v1.26's flags, gone since
// v1.27) the controller runs v1.26's pod eviction mode, every decision
// package nodelifecycle/legacy's: it writes no NoExecute taint (none added,
// none removed); a node whose Ready condition the last pass observed False
// (for longer than the timeout since the controller saw it change) or
// Unknown (for longer than the timeout since its last sign of life) is
// queued in its zone's rate-limited queue, at the same zone rates as the
// taint mode's; when its token comes, each of its pods gets status reason
// NodeLost and every one not terminating nor selected by a DaemonSet of its
// namespace is deleted (a Normal DeletingAllPods event on the node first,
// a Normal NodeControllerEviction on each pod deleted). A node that turns
// Ready again before its token has its eviction cancelled; a pod bound to a
// node evicted already is deleted at once. Status writes, pods marked not
// ready, zone states and the NoSchedule taints are as in the taint mode. The
// mode also reads DaemonSets (Config.DaemonSets) and deletes pods.
package nodelifecyclecontroller
