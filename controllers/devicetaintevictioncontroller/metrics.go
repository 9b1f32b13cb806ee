package devicetaintevictioncontroller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/evictkit/eviction/controllers/internal/deletionmetrics"
	"github.com/evictkit/eviction/controllers/internal/promreg"
)

// Metrics are upstream's device-taint eviction metrics, under upstream's
// names.
type Metrics struct{ del *deletionmetrics.Metrics }

// NewMetrics creates the metrics and registers them with reg:
//
//   - device_taint_eviction_controller_pod_deletions_total: pods deleted
//     since start (a pod found being deleted already counts, as upstream
//     counts it);
//   - device_taint_eviction_controller_pod_deletion_duration_seconds:
//     seconds from the time a pod's eviction was due to its deletion, in
//     upstream's buckets (5 ms to 4 min).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := deletionmetrics.New("device_taint_eviction_controller",
		"Total number of Pods deleted by DeviceTaintEvictionController since its start.",
		"Latency, in seconds, between the time when a device taint effect has been activated and a Pod's deletion via DeviceTaintEvictionController.")
	if err := promreg.Register(reg, m.Collectors()...); err != nil {
		return nil, err
	}
	return &Metrics{del: m}, nil
}

// deleted records one deletion of a pod whose eviction was due at due.
func (m *Metrics) deleted(due, now time.Time) {
	if m == nil {
		return
	}
	m.del.Deleted(due, now)
}
