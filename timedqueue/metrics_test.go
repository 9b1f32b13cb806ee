package timedqueue

import (
	"context"
	"errors"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	testclock "k8s.io/utils/clock/testing"
)

// fakeMetrics records every metric update, as a Prometheus provider would
// export them.
type fakeMetrics struct {
	mu                          sync.Mutex
	names                       []string
	depth, adds, retries        int
	latency, work               []float64
	unfinished, longest         float64
	unfinishedSets, longestSets int
}

type fakeGauge struct {
	m *fakeMetrics
	v *int
}

func (g fakeGauge) Inc() { g.m.mu.Lock(); *g.v++; g.m.mu.Unlock() }
func (g fakeGauge) Dec() { g.m.mu.Lock(); *g.v--; g.m.mu.Unlock() }

type fakeHist struct {
	m *fakeMetrics
	v *[]float64
}

func (h fakeHist) Observe(x float64) { h.m.mu.Lock(); *h.v = append(*h.v, x); h.m.mu.Unlock() }

type fakeSet struct {
	m *fakeMetrics
	v *float64
	n *int
}

func (s fakeSet) Set(x float64) { s.m.mu.Lock(); *s.v = x; *s.n++; s.m.mu.Unlock() }

func (m *fakeMetrics) NewDepthMetric(n string) GaugeMetric {
	m.names = append(m.names, n)
	return fakeGauge{m, &m.depth}
}
func (m *fakeMetrics) NewAddsMetric(string) CounterMetric      { return fakeGauge{m, &m.adds} }
func (m *fakeMetrics) NewLatencyMetric(string) HistogramMetric { return fakeHist{m, &m.latency} }
func (m *fakeMetrics) NewWorkDurationMetric(string) HistogramMetric {
	return fakeHist{m, &m.work}
}
func (m *fakeMetrics) NewUnfinishedWorkSecondsMetric(string) SettableGaugeMetric {
	return fakeSet{m, &m.unfinished, &m.unfinishedSets}
}
func (m *fakeMetrics) NewLongestRunningProcessorSecondsMetric(string) SettableGaugeMetric {
	return fakeSet{m, &m.longest, &m.longestSets}
}
func (m *fakeMetrics) NewRetriesMetric(string) CounterMetric { return fakeGauge{m, &m.retries} }

var _ MetricsProvider = (*fakeMetrics)(nil)

func TestQueueMetrics(t *testing.T) {
	m := &fakeMetrics{}
	e := newEnv[string](t, Options[string]{Name: "evictions", Metrics: m, Workers: 1,
		Retry: Retry{MaxAttempts: 2, Initial: time.Second}})
	assert.Equal(t, []string{"evictions"}, m.names)
	release := e.gate("slow")
	require.True(t, e.q.Add("slow", struct{}{}, t0, t0))
	<-e.started
	require.True(t, e.q.Add("a", struct{}{}, t0, t0)) // due, waits for the one worker
	require.True(t, e.q.Add("b", struct{}{}, t0, t0.Add(time.Minute)))
	assert.False(t, e.q.Add("b", struct{}{}, t0, t0), "refused: not an add")
	m.mu.Lock()
	assert.Equal(t, 3, m.adds)
	assert.Equal(t, 2, m.depth, "a and b pending, slow running")
	m.mu.Unlock()

	e.clk.Step(2 * time.Second) // slow has run 2 s; a waited 2 s for the worker
	for range 1000 {            // the refresh goroutine runs on the fake clock's tick
		m.mu.Lock()
		n := m.longestSets
		m.mu.Unlock()
		if n >= 2 {
			break
		}
		runtime.Gosched()
	}
	release()
	e.idle()
	m.mu.Lock()
	assert.Equal(t, []float64{0, 2}, m.latency, "slow started at once, a after 2 s")
	assert.Equal(t, []float64{2, 0}, m.work)
	assert.Equal(t, 1, m.depth, "b pending")
	assert.Zero(t, m.longest, "nothing runs")
	m.mu.Unlock()

	e.fail["b"] = errors.New("boom")
	e.step(time.Minute)
	m.mu.Lock()
	assert.Equal(t, 1, m.retries)
	assert.Equal(t, 1, m.depth, "b waits for its retry")
	m.mu.Unlock()
	require.NoError(t, e.q.Shutdown(context.Background()))
	m.mu.Lock()
	assert.Zero(t, m.depth, "nothing pending survives Shutdown")
	m.mu.Unlock()
}

func TestQueueNoMetricsWithoutName(t *testing.T) {
	m := &fakeMetrics{}
	q := New[string, struct{}](nil, Options[string]{Metrics: m, Clock: testclock.NewFakeClock(t0)})
	q.Add("k", struct{}{}, t0, t0)
	require.NoError(t, q.Shutdown(context.Background()))
	assert.Empty(t, m.names, "an unnamed queue reports nothing, as client-go's")
}

func TestQueueShutdown(t *testing.T) {
	var got error
	started := make(chan struct{})
	q := New(func(ctx context.Context, _ Item[string, struct{}]) error {
		close(started)
		<-ctx.Done() // returns only once Shutdown cancels it
		got = ctx.Err()
		return nil
	}, Options[string]{Clock: testclock.NewFakeClock(t0), Name: "q"})
	assert.Equal(t, "q", q.Name())
	assert.False(t, q.ShuttingDown())
	q.Add("k", struct{}{}, t0, t0)
	q.Add("later", struct{}{}, t0, t0.Add(time.Hour))
	<-started
	require.NoError(t, q.Shutdown(context.Background()))
	assert.True(t, q.ShuttingDown())
	assert.ErrorIs(t, got, context.Canceled)
	assert.Zero(t, q.Len())
	q.mu.Lock()
	assert.False(t, q.loop, "the timer goroutine has exited")
	q.mu.Unlock()
}

func TestOptionsWorkers(t *testing.T) {
	assert.Equal(t, runtime.GOMAXPROCS(0), (&Options[int]{}).workers(), "0 means GOMAXPROCS, as in preemption")
	assert.Equal(t, runtime.GOMAXPROCS(0), (&Options[int]{Workers: -3}).workers())
	assert.Equal(t, 3, (&Options[int]{Workers: 3}).workers())
}
