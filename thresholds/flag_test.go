package thresholds

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseThresholdFlag(t *testing.T) {
	tests := []struct {
		name   string
		values []string
		want   map[string]string
		err    error
	}{
		{
			name:   "spaces trimmed and empty segment skipped",
			values: []string{"memory.available<100Mi, nodefs.available<10%,"},
			want:   map[string]string{"memory.available": "100Mi", "nodefs.available": "10%"},
		},
		{name: "equals sign is malformed", values: []string{"memory.available=100Mi"}, err: ErrMalformedPair},
		{name: "last value wins", values: []string{"a<1,a<2"}, want: map[string]string{"a": "2"}},
		{name: "repeated flags accumulate", values: []string{"a<1,b<2", "a<3"}, want: map[string]string{"a": "3", "b": "2"}},
		{name: "split at the first separator", values: []string{"a<b<c"}, want: map[string]string{"a": "b<c"}},
		{name: "flag not given", values: nil, want: nil},
		{name: "empty flag value clears", values: []string{""}, want: map[string]string{}},
		{name: "blank segment is malformed", values: []string{"a<1, ,b<2"}, err: ErrMalformedPair},
		{name: "empty key and value kept", values: []string{"<"}, want: map[string]string{"": ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseThresholdFlag(tc.values...)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.Contains(t, err.Error(), "malformed pair, expect string<string")
				assert.Nil(t, got)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			if tc.want != nil {
				assert.NotNil(t, got, "a given flag yields a non-nil map")
			}
		})
	}
}

func TestParseMapFlag(t *testing.T) {
	got, err := ParseMapFlag("memory.available=1m30s, nodefs.available = 30s", "imagefs.available=2Gi")
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"memory.available": "1m30s", "nodefs.available": "30s", "imagefs.available": "2Gi"}, got)

	_, err = ParseMapFlag("memory.available<1m")
	require.ErrorIs(t, err, ErrMalformedPair)
	assert.Contains(t, err.Error(), "malformed pair, expect string=string")
}

func TestFlagsApply(t *testing.T) {
	base := Config{
		Hard:           Defaults(Linux),
		MinimumReclaim: map[string]string{"nodefs.available": "1Gi"},
	}
	got, err := Flags{
		Hard:            []string{"memory.available<1Gi"},
		Soft:            []string{"memory.available<2Gi"},
		SoftGracePeriod: []string{"memory.available=1m"},
	}.Apply(base)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"memory.available": "1Gi"}, got.Hard, "the first use discards defaults")
	assert.Equal(t, map[string]string{"memory.available": "2Gi"}, got.Soft)
	assert.Equal(t, map[string]string{"memory.available": "1m"}, got.SoftGracePeriod)
	assert.Equal(t, map[string]string{"nodefs.available": "1Gi"}, got.MinimumReclaim, "flags not given keep the config value")
	assert.Len(t, base.Hard, 5, "Apply must not modify its argument")

	_, err = Flags{MinimumReclaim: []string{"x"}}.Apply(base)
	require.ErrorIs(t, err, ErrMalformedPair)
	assert.Equal(t, `thresholds: eviction-minimum-reclaim "x": malformed pair, expect string=string`, err.Error(),
		"the error names the flag and the segment")
}

func TestFormatFlags(t *testing.T) {
	m := map[string]string{"nodefs.available": "10%", "memory.available": "100Mi"}
	assert.Equal(t, "memory.available<100Mi,nodefs.available<10%", FormatThresholdFlag(m))
	assert.Equal(t, "memory.available=100Mi,nodefs.available=10%", FormatMapFlag(m))
	back, err := ParseThresholdFlag(FormatThresholdFlag(m))
	require.NoError(t, err)
	assert.Equal(t, m, back)
	assert.Empty(t, FormatMapFlag(nil))
}
