package nodelifecyclecontroller

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/evictkit/eviction/controllers/internal/promreg"
	"github.com/evictkit/eviction/nodelifecycle"
)

// Metrics are upstream's node lifecycle metrics, under upstream's names
// (subsystem node_collector), help texts and buckets; the zone ones are
// labelled by zone key.
type Metrics struct {
	zoneHealth, zoneSize, unhealthy *prometheus.GaugeVec
	evictions                       *prometheus.CounterVec
	node, allNodes                  prometheus.Histogram
}

// NewMetrics creates the metrics and registers them with reg:
//
//   - node_collector_zone_health: percentage of the zone's counted nodes
//     that are ready;
//   - node_collector_zone_size: nodes counted in the zone;
//   - node_collector_unhealthy_nodes_in_zone: of those, the not ready;
//   - node_collector_evictions_total: nodes tainted NoExecute from the
//     zone's rate-limited queue (0 from the zone's first pass);
//   - node_collector_update_node_health_duration_seconds: seconds one pass
//     spent on one node (its judgement, status write, taints and pods), in
//     buckets from 1 ms to about 16 s;
//   - node_collector_update_all_nodes_health_duration_seconds: seconds one
//     whole pass took, in buckets from 10 ms to about 164 s.
//
// Upstream's registry shows its stability level in front of each help text
// ("[ALPHA] ", "[STABLE] " for evictions_total); these carry the text alone.
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	zone := []string{"zone"}
	const sub = "node_collector"
	m := &Metrics{
		zoneHealth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: sub, Name: "zone_health",
			Help: "Gauge measuring percentage of healthy nodes per zone."}, zone),
		zoneSize: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: sub, Name: "zone_size",
			Help: "Gauge measuring number of registered Nodes per zones."}, zone),
		unhealthy: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: sub, Name: "unhealthy_nodes_in_zone",
			Help: "Gauge measuring number of not Ready Nodes per zones."}, zone),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: sub, Name: "evictions_total",
			Help: "Number of Node evictions that happened since current instance of NodeController started."}, zone),
		node: prometheus.NewHistogram(prometheus.HistogramOpts{Subsystem: sub, Name: "update_node_health_duration_seconds",
			Help:    "Duration in seconds for NodeController to update the health of a single node.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 8)}),
		allNodes: prometheus.NewHistogram(prometheus.HistogramOpts{Subsystem: sub, Name: "update_all_nodes_health_duration_seconds",
			Help:    "Duration in seconds for NodeController to update the health of all nodes.",
			Buckets: prometheus.ExponentialBuckets(0.01, 4, 8)}),
	}
	if err := promreg.Register(reg, m.zoneHealth, m.zoneSize, m.unhealthy, m.evictions, m.node, m.allNodes); err != nil {
		return nil, err
	}
	return m, nil
}

// passTook observes one whole pass.
func (m *Metrics) passTook(d time.Duration) {
	if m != nil {
		m.allNodes.Observe(d.Seconds())
	}
}

// nodeTook observes one node's turn in a pass.
func (m *Metrics) nodeTook(d time.Duration) {
	if m != nil {
		m.node.Observe(d.Seconds())
	}
}

// zones sets the zone gauges from a pass, as upstream's handleDisruption
// does, and starts evictions_total at 0 for every zone with a queue (upstream
// does so when it creates the queue).
func (m *Metrics) zones(res nodelifecycle.PassResult, queues map[string]nodelifecycle.QueueStatus) {
	if m == nil {
		return
	}
	for zone, n := range res.Counts {
		size := n.Size()
		m.zoneSize.WithLabelValues(zone).Set(float64(size))
		m.unhealthy.WithLabelValues(zone).Set(float64(n.NotReady))
		health := 100.0
		if size > 0 {
			health = float64(100*n.Ready) / float64(size)
		}
		m.zoneHealth.WithLabelValues(zone).Set(health)
	}
	for _, zone := range res.Disruption.Dropped {
		m.zoneSize.WithLabelValues(zone).Set(0)
		m.zoneHealth.WithLabelValues(zone).Set(100)
		m.unhealthy.WithLabelValues(zone).Set(0)
	}
	for zone := range queues {
		m.evictions.WithLabelValues(zone).Add(0)
	}
}

// evicted counts a node tainted NoExecute from its zone's queue.
func (m *Metrics) evicted(zone string) {
	if m != nil {
		m.evictions.WithLabelValues(zone).Inc()
	}
}
