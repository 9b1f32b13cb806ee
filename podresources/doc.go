// Package podresources computes what a pod requests and limits, as
// Kubernetes v1.37 does: the one implementation the kubelet's eviction
// ranking and the scheduler's preemption share in this module.
//
//	reqs := podresources.Requests(pod, podresources.Options{})   // a pending pod
//	charged := podresources.Requests(pod, podresources.Options{UseStatusResources: true}) // a bound pod
//	mem, ok := podresources.Request(pod, v1.ResourceMemory, podresources.Options{}) // one resource, no map
//	for name, q := range podresources.AllRequests(pod, opts) { ... }            // every resource, no map
//	lims := podresources.Limits(pod, podresources.Options{})
//	prio := podresources.Priority(pod)
//
// It mirrors k8s.io/component-helpers v0.37.2 resource/helpers.go
// (PodRequests, PodLimits, AggregateContainerRequests,
// AggregateContainerLimits, IsPodLevelResourcesSet, IsPodResizeInfeasible)
// and scheduling/corev1 PodPriority.
//
// # Guarantees
//
//   - [Requests] and [Limits] return exactly the keys of component-helpers'
//     PodRequests and PodLimits under the matching PodResourcesOptions, with
//     equal quantities printed the same way, for every combination of
//     [Options] (a differential test in conformance/ checks this on random
//     pods with sidecars, pod-level resources, overhead and resize status).
//   - [Request] and [Limit] answer one key of those maps without building
//     them and, for integer quantities, without allocating.
//   - The pod is never modified: every quantity read from it is copied
//     before anything is added to it.
//   - A nil pod requests and limits nothing; no input panics.
//
// # The formula
//
// Containers are aggregated with the sidecar rule ([Aggregate]): regular
// and restartable init containers are summed, and the sum is raised to the
// peak of the init sequence, where each init container runs beside the
// sidecars started before it. With [Options.UseStatusResources] a pod that
// a kubelet has admitted is charged, resource by resource, the largest of
// its spec, allocated and actuated resources (the spec left out while a
// resize is Infeasible). Pod-level resources (spec.resources) replace the
// aggregate for cpu, memory and hugepages-*. Overhead is added to every
// request and to every non-zero limit.
//
// # Not covered
//
// Node-allocatable DRA claims (PodResourcesOptions
// UseDRANodeAllocatableResourceClaimStatus, gate DRANodeAllocatableResources,
// alpha and off in v1.37) are not counted, and Reuse is not offered: the
// maps are always fresh.
package podresources
