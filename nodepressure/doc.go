// Package nodepressure is the kubelet eviction manager of Kubernetes v1.37.2
// (k8s.io/kubernetes pkg/kubelet/eviction eviction_manager.go) as library
// calls: [Admit] decides whether a new pod may start while the node reports
// pressure.
package nodepressure
