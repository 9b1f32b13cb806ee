package main

import (
	"testing"

	"github.com/evictkit/eviction/controllers/internal/commandtest"
)

func TestMain(m *testing.M) { commandtest.Main(m, main) }

// A kubeconfig that points nowhere (no such file, not a kubeconfig, a
// server that refuses connections, never answers, or refuses the
// credentials), and no kubeconfig outside a cluster: the program exits
// with status 1 and one line that says why, within its startup timeout.
func TestKubeconfigPointingNowhere(t *testing.T) {
	commandtest.Check(t, "evictkit-controller-manager")
}
