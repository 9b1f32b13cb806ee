package podresources

import v1 "k8s.io/api/core/v1"

// nameSet collects resource names in first-seen order, without duplicates.
// Pods name few resources, so a linear scan beats a map.
type nameSet []v1.ResourceName

func (s *nameSet) add(l v1.ResourceList) {
	for name := range l {
		s.addName(name)
	}
}

func (s *nameSet) addName(name v1.ResourceName) {
	for _, n := range *s {
		if n == name {
			return
		}
	}
	*s = append(*s, name)
}

// requestNames lists every resource a [Request] of pod under opts may
// report: a superset of the keys of upstream's PodRequests.
func requestNames(pod *v1.Pod, opts *Options) []v1.ResourceName {
	var s nameSet
	if !opts.SkipContainerLevelResources {
		ctrs := 0
		for _, list := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
			for i := range list {
				s.add(list[i].Resources.Requests)
				ctrs++
			}
		}
		if ctrs > 0 {
			s.add(opts.NonMissingContainerRequests)
		}
		if opts.UseStatusResources {
			for _, list := range [][]v1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
				for i := range list {
					s.add(list[i].AllocatedResources)
					if list[i].Resources != nil {
						s.add(list[i].Resources.Requests)
					}
				}
			}
		}
	}
	if opts.UseStatusResources {
		s.add(pod.Status.AllocatedResources)
		if pod.Status.Resources != nil {
			s.add(pod.Status.Resources.Requests)
		}
	}
	if pod.Spec.Resources != nil {
		s.add(pod.Spec.Resources.Requests)
	}
	if !opts.ExcludeOverhead {
		s.add(pod.Spec.Overhead)
	}
	return s
}

// limitNames lists every resource a [Limit] of pod under opts may report: a
// superset of the keys of upstream's PodLimits.
func limitNames(pod *v1.Pod, opts *Options) []v1.ResourceName {
	var s nameSet
	for _, list := range [][]v1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for i := range list {
			s.add(list[i].Resources.Limits)
		}
	}
	if opts.UseStatusResources {
		for _, list := range [][]v1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
			for i := range list {
				if list[i].Resources != nil {
					s.add(list[i].Resources.Limits)
				}
			}
		}
		if pod.Status.Resources != nil {
			s.add(pod.Status.Resources.Limits)
		}
	}
	if pod.Spec.Resources != nil {
		s.add(pod.Spec.Resources.Limits)
	}
	return s
}
