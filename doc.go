// Package eviction is the map of a library that gives controller authors the
// eviction decisions of Kubernetes v1.37 as small, pure, importable packages.
//
// Kubernetes decides who is evicted in three components, and keeps the logic
// in k8s.io/kubernetes, a module that is not meant to be imported. This module
// reproduces those decisions over the real API types of k8s.io/api and
// k8s.io/apimachinery, and over nothing else: no client, no informers, no
// feature-gate registry, no logging.
//
// # The packages
//
// kube-controller-manager: the node lifecycle controller and the taint-eviction
// controller.
//
//   - [github.com/evictkit/eviction/taints]: taint values as kubectl writes
//     them (parse, format, validate, set operations) and the well-known taints
//     the control plane sets.
//   - [github.com/evictkit/eviction/tolerations]: whether a pod tolerates a
//     node's taints, for how long, and what the taint-eviction controller
//     decides for a pod on a NoExecute-tainted node.
//   - [github.com/evictkit/eviction/nodelifecycle]: node health from status
//     heartbeats and leases, the taints a node must carry for its conditions,
//     zone disruption states and their eviction rates, and the controller's
//     monitor pass as one call; [github.com/evictkit/eviction/nodelifecycle/legacy]
//     holds the pod-eviction-timeout mode of releases up to v1.26.
//   - [github.com/evictkit/eviction/tainteviction]: the taint-eviction
//     controller's core, synchronous and without a clock: pod and node
//     events in with their now, Step(now) out (the evictions due, the
//     events, the next wake-up), with the DisruptionTarget condition it
//     writes; failed evictions are retried as cancellable scheduled ones.
//   - [github.com/evictkit/eviction/devicetaints]: DRA device taints (v1.37):
//     whether a ResourceClaim's toleration tolerates a device taint, the
//     taints a device carries (its own and those of DeviceTaintRules), when
//     a pod whose claims use tainted devices is evicted and because of
//     which taint, and the device-taint eviction controller's core.
//   - [github.com/evictkit/eviction/timedqueue]: keyed items due at times:
//     a synchronous schedule (no clock, no goroutine) that cores keep their
//     evictions in, the timed worker queue that drives it on an injected
//     clock with a bounded worker pool (for adapters), and the rate-limited
//     queue the node lifecycle controller drains per zone.
//
// kubelet: node-pressure eviction.
//
//   - [github.com/evictkit/eviction/thresholds]: eviction signals and
//     thresholds, parsed from the kubelet flags and evaluated over time as
//     the eviction manager does (grace periods, minimum reclaim, node
//     conditions and their transition period).
//   - [github.com/evictkit/eviction/ranking]: QoS class and the order in which
//     a pressured kubelet evicts pods.
//   - [github.com/evictkit/eviction/nodepressure]: the eviction manager's
//     cycle as one call: stats and pods in; node conditions, the pod to
//     evict and what to write about it out; and the admission check that
//     refuses new pods under pressure.
//   - [github.com/evictkit/eviction/statsummary]: the kubelet's stats summary
//     (the JSON of /stats/summary) decoded into the node figures thresholds
//     observes and the pod usage ranking reads, joined to API pods.
//
// kube-scheduler: preemption.
//
//   - [github.com/evictkit/eviction/preemption]: the victims a pending pod
//     would preempt on a node, PodDisruptionBudgets included, and the node
//     the DefaultPreemption plugin would choose.
//
// Shared by the kubelet's ranking and the scheduler's preemption:
//
//   - [github.com/evictkit/eviction/podresources]: what a pod requests and
//     limits (sidecars, pod-level resources, overhead, in-place resize) and
//     its priority.
//
// Shared by the controller cores (tainteviction, nodelifecycle,
// devicetaints):
//
//   - [github.com/evictkit/eviction/events]: the Kubernetes Events a core
//     returns as values (object, type, reason, message) and hands to an
//     event recorder with Record.
//
// The programs built on these packages (drop-in controllers for
// kube-controller-manager's node lifecycle and taint-eviction controllers,
// and a kubelet-side pressure evictor) live in the separate module
// github.com/evictkit/eviction/controllers, which adds client-go.
//
// # Exact v1.37 semantics
//
// Every function answers as Kubernetes v1.37.2 answers on the same input,
// with the feature gates at their v1.37 defaults. A gate that changes an
// answer is an explicit field of the package's Options, whose zero value is
// upstream's default. The separate conformance module calls upstream and
// this library on the same generated inputs and requires identical answers.
//
// # Deliberate differences
//
// The library departs from upstream in three kinds of place only, each named
// in the package documentation and asserted by a test:
//
//   - Upstream is random (map iteration order, unstable sorts, timing of
//     goroutines): the library picks one of upstream's possible answers and
//     always the same one, with ties broken by namespace, name and UID or by
//     node name.
//   - Upstream has a bug: arithmetic saturates instead of wrapping (a
//     toleration of 10^10 seconds means "forever", not 290 ms) and the timed
//     queue has no races between a finishing run and a new one.
//   - Users have long asked for an option upstream lacks (strict
//     PodDisruptionBudgets in preemption, thresholds merged with the kubelet
//     defaults, retries that do not lose an eviction): it is an option, off
//     by default.
//
// # Using it
//
// Import the package that decides what you need:
//
//	import "github.com/evictkit/eviction/tolerations"
//
//	d := tolerations.NoExecuteDecision(node.Spec.Taints, pod.Spec.Tolerations, tolerations.Options{})
//
// Functions never mutate the API objects they are given unless their name
// says so (the ranking functions sort the slice they receive, never the
// pods in it). Stateful pieces take their clock from k8s.io/utils/clock, so
// tests run on a fake one.
package eviction
