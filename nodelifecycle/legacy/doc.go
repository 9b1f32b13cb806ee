// Package legacy decides what kube-controller-manager's node lifecycle controller decided in
// the legacy pod-eviction mode that v1.26 was the last to offer (--enable-taint-manager=false):
// instead of tainting a failed node NoExecute, the controller deleted its pods itself once it
// had been not ready for longer than --pod-eviction-timeout.
//
//	d, err := legacy.Decide(health.Observed.Status, &probe, now, legacy.Config{})
//	state, op := state.Next(d)                   // Unmarked → ToBeEvicted → Evicted
//	ds := legacy.NewDaemonSets(daemonSets)       // once per DaemonSet cache change
//	plan := legacy.PlanPodDeletion(pods, node, ds) // when the zone's token comes
//
// A controller (or a simulation) runs the mode with [Evictor] beside a [nodelifecycle.Monitor]
// whose Config has DisableNoExecuteTainting: the Evictor keeps the eviction states and the
// zones' rate-limited queues, fed from each pass's result, and [DeletePods] carries out
// PlanPodDeletion through a [PodAPI], with upstream's events:
//
//	acts, err := ev.AfterPass(now, res)           // after every Monitor.Pass
//	evicted, err := ev.Drain(now, evict)          // every 100 ms; evict lists the node's pods and DeletePods them
//
// It mirrors k8s.io/kubernetes v1.26.15 pkg/controller/nodelifecycle/node_lifecycle_controller.go
// (processNoTaintBaseEviction, evictPods, cancelPodEviction, doEvictionPass) and
// pkg/controller/util/node/controller_utils.go (DeletePods). The health judgement, zones and
// rates are package nodelifecycle's, which mirrors v1.37; [NodeConfig126] gives v1.26's
// settings for it, and the v1.26 decisions read [nodelifecycle.Health.Observed], not Current.
//
// Guarantees:
//   - No function modifies its arguments or reads a clock; time comes in as now.
//   - [PlanPodDeletion] never deletes a terminating pod or a DaemonSet pod, and never touches
//     a pod bound to another node.
//   - [Evictor.AfterPass], [Evictor.Drain] and [Evictor.PodBound] over a Monitor's results
//     make the same queue operations, state changes and pod deletions, in the same order, as
//     v1.26's controller (a rapid differential test against a step-by-step model of it).
//   - [DaemonSets] parses each selector once; [DaemonSets.Matches] allocates only the label
//     set view of the pod.
package legacy
