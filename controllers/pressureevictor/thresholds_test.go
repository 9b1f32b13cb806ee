package pressureevictor

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/evictkit/eviction/thresholds"
)

func TestParseThresholds(t *testing.T) {
	ts, err := ParseThresholds(thresholds.Flags{})
	require.NoError(t, err)
	require.Len(t, ts, 1, "the default is one soft memory threshold, no hard ones")
	assert.Equal(t, "memory.available<500Mi", ts[0].String()[:len("memory.available<500Mi")])
	assert.Equal(t, 30*time.Second, ts[0].GracePeriod)

	ts, err = ParseThresholds(thresholds.Flags{Hard: []string{"memory.available<1Gi"}, MinimumReclaim: []string{"memory.available=200Mi"}})
	require.NoError(t, err)
	assert.Len(t, ts, 3, "the default soft threshold, the hard one and its allocatableMemory.available copy")
	for _, th := range ts {
		assert.NotNil(t, th.MinReclaim, th.String())
	}

	for _, tc := range []struct {
		name string
		f    thresholds.Flags
		want error
		// prefix is the package that made the error: a bad flag is the
		// thresholds package's error, passed on as it is.
		prefix string
	}{
		{"soft without grace period", thresholds.Flags{Soft: []string{"memory.available<1Gi"}}, thresholds.ErrMissingGracePeriod, "thresholds: eviction-soft "},
		{"unknown signal", thresholds.Flags{Hard: []string{"memory.free<1Gi"}}, thresholds.ErrUnsupportedSignal, "thresholds: eviction-hard "},
		{"malformed pair", thresholds.Flags{Soft: []string{"memory.available=1Gi"}}, thresholds.ErrMalformedPair, `thresholds: eviction-soft "memory.available=1Gi"`},
		{"nothing left", thresholds.Flags{Soft: []string{""}}, ErrNoThresholds, "pressureevictor: --eviction-soft "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseThresholds(tc.f)
			assert.ErrorIs(t, err, tc.want)
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), tc.prefix), err.Error())
		})
	}
}
