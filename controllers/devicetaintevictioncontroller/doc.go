// Package devicetaintevictioncontroller runs the library's device-taint
// eviction core (package devicetaints) against an API server: a drop-in for
// kube-controller-manager's device-taint-eviction-controller (switch that
// one off with --controllers=*,-device-taint-eviction-controller).
//
//	f := informers.NewSharedInformerFactory(client, 0)
//	r := f.Resource().V1()
//	c, err := devicetaintevictioncontroller.New(devicetaintevictioncontroller.Config{Client: client, Pods: f.Core().V1().Pods(),
//		ResourceClaims: r.ResourceClaims(), ResourceSlices: r.ResourceSlices(), DeviceTaintRules: r.DeviceTaintRules(), DeviceClasses: r.DeviceClasses()})
//	f.Start(ctx.Done())
//	err = c.Run(ctx) // until ctx ends
//
// It mirrors k8s.io/kubernetes v1.37.2 pkg/controller/devicetainteviction
// as kube-controller-manager runs it. Every informer event goes, under one
// lock, to the core's handler (PodChanged, ClaimChanged, SliceChanged,
// RuleChanged; a DeviceTaintRule converted by [Rule]), followed by a Step at
// the injected clock's now; one timer is armed for the Step's Next. The
// Step's result is carried out as upstream does: the Cancelling events
// through an EventRecorder (source [ControllerName]); each rule status
// write as a forced server-side apply of the rule's status (field manager
// [ControllerName], the rule's UID in it); each eviction on a pool of
// [Config.Workers] workers (kube-controller-manager's
// --concurrent-device-taint-eviction-syncs, default 8, which the status
// writes share): the pod is read live, the event "Marking for deletion"
// recorded, the DisruptionTarget condition (reason
// DeletionByDeviceTaintManager) patched onto its status unless it has it,
// and the pod deleted with its UID as a precondition. The metrics are
// upstream's: device_taint_eviction_controller_pod_deletions_total and
// device_taint_eviction_controller_pod_deletion_duration_seconds
// ([NewMetrics]). A failed write is retried after the backoff of
// client-go's default controller rate limiter (upstream's work queue's).
//
// # Guarantees
//
//   - Nothing is decided before the caches of all five informers synced,
//     and nothing scheduled survives Run: a controller started later (the
//     next leader) recomputes every eviction and status from its
//     informers.
//   - Only the pod the eviction was decided for is deleted: its UID is a
//     precondition of the status patch and of the delete.
//   - A scheduled eviction, and one waiting for its retry, is cancelled
//     when the taint goes (a rule deleted, a toleration added); one under
//     way completes, as upstream's does.
//
// # Differences from upstream
//
// Those of the core (see package devicetaints): deterministic orders, no
// panic on a taint without TimeAdded, saturating toleration seconds, and
// an evicted pod remembered until its deletion is seen rather than among
// the last 500. The adapter adds none: a pod found being deleted already
// counts as deleted (in the metrics and the rule's count) as upstream
// counts it, and a conflict of the UID precondition is tried again, the
// next read then finding the other pod and stopping, as upstream does.
// Upstream's work queue also reports workqueue metrics; this controller
// has no such queue and reports none.
package devicetaintevictioncontroller
