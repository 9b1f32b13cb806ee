package preemption_test

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/evictkit/eviction/preemption"
)

// TestNumCandidates checks the candidate count of the dry run: a percentage
// of the potential nodes raised to the absolute minimum and capped at their
// number, in the int32 arithmetic upstream uses.
func TestNumCandidates(t *testing.T) {
	def := preemption.DefaultSampling()
	for _, c := range []struct {
		s    preemption.Sampling
		n    int32
		want int32
	}{
		{def, 50, 50},
		{def, 1000, 100},
		{def, 5000, 500},
		{preemption.Sampling{MinCandidateNodesPercentage: 0, MinCandidateNodesAbsolute: 3}, 5, 3},
		{preemption.Sampling{MinCandidateNodesPercentage: 0, MinCandidateNodesAbsolute: 3}, 2, 2},
		{preemption.Sampling{MinCandidateNodesPercentage: 40, MinCandidateNodesAbsolute: 1}, 5, 2},
		{preemption.Sampling{MinCandidateNodesPercentage: 5, MinCandidateNodesAbsolute: 0}, 10, 0},
		// n·percentage overflows int32 upstream too: it wraps negative
		// and the absolute minimum takes over.
		{preemption.Sampling{MinCandidateNodesPercentage: 100, MinCandidateNodesAbsolute: 7}, math.MaxInt32, 7},
	} {
		assert.Equal(t, c.want, c.s.NumCandidates(c.n), "%+v n=%d", c.s, c.n)
	}
}

func TestSamplingValidate(t *testing.T) {
	require.NoError(t, preemption.DefaultSampling().Validate())
	require.NoError(t, preemption.Sampling{MinCandidateNodesPercentage: 0, MinCandidateNodesAbsolute: 1}.Validate())
	require.NoError(t, preemption.Sampling{MinCandidateNodesPercentage: 100, MinCandidateNodesAbsolute: 0}.Validate())
	for _, s := range []preemption.Sampling{
		{MinCandidateNodesPercentage: -1, MinCandidateNodesAbsolute: 1},
		{MinCandidateNodesPercentage: 101, MinCandidateNodesAbsolute: 1},
		{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: -1},
		{},
	} {
		assert.ErrorIs(t, s.Validate(), preemption.ErrInvalidOptions, "%+v", s)
	}
}
