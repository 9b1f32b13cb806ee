package statsummary

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
)

// Summary is a kubelet stats summary reduced to what eviction reads. [Decode]
// makes one and indexes its pods for [Summary.Usage]; treat it as read-only
// (a Summary built by hand, or whose Pods changed length, is scanned instead
// of indexed).
type Summary struct {
	// NodeName is node.nodeName.
	NodeName string
	// Node holds the node figures the eviction signals are derived from
	// ([thresholds.MakeObservations] reads it).
	Node thresholds.Summary
	// Pods holds one entry per element of pods[], in order.
	Pods []Pod

	// byName indexes Pods by namespace and name: the last entry of a name,
	// with next chaining to the earlier ones. Decode builds it.
	byName map[podName]int32
	next   []int32
}

// Pod is one pod's entry of the summary (stats: PodStats).
type Pod struct {
	// Ref is the pod as the kubelet knows it (podRef).
	Ref PodRef
	// Usage is the pod's figures that eviction reads.
	Usage ranking.Usage
}

// PodRef identifies the pod an entry belongs to (stats: PodReference).
type PodRef struct {
	// Namespace is podRef.namespace.
	Namespace string
	// Name is podRef.name.
	Name string
	// UID is podRef.uid: the UID of the pod the kubelet runs, which for a
	// static pod is not its mirror pod's UID (see [KubeletUID]).
	UID types.UID
}

type podName struct{ namespace, name string }

// KubeletUID returns the UID the kubelet knows pod by, the UID its stats are
// keyed by: for a mirror pod (the API object of a static pod) the value of its
// kubernetes.io/config.mirror annotation, which is the static pod's UID (the
// hash of its manifest), and otherwise pod.UID. A nil pod has no UID.
func KubeletUID(pod *v1.Pod) types.UID {
	if pod == nil {
		return ""
	}
	if hash, ok := pod.Annotations[ranking.ConfigMirrorAnnotationKey]; ok {
		return types.UID(hash)
	}
	return pod.UID
}

// Usage returns the figures of pod, an API pod, and whether the summary has
// an entry for it. It joins by namespace and name and then requires the
// entry's UID to be [KubeletUID](pod), so that a mirror pod finds its static
// pod's stats and a pod recreated under the same name does not find its
// predecessor's; of several matching entries the last counts, as in the
// kubelet's cachedStatsFunc. A pod without a UID to compare (a hand-made pod,
// or a mirror pod whose annotation is empty) takes the last entry of its
// namespace and name. A nil pod has no entry.
//
// The method value s.Usage is a [ranking.UsageFunc]:
//
//	ranking.ForMemory(pods, s.Usage, ranking.Options{})
//
// With a Summary made by [Decode] a call is one map lookup.
func (s *Summary) Usage(pod *v1.Pod) (ranking.Usage, bool) {
	if i, ok := s.find(pod); ok {
		return s.Pods[i].Usage, true
	}
	return ranking.Usage{}, false
}

// find returns the index of pod's entry.
func (s *Summary) find(pod *v1.Pod) (int, bool) {
	if s == nil || pod == nil {
		return 0, false
	}
	uid := KubeletUID(pod)
	matches := func(i int) bool {
		r := &s.Pods[i].Ref
		return r.Namespace == pod.Namespace && r.Name == pod.Name && (uid == "" || r.UID == uid)
	}
	if s.byName == nil || len(s.next) != len(s.Pods) {
		for i := len(s.Pods) - 1; i >= 0; i-- {
			if matches(i) {
				return i, true
			}
		}
		return 0, false
	}
	i, ok := s.byName[podName{pod.Namespace, pod.Name}]
	for ok {
		if matches(int(i)) {
			return int(i), true
		}
		i = s.next[i]
		ok = i >= 0
	}
	return 0, false
}

// ByUID returns the pods' figures keyed by podRef.uid, as the kubelet's
// cachedStatsFunc keys them (the last entry of a UID counts). It suits the
// kubelet's own pods, whose UIDs are the ones in the summary; for API pods use
// [Summary.Usage]. The map is new; the Usage values share their slices with s.
func (s *Summary) ByUID() map[types.UID]ranking.Usage {
	if s == nil {
		return map[types.UID]ranking.Usage{}
	}
	m := make(map[types.UID]ranking.Usage, len(s.Pods))
	for i := range s.Pods {
		m[s.Pods[i].Ref.UID] = s.Pods[i].Usage
	}
	return m
}

// index builds byName and next.
func (s *Summary) index() {
	s.byName = make(map[podName]int32, len(s.Pods))
	s.next = make([]int32, len(s.Pods))
	for i := range s.Pods {
		r := &s.Pods[i].Ref
		k := podName{r.Namespace, r.Name}
		prev, ok := s.byName[k]
		if !ok {
			prev = -1
		}
		s.next[i] = prev
		s.byName[k] = int32(i)
	}
}
