// Package podindex is the pod informer index by spec.nodeName that the
// controllers share: added once to a pod informer, it lists a node's pods
// without a scan of the cache.
package podindex

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// NodeName is the name of the index: pods by spec.nodeName (unbound pods
// are not indexed).
const NodeName = "spec.nodeName"

// Add adds the NodeName index to informer unless it has it already. Call it
// before the informer starts.
func Add(informer cache.SharedIndexInformer) error {
	if _, ok := informer.GetIndexer().GetIndexers()[NodeName]; ok {
		return nil
	}
	err := informer.AddIndexers(cache.Indexers{NodeName: func(obj any) ([]string, error) {
		if pod, ok := obj.(*v1.Pod); ok && pod.Spec.NodeName != "" {
			return []string{pod.Spec.NodeName}, nil
		}
		return nil, nil
	}})
	if err != nil {
		return fmt.Errorf("pod index %s: %w", NodeName, err)
	}
	return nil
}

// PodsOn returns the pods that indexer, a pod informer's indexer with the
// NodeName index, holds for node.
func PodsOn(indexer cache.Indexer, node string) ([]*v1.Pod, error) {
	objs, err := indexer.ByIndex(NodeName, node)
	if err != nil {
		return nil, err
	}
	pods := make([]*v1.Pod, 0, len(objs))
	for _, obj := range objs {
		if pod, ok := obj.(*v1.Pod); ok {
			pods = append(pods, pod)
		}
	}
	return pods, nil
}
