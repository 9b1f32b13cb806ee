// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance
// adds it to this package with `go test -overlay` so that its differential
// tests can drive the eviction manager's synchronize as the package's own
// eviction_manager_test.go does. It only names what is there.

package eviction

import (
	"context"

	v1 "k8s.io/api/core/v1"
)

// ManagerImpl is the eviction manager NewManager builds.
type ManagerImpl = managerImpl

// Synchronize runs one cycle of the manager's control loop.
func (m *managerImpl) Synchronize(ctx context.Context, diskInfoProvider DiskInfoProvider, podFunc ActivePodsFunc) ([]*v1.Pod, error) {
	return m.synchronize(ctx, diskInfoProvider, podFunc)
}

// NodeConditions returns the node conditions of the last cycle.
func (m *managerImpl) NodeConditions() []v1.NodeConditionType {
	m.RLock()
	defer m.RUnlock()
	return append([]v1.NodeConditionType(nil), m.nodeConditions...)
}
