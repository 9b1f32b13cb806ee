package preemptionplugin

import (
	"context"

	v1 "k8s.io/api/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/evictkit/eviction/preemption"
)

// resourceFitPlugin is the name of the scheduler's NodeResourcesFit plugin,
// whose check the preemption package carries out itself.
const resourceFitPlugin = "NodeResourcesFit"

// needsProfileFilters reports whether the profile's Filter plugins, beyond
// the resource check, must be run during the victim search: when the
// preemptor asks for something that depends on the pods of a node (host
// ports, required pod (anti-)affinity, hard topology spread, volumes,
// resource claims), or when some pod in the cluster has required
// anti-affinity that may exclude the preemptor. Otherwise removing
// lower-priority pods can only change the resource check's answer, which the
// preemption package computes without the framework.
func needsProfileFilters(pod *v1.Pod, lister fwk.NodeInfoLister) bool {
	spec := &pod.Spec
	if a := spec.Affinity; a != nil {
		if a.PodAffinity != nil && len(a.PodAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			return true
		}
		if a.PodAntiAffinity != nil && len(a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution) > 0 {
			return true
		}
	}
	for _, c := range spec.TopologySpreadConstraints {
		if c.WhenUnsatisfiable == v1.DoNotSchedule {
			return true
		}
	}
	if len(spec.ResourceClaims) > 0 {
		return true
	}
	for _, vol := range spec.Volumes {
		switch {
		case vol.ConfigMap != nil, vol.Secret != nil, vol.DownwardAPI != nil, vol.Projected != nil, vol.EmptyDir != nil:
		default:
			return true
		}
	}
	for _, cs := range [][]v1.Container{spec.InitContainers, spec.Containers} {
		for i := range cs {
			for _, p := range cs[i].Ports {
				if p.HostPort > 0 {
					return true
				}
			}
		}
	}
	withAnti, err := lister.HavePodsWithRequiredAntiAffinityList()
	return err != nil || len(withAnti) > 0
}

// profileFilter returns a preemption.Filter that runs the profile's Filter
// plugins on the node as the victim search leaves it, for the nodes in need
// (every node when all is set, else those whose failure came from a plugin
// other than NodeResourcesFit). It rebuilds the NodeInfo and the cycle state
// from the scheduler's snapshot on each call: removed pods go through the
// PreFilter extensions' RemovePod, the nominated pods taking part through
// AddPod, as upstream's victim search does step by step.
func profileFilter(ctx context.Context, h fwk.Handle, state fwk.CycleState, infos map[string]fwk.NodeInfo, need func(node string) bool) preemption.Filter {
	logger := klog.FromContext(ctx)
	return func(pod *v1.Pod, node *v1.Node, remaining preemption.Remaining) (bool, string) {
		if !need(node.Name) {
			return true, ""
		}
		orig, ok := infos[node.Name]
		if !ok {
			return true, ""
		}
		present := make(map[*v1.Pod]bool, remaining.NumPods())
		for p := range remaining.Pods() {
			present[p] = true
		}
		ni := orig.Snapshot()
		st := state.Clone()
		for _, pi := range orig.GetPods() {
			p := pi.GetPod()
			if present[p] {
				delete(present, p)
				continue
			}
			if err := ni.RemovePod(logger, p); err != nil {
				return false, err.Error()
			}
			if s := h.RunPreFilterExtensionRemovePod(ctx, st, pod, pi, ni); !s.IsSuccess() {
				return false, s.Message()
			}
		}
		if len(present) > 0 {
			for _, pi := range h.NominatedPodsForNode(node.Name) {
				if !present[pi.GetPod()] {
					continue
				}
				ni.AddPodInfo(pi)
				if s := h.RunPreFilterExtensionAddPod(ctx, st, pod, pi, ni); !s.IsSuccess() {
					return false, s.Message()
				}
			}
		}
		if s := h.RunFilterPlugins(ctx, st, pod, ni); !s.IsSuccess() {
			return false, s.Message()
		}
		return true, ""
	}
}
