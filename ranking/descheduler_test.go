package ranking

import (
	"testing"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

// TestByPriorityThenQoSSpec covers the descheduler order: no priority first, then lower
// priority, then BestEffort, Burstable, Guaranteed.
func TestByPriorityThenQoSSpec(t *testing.T) {
	g := func() v1.Container { return guaranteed("c") }
	b := func() v1.Container { return ctr("c", rl("cpu", "1"), nil) }
	e := func() v1.Container { return bestEffort("c") }
	pods := []*v1.Pod{
		mkPod("A", containers(e())),
		mkPod("B", priority(-5), containers(g())),
		mkPod("C", priority(0), containers(b())),
		mkPod("D", priority(0), containers(e())),
		mkPod("E", priority(0), containers(g())),
	}
	for _, in := range [][]*v1.Pod{pods, shuffled(pods...)} {
		ByPriorityThenQoS(in, Options{})
		mustEqualNames(t, []string{"A", "B", "D", "C", "E"}, in)
	}

	t.Run("nil priority before any negative one; stored class used", func(t *testing.T) {
		stored := mkPod("stored", priority(-100), containers(e()))
		stored.Status.QOSClass = v1.PodQOSGuaranteed
		in := []*v1.Pod{mkPod("neg", priority(-100), containers(g())), stored, mkPod("nil", containers(g())),
			mkPod("neg-be", priority(-100), containers(e()))}
		ByPriorityThenQoS(in, Options{})
		require.Equal(t, []string{"nil", "neg-be", "neg", "stored"}, names(in))
	})
}
