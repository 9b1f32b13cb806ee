package preemption_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/preemption"
)

// charged pairs each pod with what AssignedPodRequests charges for it.
func charged(pods []*v1.Pod) []preemption.ChargedPod {
	var out []preemption.ChargedPod
	for _, p := range pods {
		out = append(out, preemption.ChargedPod{Pod: p, Charged: preemption.AssignedPodRequests(p)})
	}
	return out
}

// TestPropertyChargedSnapshotEqualsComputed: a snapshot given the charges
// AssignedPodRequests computes is the snapshot NewNodeSnapshot builds.
func TestPropertyChargedSnapshotEqualsComputed(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		want := genNode(t, "n")
		got, err := preemption.NewNodeSnapshotCharged(want.Node(), charged(want.Pods()), charged(want.NominatedPods()))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("charged snapshot differs:\ncomputed %+v\ncharged  %+v", want, got)
		}
	})
}

// TestNodeSnapshotChargedTakesTheCharges: the charges given are the ones
// used, whatever the pods' specs say, and only scheduler-tracked scalars
// are kept.
func TestNodeSnapshotChargedTakesTheCharges(t *testing.T) {
	p := mkPod("a", prio(low), req("100m", "10"))
	s, err := preemption.NewNodeSnapshotCharged(stdNode("n1"), []preemption.ChargedPod{{Pod: p, Charged: preemption.Resources{
		MilliCPU: 300, Memory: 20, Pods: 7,
		Scalars: map[v1.ResourceName]int64{"example.com/gpu": 1, "cpu-ish": 4},
	}}}, nil)
	require.NoError(t, err)
	require.Equal(t, preemption.Resources{MilliCPU: 300, Memory: 20, Scalars: map[v1.ResourceName]int64{"example.com/gpu": 1}}, s.Requested())
}

func TestNewNodeSnapshotChargedInvalid(t *testing.T) {
	_, err := preemption.NewNodeSnapshotCharged(nil, nil, nil)
	require.ErrorIs(t, err, preemption.ErrInvalidInput)
	_, err = preemption.NewNodeSnapshotCharged(&v1.Node{}, nil, nil)
	require.ErrorIs(t, err, preemption.ErrInvalidInput)
	_, err = preemption.NewNodeSnapshotCharged(stdNode("n1"), []preemption.ChargedPod{{}}, nil)
	require.ErrorIs(t, err, preemption.ErrInvalidInput)
	_, err = preemption.NewNodeSnapshotCharged(stdNode("n1"), nil, []preemption.ChargedPod{{}})
	require.ErrorIs(t, err, preemption.ErrInvalidInput)
}
