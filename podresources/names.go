package podresources

import v1 "k8s.io/api/core/v1"

// appendNew appends the names of l that names lacks. Pods name few
// resources, so a linear scan beats a map.
func appendNew(names []v1.ResourceName, l v1.ResourceList) []v1.ResourceName {
next:
	for name := range l {
		for _, n := range names {
			if n == name {
				continue next
			}
		}
		names = append(names, name)
	}
	return names
}

// appendRequestNames appends every resource a [Request] of pod under opts
// may report: a superset of the keys of upstream's PodRequests.
func appendRequestNames(names []v1.ResourceName, pod *v1.Pod, opts *Options) []v1.ResourceName {
	if !opts.SkipContainerLevelResources {
		ctrs := 0
		for _, list := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
			for i := range list {
				names = appendNew(names, list[i].Resources.Requests)
				ctrs++
			}
		}
		if ctrs > 0 {
			names = appendNew(names, opts.NonMissingContainerRequests)
		}
		if opts.UseStatusResources {
			for _, list := range [][]v1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
				for i := range list {
					names = appendNew(names, list[i].AllocatedResources)
					if list[i].Resources != nil {
						names = appendNew(names, list[i].Resources.Requests)
					}
				}
			}
		}
	}
	if opts.UseStatusResources {
		names = appendNew(names, pod.Status.AllocatedResources)
		if pod.Status.Resources != nil {
			names = appendNew(names, pod.Status.Resources.Requests)
		}
	}
	if pod.Spec.Resources != nil {
		names = appendNew(names, pod.Spec.Resources.Requests)
	}
	if !opts.ExcludeOverhead {
		names = appendNew(names, pod.Spec.Overhead)
	}
	return names
}

// appendLimitNames appends every resource a [Limit] of pod under opts may
// report: a superset of the keys of upstream's PodLimits.
func appendLimitNames(names []v1.ResourceName, pod *v1.Pod, opts *Options) []v1.ResourceName {
	for _, list := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range list {
			names = appendNew(names, list[i].Resources.Limits)
		}
	}
	if opts.UseStatusResources {
		for _, list := range [][]v1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
			for i := range list {
				if list[i].Resources != nil {
					names = appendNew(names, list[i].Resources.Limits)
				}
			}
		}
		if pod.Status.Resources != nil {
			names = appendNew(names, pod.Status.Resources.Limits)
		}
	}
	if pod.Spec.Resources != nil {
		names = appendNew(names, pod.Spec.Resources.Limits)
	}
	return names
}
