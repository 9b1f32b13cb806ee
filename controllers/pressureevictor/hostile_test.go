package pressureevictor

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/statsummary"
)

// summaryWith is the node's summary with memory.available of available
// bytes at ts, and the given pod stats.
func summaryWith(ts time.Time, available string, pods ...string) []byte {
	return fmt.Appendf(nil, `{"node":{"nodeName":%q,"memory":{"time":%q,"availableBytes":%s,"workingSetBytes":0}},"pods":[%s]}`,
		node, ts.Format(time.RFC3339), available, strings.Join(pods, ","))
}

// podStat is the stats of pod ns/name (uid) using workingSet bytes at ts.
func podStat(ts time.Time, ns, name, uid, workingSet string) string {
	return fmt.Sprintf(`{"podRef":{"name":%q,"namespace":%q,"uid":%q},"memory":{"time":%q,"workingSetBytes":%s}}`,
		name, ns, uid, ts.Format(time.RFC3339), workingSet)
}

// nodePodStats is the stats of the node's pods still listed, at ts, with
// usage overriding the figures of some.
func (fx *fixture) nodePodStats(ts time.Time, usage map[string]string) []string {
	var out []string
	for _, obj := range fx.indexer.List() {
		p := fx.pods[obj.(*v1.Pod).Name]
		u, ok := usage[p.name]
		if !ok {
			u = fmt.Sprint(p.usage * mi)
		}
		out = append(out, podStat(ts, "default", p.name, "uid-"+p.name, u))
	}
	return out
}

// Absurd figures from the kubelet lose nothing. The largest count below
// 2^63 is taken for what it says: all that memory available is no
// pressure, a pod using it goes first. A count of 2^63 or more, which the
// kubelet's arithmetic would read as negative ("no memory available"),
// and a negative or non-integer one, are no summary at all: the cycle is
// skipped with a Warning event on the Node that names the figure.
func TestAbsurdSummaryValues(t *testing.T) {
	const (
		maxInt64  = "9223372036854775807"
		twoTo63   = "9223372036854775808"
		maxUint64 = "18446744073709551615"
	)
	t.Run("all the memory there is", func(t *testing.T) {
		fx := newFixture(t, hardMemory, false, nodePods...)
		fx.summary = func() ([]byte, error) {
			return summaryWith(fx.clock.Now(), maxInt64, fx.nodePodStats(fx.clock.Now(), nil)...), nil
		}
		assert.Equal(t, OutcomeNone, fx.cycle(0).outcome)
		assert.Empty(t, fx.evictions)
		assert.Equal(t, 9223372036854775807.0, testutil.ToFloat64(fx.metrics.observed.WithLabelValues("memory.available")))
	})
	t.Run("a pod using all the memory there is", func(t *testing.T) {
		fx := newFixture(t, hardMemory, false, nodePods...)
		fx.summary = func() ([]byte, error) {
			return summaryWith(fx.clock.Now(), "0", fx.nodePodStats(fx.clock.Now(), map[string]string{"steady": maxInt64})...), nil
		}
		assert.Equal(t, OutcomeEvicted, fx.cycle(0).outcome)
		assert.Equal(t, []string{"steady"}, fx.evictions, "the largest user above its request goes first")
	})
	for _, tc := range []struct {
		name     string
		summary  func(now time.Time, fx *fixture) []byte
		want     string
		sentinel error
	}{
		{"available 2^63", func(now time.Time, fx *fixture) []byte {
			return summaryWith(now, twoTo63, fx.nodePodStats(now, nil)...)
		},
			`summary of node "node-1": node.memory.availableBytes is 9223372036854775808, 2^63 or more, which no node has`, ErrAbsurdFigure},
		{"available 2^64-1", func(now time.Time, fx *fixture) []byte {
			return summaryWith(now, maxUint64, fx.nodePodStats(now, nil)...)
		},
			"node.memory.availableBytes is 18446744073709551615, 2^63 or more", ErrAbsurdFigure},
		{"a pod using 2^64-1", func(now time.Time, fx *fixture) []byte {
			return summaryWith(now, "0", fx.nodePodStats(now, map[string]string{"steady": maxUint64})...)
		}, ".memory.workingSetBytes is 18446744073709551615, 2^63 or more", ErrAbsurdFigure},
		{"a container's log of 2^63", func(now time.Time, fx *fixture) []byte {
			pod := `{"podRef":{"name":"best","namespace":"default","uid":"uid-best"},"containers":[{"name":"app","logs":{"usedBytes":` + twoTo63 + `}}]}`
			return summaryWith(now, "0", pod)
		}, "pods[0].containers[0].logs.usedBytes is 9223372036854775808", ErrAbsurdFigure},
		{"negative", func(now time.Time, _ *fixture) []byte { return summaryWith(now, "-1") },
			"node.memory.availableBytes: negative value -1", nil},
		{"fraction", func(now time.Time, _ *fixture) []byte { return summaryWith(now, "0.5") },
			"node.memory.availableBytes: invalid number 0.5: not an integer", nil},
		{"beyond uint64", func(now time.Time, _ *fixture) []byte { return summaryWith(now, "18446744073709551616") },
			"node.memory.availableBytes: invalid number 18446744073709551616: out of range", nil},
		{"exponent", func(now time.Time, _ *fixture) []byte { return summaryWith(now, "1e30") },
			"node.memory.availableBytes: invalid number 1e30: not an integer", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, hardMemory, false, nodePods...)
			fx.summary = func() ([]byte, error) { return tc.summary(fx.clock.Now(), fx), nil }
			assert.Equal(t, OutcomeSkipped, fx.cycle(0).outcome)
			assert.Empty(t, fx.client.Actions(), "nothing evicted")
			events := fx.events()
			require.Len(t, events, 1)
			assert.Contains(t, events[0], tc.want)
			assert.Equal(t, 1.0, testutil.ToFloat64(fx.metrics.summaries.WithLabelValues(SummaryMalformed)))
			if tc.sentinel != nil {
				err := checkFigures(mustDecode(t, tc.summary(fx.clock.Now(), fx)))
				assert.ErrorIs(t, err, tc.sentinel)
			}
		})
	}
}

func mustDecode(t *testing.T, data []byte) *statsummary.Summary {
	t.Helper()
	s, err := statsummary.Decode(data)
	require.NoError(t, err)
	return s
}

// A summary stamped far in the future (a kubelet with its clock wrong)
// is acted on once; the summaries after it look older for one cycle, then
// count again: the evictor is not stuck until the year 9999.
func TestSummaryFromTheFuture(t *testing.T) {
	fx := newFixture(t, hardMemory, false, nodePods...)
	future := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	stamp := future
	fx.summary = func() ([]byte, error) {
		now := fx.clock.Now()
		if !stamp.IsZero() {
			now, stamp = stamp, time.Time{}
		}
		return summaryWith(now, fmt.Sprint(300*mi), fx.nodePodStats(now, nil)...), nil
	}
	assert.Equal(t, OutcomeEvicted, fx.cycle(0).outcome, "fresh: nothing seen before")
	assert.Equal(t, OutcomeNone, fx.cycle(10*time.Second).outcome, "older than the last: not fresh")
	assert.Equal(t, OutcomeEvicted, fx.cycle(10*time.Second).outcome, "newer than the last again")
	assert.Equal(t, []string{"burst", "best"}, fx.evictions)
}

// Ten thousand pods in the summary that are not the node's (another
// node's, or none at all), each using more than any pod of the node: only
// the node's pods are candidates.
func TestSummaryFullOfStrangers(t *testing.T) {
	fx := newFixture(t, hardMemory, false, nodePods...)
	fx.summary = func() ([]byte, error) {
		now := fx.clock.Now()
		var pods []string
		for i := range 10000 {
			pods = append(pods, podStat(now, "elsewhere", fmt.Sprintf("stranger-%d", i), fmt.Sprintf("uid-%d", i), fmt.Sprint(8192*mi)))
		}
		return summaryWith(now, fmt.Sprint(300*mi), append(pods, fx.nodePodStats(now, nil)...)...), nil
	}
	assert.Equal(t, OutcomeEvicted, fx.cycle(0).outcome)
	assert.Equal(t, []string{"burst"}, fx.evictions)
}

// An API server that answers every eviction 429 (every budget exhausted, or
// the server shedding load) gets one request per candidate pod per cycle
// and nothing else: no pod is asked twice in a cycle, no refusal is read
// back, and the next attempt waits for the next cycle (Config.Interval).
func TestEvery429IsNoRetryStorm(t *testing.T) {
	fx := newFixture(t, hardMemory, false, nodePods...)
	for _, p := range nodePods {
		fx.protected[p.name] = true
	}
	fx.available = 300
	const cycles = 30
	for range cycles {
		assert.Equal(t, OutcomeRefused, fx.cycle(DefaultInterval).outcome)
	}
	assert.Len(t, fx.posts, cycles*3, "burst, best and steady once a cycle; never the critical or mirror pod")
	for _, a := range fx.client.Actions() {
		assert.Equal(t, "eviction", a.GetSubresource(), "only evictions: %s %s", a.GetVerb(), a.GetResource())
	}
	assert.Equal(t, float64(cycles*3), testutil.ToFloat64(fx.metrics.refusals))
}
