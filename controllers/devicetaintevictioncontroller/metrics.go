package devicetaintevictioncontroller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are upstream's device-taint eviction metrics, under upstream's
// names.
type Metrics struct {
	deletions prometheus.Counter
	latency   prometheus.Histogram
}

// NewMetrics creates the metrics and registers them with reg:
//
//   - device_taint_eviction_controller_pod_deletions_total: pods deleted
//     since start (a pod found being deleted already counts, as upstream
//     counts it);
//   - device_taint_eviction_controller_pod_deletion_duration_seconds:
//     seconds from the time a pod's eviction was due to its deletion, in
//     upstream's buckets (5 ms to 4 min).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		deletions: prometheus.NewCounter(prometheus.CounterOpts{
			Subsystem: "device_taint_eviction_controller",
			Name:      "pod_deletions_total",
			Help:      "Total number of Pods deleted by DeviceTaintEvictionController since its start.",
		}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Subsystem: "device_taint_eviction_controller",
			Name:      "pod_deletion_duration_seconds",
			Help:      "Latency, in seconds, between the time when a device taint effect has been activated and a Pod's deletion via DeviceTaintEvictionController.",
			Buckets:   []float64{0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 30, 60, 120, 180, 240},
		}),
	}
	for _, col := range []prometheus.Collector{m.deletions, m.latency} {
		if err := reg.Register(col); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// deleted records one deletion of a pod whose eviction was due at due.
func (m *Metrics) deleted(due, now time.Time) {
	if m == nil {
		return
	}
	m.deletions.Inc()
	m.latency.Observe(now.Sub(due).Seconds())
}
