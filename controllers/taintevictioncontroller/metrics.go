package taintevictioncontroller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are upstream's taint-eviction metrics, under upstream's names.
type Metrics struct {
	deletions prometheus.Counter
	latency   prometheus.Histogram
	abandon   prometheus.Counter
}

// NewMetrics creates the metrics and registers them with reg:
//
//   - taint_eviction_controller_pod_deletions_total: pods deleted since start;
//   - taint_eviction_controller_pod_deletion_duration_seconds: seconds from
//     the time a pod's eviction was due to its deletion, in upstream's buckets
//     (5 ms to 4 min);
//   - taint_eviction_controller_pod_deletions_abandoned_total (not
//     upstream's): evictions abandoned because the API server refused the
//     deletion for good (a 4xx answer such as 403 or 422) on every attempt.
//
// Upstream multiplies that duration by a second before observing it, so its
// histogram puts every deletion in the +Inf bucket; here the value is in
// seconds, as the name says.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		deletions: prometheus.NewCounter(prometheus.CounterOpts{
			Subsystem: "taint_eviction_controller",
			Name:      "pod_deletions_total",
			Help:      "Total number of Pods deleted by TaintEvictionController since its start.",
		}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Subsystem: "taint_eviction_controller",
			Name:      "pod_deletion_duration_seconds",
			Help:      "Latency, in seconds, between the time when a taint effect has been activated for the Pod and its deletion via TaintEvictionController.",
			Buckets:   []float64{0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 30, 60, 120, 180, 240},
		}),
		abandon: prometheus.NewCounter(prometheus.CounterOpts{
			Subsystem: "taint_eviction_controller",
			Name:      "pod_deletions_abandoned_total",
			Help:      "Total number of Pod evictions abandoned because the API server refused the deletion for good (a 4xx answer) on every attempt.",
		}),
	}
	for _, c := range []prometheus.Collector{m.deletions, m.latency, m.abandon} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// deleted records one deletion of a pod whose eviction was due at fireAt.
func (m *Metrics) deleted(fireAt, now time.Time) {
	if m == nil {
		return
	}
	m.deletions.Inc()
	m.latency.Observe(now.Sub(fireAt).Seconds())
}

// abandoned records one eviction abandoned.
func (m *Metrics) abandoned() {
	if m == nil {
		return
	}
	m.abandon.Inc()
}
