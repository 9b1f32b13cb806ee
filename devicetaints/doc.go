// Package devicetaints decides which pods leave when DRA devices are
// tainted, as kube-controller-manager's device-taint-eviction-controller
// does, and is that controller's core.
//
//	d := devicetaints.NewSnapshot(slices, claims, rules, devicetaints.Options{}).Pod(pod)
//	// d.Evict, d.At (due; not after now means at once), d.Taint() (the cause)
//	c := devicetaints.NewController(devicetaints.Options{}) // informers call c.PodChanged, c.ClaimChanged, …
//	res := c.Step(now) // res.Statuses, res.Evictions, res.Events, res.Next; report with c.Evicted / c.Retry
//
// It mirrors, for Kubernetes v1.37.2: k8s.io/dynamic-resource-allocation
// resourceclaim (ToleratesTaint, PodClaims, IsForPod, IsReservedForPod) and
// k8s.io/kubernetes pkg/controller/devicetainteviction (the taints of an
// allocated device, claimEvictionTime, podEvictionTime, the handlers, the
// scheduling of evictions and the DeviceTaintRule status, with its
// simulation of effect None).
//
// # Guarantees
//
//   - The same decisions as upstream on the same objects, and, driven with
//     the same events and times, the same evictions at the same times, the
//     same cancellation events and the same rule status writes
//     (conformance/ compares them on random slices, claims, rules and pods).
//   - No clock, no goroutine, no logging, no feature-gate registry: time
//     comes in as Step's now; the DRAWorkloadResourceClaims gate is
//     [Options.WorkloadResourceClaims].
//   - Builds with k8s.io/api v0.36 and v0.37. It uses resource/v1
//     ResourceSlice, ResourceClaim, DeviceTaint and DeviceToleration, which
//     both have; a DeviceTaintRule (v1beta2 in v0.36, v1 in v0.37) comes in
//     as a [Rule] value that a caller fills from either.
//   - Inputs are never modified. [Snapshot] is read-only and safe for
//     concurrent use; [Controller] is for one goroutine at a time.
//
// # Rules a reader tends to get wrong
//
// Only NoExecute taints evict, and only tolerations whose effect is
// NoExecute protect: a toleration with an empty effect matches every taint
// ([Tolerates] says so, and the scheduler allocates with it), yet the
// controller does not count it, and evicts. A NoExecute toleration without
// tolerationSeconds protects forever; with seconds, the pod goes at the
// taint's TimeAdded plus the smallest seconds of the tolerations that
// match (negative counts as 0) — counted from when the taint was added,
// not from when the controller saw it, unlike node taints. Tolerations are
// read from the claim's allocation result (copied from the request when it
// was allocated), per allocated device. A pod goes at the earliest time of
// all its devices, claims and taints. A DeviceTaintRule selects by driver,
// pool and device name (nil selector: nothing; empty: everything), taints
// devices whether or not a slice publishes them, and changing its effect
// restarts its TimeAdded (the API server's doing). Only the newest
// generation of a pool's slices counts. A pod is decided only once bound
// to a node, whatever its phase; one being deleted is still evicted (and
// counted), though not counted as pending in a rule's status.
//
// The API server sets TimeAdded on every taint; a taint without it (from a
// caller's own objects) has no time: it evicts nobody by itself, but is
// listed among the reasons when another taint evicts.
//
// # Differences from upstream
//
// Upstream is random where it iterates maps; here:
//
//   - A device name published by two slices of a pool's newest generation
//     is looked up in the slice whose name sorts first.
//   - Claims are re-decided in namespace/name order (upstream: map order),
//     and a PodGroup's pods in name order; this orders the cancellation
//     events of one handler call.
//   - The NoExecute taints of a pool are listed in a stable order when the
//     controller looks for the devices a slice change touched (upstream
//     sorts them unstably).
//   - Rule status checks due at one Step run before its evictions (upstream:
//     queue order; a new or changed rule's first check comes first there
//     too).
//
// And where upstream fails:
//
//   - A taint without TimeAdded that a toleration with seconds matches
//     makes upstream's controller panic (nil dereference); here the taint
//     has no time, as without the toleration.
//   - tolerationSeconds beyond 9 223 372 036 (292 years) saturate; upstream
//     multiplies with wrap-around and may evict at once.
//   - Upstream remembers the last 500 pods it evicted, and evicts (and
//     counts) again one it has forgotten that still exists; here an
//     evicted pod is remembered until its deletion is handled.
//   - A device without a name (the API server rejects it) makes upstream's
//     slice handler loop forever.
//
// # The core
//
// [Controller] keeps what upstream keeps: the pods, the allocated claims
// with their evictions, the slices by pool, the rules, the evictions
// scheduled, the pods evicted and the evictions counted per rule. Its
// handlers re-decide exactly the pods upstream re-decides, so that the
// cancellation events and the rule status checks they cause come at the
// same times. [Controller.Step] hands out the evictions due and the rule
// status writes; the adapter carries them out (see [Eviction] and
// [RuleStatus]), owns the clock, the work queue's retries, the events'
// recorder and the metrics, and reports back.
package devicetaints
