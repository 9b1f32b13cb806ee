package preemption_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"sigs.k8s.io/yaml"

	"github.com/evictkit/eviction/preemption"
)

// argsCases are ParseArgs' table, also the fuzz target's seeds.
var argsCases = []struct {
	name    string
	in      string
	want    preemption.Args
	wantErr string // a part of the error, naming the field
}{
	{name: "empty is the defaults", in: "", want: preemption.DefaultArgs()},
	{name: "null is the defaults", in: "null", want: preemption.DefaultArgs()},
	{name: "json", in: `{"minCandidateNodesPercentage":50,"strictPDB":true,"evictionAPI":true}`,
		want: preemption.Args{MinCandidateNodesPercentage: 50, MinCandidateNodesAbsolute: 100, StrictPDB: true, EvictionAPI: true}},
	{name: "yaml", in: "minCandidateNodesAbsolute: 0\nminCandidateNodesPercentage: 1\n",
		want: preemption.Args{MinCandidateNodesPercentage: 1}},
	{name: "explicit false", in: "strictPDB: false\n", want: preemption.DefaultArgs()},
	{name: "unknown field", in: `{"strict":true}`, wantErr: `unknown field "strict"`},
	{name: "both zero", in: `{"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":0}`, wantErr: "minCandidateNodesPercentage and minCandidateNodesAbsolute are both 0"},
	{name: "percentage above 100", in: `{"minCandidateNodesPercentage":101}`, wantErr: "minCandidateNodesPercentage 101"},
	{name: "negative absolute", in: `{"minCandidateNodesAbsolute":-1}`, wantErr: "minCandidateNodesAbsolute -1"},
	{name: "wrong type", in: `{"strictPDB":"yes"}`, wantErr: "strictPDB"},
	{name: "not an object", in: `[1]`, wantErr: "args"},
}

func TestParseArgs(t *testing.T) {
	assert.Equal(t, preemption.Args{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100}, preemption.DefaultArgs())
	for _, tc := range argsCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := preemption.ParseArgs([]byte(tc.in), preemption.DefaultArgs())
			if tc.wantErr != "" {
				require.ErrorIs(t, err, preemption.ErrInvalidOptions)
				assert.Contains(t, err.Error(), tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestParseArgsKeepsTheBase: absent fields keep the base's values, present
// ones replace them.
func TestParseArgsKeepsTheBase(t *testing.T) {
	base := preemption.Args{MinCandidateNodesPercentage: 30, MinCandidateNodesAbsolute: 3, StrictPDB: true, EvictionAPI: true}
	got, err := preemption.ParseArgs([]byte("evictionAPI: false\n"), base)
	require.NoError(t, err)
	assert.Equal(t, preemption.Args{MinCandidateNodesPercentage: 30, MinCandidateNodesAbsolute: 3, StrictPDB: true}, got)
}

// FuzzParseArgs: whatever the input, ParseArgs returns valid args or an
// error wrapping ErrInvalidOptions, and valid args print back to the same
// args.
func FuzzParseArgs(f *testing.F) {
	for _, tc := range argsCases {
		f.Add([]byte(tc.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := preemption.ParseArgs(data, preemption.DefaultArgs())
		if err != nil {
			require.ErrorIs(t, err, preemption.ErrInvalidOptions)
			return
		}
		require.NoError(t, a.Validate())
		out, err := yaml.Marshal(a)
		require.NoError(t, err)
		again, err := preemption.ParseArgs(out, preemption.DefaultArgs())
		require.NoError(t, err)
		require.Equal(t, a, again)
	})
}
