package ranking

import v1 "k8s.io/api/core/v1"

// ByPriorityThenQoS sorts pods in place into the order the descheduler evicts them
// (kubernetes-sigs/descheduler pkg/descheduler/pod SortPodsBasedOnPriorityLowToHigh), first =
// evicted first:
//
//  1. pods with no spec.priority at all before every pod with one, even a negative one
//     (unlike the kubelet, which reads a missing priority as 0);
//  2. lower priority first;
//  3. BestEffort, then Burstable, then Guaranteed ([QOSClass]);
//  4. ties: namespace, then name, then UID, then input order.
//
// Critical pods are not filtered out; that is the caller's job. The pods are not modified.
func ByPriorityThenQoS(pods []*v1.Pod, opts Options) {
	var small smallBuffers
	s := newKeyed(pods, &small)
	for i, p := range pods {
		k := &s.keys[i]
		if p != nil && p.Spec.Priority != nil {
			k.lead = 1<<34 | biased(*p.Spec.Priority)<<2
		}
		k.lead |= uint64(qosRank(QOSClass(p, opts)))
	}
	s.sort()
}
