package timedqueue

import "time"

// GaugeMetric is a value that goes up and down, as client-go's
// workqueue.GaugeMetric.
type GaugeMetric interface {
	Inc()
	Dec()
}

// SettableGaugeMetric is a gauge that is set to a value, as client-go's
// workqueue.SettableGaugeMetric.
type SettableGaugeMetric interface {
	Set(float64)
}

// CounterMetric is a count that only goes up, as client-go's
// workqueue.CounterMetric.
type CounterMetric interface {
	Inc()
}

// HistogramMetric records observations, as client-go's
// workqueue.HistogramMetric.
type HistogramMetric interface {
	Observe(float64)
}

// MetricsProvider creates the metrics of a named [Queue]. It has the
// methods of client-go's workqueue.MetricsProvider, with this package's
// metric interfaces as results, so a controller plugs in the provider it
// registers for its workqueues with an adapter of one line per method:
//
//	type queueMetrics struct{ p workqueue.MetricsProvider }
//
//	func (m queueMetrics) NewDepthMetric(n string) timedqueue.GaugeMetric { return m.p.NewDepthMetric(n) }
//	// … and so on for the other six.
//
// The metrics mean what client-go's mean, for a timed queue:
//
//   - depth: pending items (scheduled or waiting for a retry, not running);
//   - adds: items accepted by Add;
//   - latency: seconds from an item's due time (its FireAt, or its retry
//     time) to the start of its call: the wait for a free worker;
//   - work duration: seconds per work call;
//   - unfinished work: seconds of all running calls together, and longest
//     running processor: seconds of the oldest running call, both updated
//     when a call starts or returns and every 500 ms of the queue's clock
//     while a call runs (client-go's period);
//   - retries: failed calls scheduled again by [Retry].
//
// A method may return nil: that metric is not reported.
type MetricsProvider interface {
	NewDepthMetric(name string) GaugeMetric
	NewAddsMetric(name string) CounterMetric
	NewLatencyMetric(name string) HistogramMetric
	NewWorkDurationMetric(name string) HistogramMetric
	NewUnfinishedWorkSecondsMetric(name string) SettableGaugeMetric
	NewLongestRunningProcessorSecondsMetric(name string) SettableGaugeMetric
	NewRetriesMetric(name string) CounterMetric
}

// unfinishedPeriod is how often the running-time gauges are refreshed
// while a call runs: client-go's period.
const unfinishedPeriod = 500 * time.Millisecond

// metrics holds a queue's metrics; a nil *metrics reports nothing.
type metrics struct {
	depth       GaugeMetric
	adds        CounterMetric
	latency     HistogramMetric
	workTime    HistogramMetric
	unfinished  SettableGaugeMetric
	longest     SettableGaugeMetric
	retries     CounterMetric
	depthNow    int                 // the depth last reported
	runStarts   map[int32]time.Time // running slot → start, when a running-time gauge is set
	refreshLoop bool                // the refresh goroutine is alive
}

func newMetrics(p MetricsProvider, name string) *metrics {
	if p == nil || name == "" {
		return nil
	}
	m := &metrics{
		depth:      p.NewDepthMetric(name),
		adds:       p.NewAddsMetric(name),
		latency:    p.NewLatencyMetric(name),
		workTime:   p.NewWorkDurationMetric(name),
		unfinished: p.NewUnfinishedWorkSecondsMetric(name),
		longest:    p.NewLongestRunningProcessorSecondsMetric(name),
		retries:    p.NewRetriesMetric(name),
	}
	if m.unfinished != nil || m.longest != nil {
		m.runStarts = map[int32]time.Time{}
	}
	return m
}

// setDepth reports depth n through Inc and Dec.
func (m *metrics) setDepth(n int) {
	if m == nil || m.depth == nil {
		return
	}
	for ; m.depthNow < n; m.depthNow++ {
		m.depth.Inc()
	}
	for ; m.depthNow > n; m.depthNow-- {
		m.depth.Dec()
	}
}

func (m *metrics) add() {
	if m != nil && m.adds != nil {
		m.adds.Inc()
	}
}

func (m *metrics) retry() {
	if m != nil && m.retries != nil {
		m.retries.Inc()
	}
}

// started records the start of the call in slot s at now, due since due.
func (m *metrics) started(s int32, due, now time.Time) {
	if m == nil {
		return
	}
	if m.latency != nil {
		m.latency.Observe(now.Sub(due).Seconds())
	}
	if m.runStarts != nil {
		m.runStarts[s] = now
		m.refresh(now)
	}
}

// finished records the end at now of the call in slot s started at start.
func (m *metrics) finished(s int32, start, now time.Time) {
	if m == nil {
		return
	}
	if m.workTime != nil {
		m.workTime.Observe(now.Sub(start).Seconds())
	}
	if m.runStarts != nil {
		delete(m.runStarts, s)
		m.refresh(now)
	}
}

// refresh sets the running-time gauges for now.
func (m *metrics) refresh(now time.Time) {
	var total, longest float64
	for _, start := range m.runStarts {
		d := now.Sub(start).Seconds()
		total += d
		longest = max(longest, d)
	}
	if m.unfinished != nil {
		m.unfinished.Set(total)
	}
	if m.longest != nil {
		m.longest.Set(longest)
	}
}
