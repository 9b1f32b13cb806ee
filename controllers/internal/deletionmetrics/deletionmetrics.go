// Package deletionmetrics holds the two metrics kube-controller-manager's
// eviction controllers (taint eviction, device-taint eviction) keep of the
// pods they delete: <subsystem>_pod_deletions_total and
// <subsystem>_pod_deletion_duration_seconds, in upstream's buckets (5 ms to
// 4 min).
package deletionmetrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics counts deletions and observes how long after its due time each
// pod was deleted. A nil *Metrics records nothing.
type Metrics struct {
	// Deletions is <subsystem>_pod_deletions_total.
	Deletions prometheus.Counter
	// Latency is <subsystem>_pod_deletion_duration_seconds.
	Latency prometheus.Histogram
}

// New returns the metrics of subsystem with upstream's help texts.
func New(subsystem, deletionsHelp, latencyHelp string) *Metrics {
	return &Metrics{
		Deletions: prometheus.NewCounter(prometheus.CounterOpts{
			Subsystem: subsystem, Name: "pod_deletions_total", Help: deletionsHelp,
		}),
		Latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Subsystem: subsystem, Name: "pod_deletion_duration_seconds", Help: latencyHelp,
			Buckets: []float64{0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 30, 60, 120, 180, 240},
		}),
	}
}

// Collectors returns the metrics to register.
func (m *Metrics) Collectors() []prometheus.Collector {
	return []prometheus.Collector{m.Deletions, m.Latency}
}

// Deleted records one deletion, at now, of a pod whose eviction was due at
// due.
func (m *Metrics) Deleted(due, now time.Time) {
	if m == nil {
		return
	}
	m.Deletions.Inc()
	m.Latency.Observe(now.Sub(due).Seconds())
}
