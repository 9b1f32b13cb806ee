package taintevictioncontroller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/evictkit/eviction/controllers/internal/deletionmetrics"
	"github.com/evictkit/eviction/controllers/internal/promreg"
)

// Metrics are upstream's taint-eviction metrics, under upstream's names.
type Metrics struct {
	del     *deletionmetrics.Metrics
	abandon prometheus.Counter
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
		del: deletionmetrics.New("taint_eviction_controller",
			"Total number of Pods deleted by TaintEvictionController since its start.",
			"Latency, in seconds, between the time when a taint effect has been activated for the Pod and its deletion via TaintEvictionController."),
		abandon: prometheus.NewCounter(prometheus.CounterOpts{
			Subsystem: "taint_eviction_controller",
			Name:      "pod_deletions_abandoned_total",
			Help:      "Total number of Pod evictions abandoned because the API server refused the deletion for good (a 4xx answer) on every attempt.",
		}),
	}
	if err := promreg.Register(reg, append(m.del.Collectors(), m.abandon)...); err != nil {
		return nil, err
	}
	return m, nil
}

// deleted records one deletion of a pod whose eviction was due at fireAt.
func (m *Metrics) deleted(fireAt, now time.Time) {
	if m == nil {
		return
	}
	m.del.Deleted(fireAt, now)
}

// abandoned records one eviction abandoned.
func (m *Metrics) abandoned() {
	if m == nil {
		return
	}
	m.abandon.Inc()
}
