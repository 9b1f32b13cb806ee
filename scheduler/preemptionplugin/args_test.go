package preemptionplugin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/evictkit/eviction/scheduler/preemptionplugin"
)

func TestDecodeArgs(t *testing.T) {
	def := preemptionplugin.DefaultArgs()
	assert.Equal(t, preemptionplugin.Args{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100}, def)
	tests := []struct {
		name    string
		in      runtime.Object
		want    preemptionplugin.Args
		wantErr bool
	}{
		{name: "nil is the defaults", in: nil, want: def},
		{name: "empty unknown", in: &runtime.Unknown{}, want: def},
		{name: "json", in: &runtime.Unknown{Raw: []byte(`{"minCandidateNodesPercentage":50,"strictPDB":true,"evictionAPI":true}`)},
			want: preemptionplugin.Args{MinCandidateNodesPercentage: 50, MinCandidateNodesAbsolute: 100, StrictPDB: true, EvictionAPI: true}},
		{name: "yaml", in: &runtime.Unknown{Raw: []byte("minCandidateNodesAbsolute: 0\nminCandidateNodesPercentage: 1\n")},
			want: preemptionplugin.Args{MinCandidateNodesPercentage: 1}},
		{name: "typed", in: &preemptionplugin.Args{MinCandidateNodesPercentage: 5, MinCandidateNodesAbsolute: 1, StrictPDB: true},
			want: preemptionplugin.Args{MinCandidateNodesPercentage: 5, MinCandidateNodesAbsolute: 1, StrictPDB: true}},
		{name: "unknown field", in: &runtime.Unknown{Raw: []byte(`{"strict":true}`)}, wantErr: true},
		{name: "both zero", in: &runtime.Unknown{Raw: []byte(`{"minCandidateNodesPercentage":0,"minCandidateNodesAbsolute":0}`)}, wantErr: true},
		{name: "percentage above 100", in: &runtime.Unknown{Raw: []byte(`{"minCandidateNodesPercentage":101}`)}, wantErr: true},
		{name: "negative absolute", in: &runtime.Unknown{Raw: []byte(`{"minCandidateNodesAbsolute":-1}`)}, wantErr: true},
		{name: "wrong type", in: &v1.Pod{}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := preemptionplugin.DecodeArgs(tc.in)
			if tc.wantErr {
				require.ErrorIs(t, err, preemptionplugin.ErrInvalidArgs)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
