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
// upstream's: UpdateStatus for nodes and pods, taints read-modify-written
// with conflict retries.
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
// Not done: the legacy (pre-taint) pod deletion mode.
package nodelifecyclecontroller
