package nodelifecyclecontroller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/evictkit/eviction/nodelifecycle"
)

// Metrics are upstream's node lifecycle metrics, under upstream's names
// (subsystem node_collector), labelled by zone key.
type Metrics struct {
	zoneHealth, zoneSize, unhealthy *prometheus.GaugeVec
	evictions                       *prometheus.CounterVec
	allNodes                        prometheus.Histogram
}

// NewMetrics creates the metrics and registers them with reg:
// node_collector_zone_health (percentage of ready nodes),
// node_collector_zone_size, node_collector_unhealthy_nodes_in_zone,
// node_collector_evictions_total (nodes tainted NoExecute from a zone's
// queue) and node_collector_update_all_nodes_health_duration_seconds.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	zone := []string{"zone"}
	m := &Metrics{
		zoneHealth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "node_collector", Name: "zone_health", Help: "Gauge measuring percentage of healthy nodes per zone."}, zone),
		zoneSize:   prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "node_collector", Name: "zone_size", Help: "Gauge measuring number of registered Nodes per zones."}, zone),
		unhealthy:  prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "node_collector", Name: "unhealthy_nodes_in_zone", Help: "Gauge measuring number of not Ready Nodes per zones."}, zone),
		evictions:  prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "node_collector", Name: "evictions_total", Help: "Number of Node evictions that happened since current instance of NodeController started."}, zone),
		allNodes: prometheus.NewHistogram(prometheus.HistogramOpts{Subsystem: "node_collector", Name: "update_all_nodes_health_duration_seconds",
			Help: "Duration in seconds for NodeController to update the health of all nodes.", Buckets: prometheus.ExponentialBuckets(0.01, 4, 8)}),
	}
	for _, c := range []prometheus.Collector{m.zoneHealth, m.zoneSize, m.unhealthy, m.evictions, m.allNodes} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *Metrics) pass(res nodelifecycle.PassResult, took time.Duration) {
	if m == nil {
		return
	}
	m.allNodes.Observe(took.Seconds())
	for zone, n := range res.Counts {
		size := n.Size()
		m.zoneSize.WithLabelValues(zone).Set(float64(size))
		m.unhealthy.WithLabelValues(zone).Set(float64(n.NotReady))
		health := 100.0
		if size > 0 {
			health = float64(100*n.Ready) / float64(size)
		}
		m.zoneHealth.WithLabelValues(zone).Set(health)
		m.evictions.WithLabelValues(zone).Add(0)
	}
	for _, zone := range res.Disruption.Dropped {
		m.zoneSize.WithLabelValues(zone).Set(0)
		m.zoneHealth.WithLabelValues(zone).Set(100)
		m.unhealthy.WithLabelValues(zone).Set(0)
	}
}

func (m *Metrics) evicted(zone string) {
	if m != nil {
		m.evictions.WithLabelValues(zone).Inc()
	}
}
