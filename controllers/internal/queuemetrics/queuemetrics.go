// Package queuemetrics reports the metrics of the library's timed queues
// under client-go's workqueue names (workqueue_depth, workqueue_adds_total,
// workqueue_queue_duration_seconds, workqueue_work_duration_seconds,
// workqueue_unfinished_work_seconds,
// workqueue_longest_running_processor_seconds, workqueue_retries_total),
// labelled by queue name, as kube-controller-manager exposes them.
package queuemetrics

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"

	"github.com/evictkit/eviction/controllers/internal/promreg"
	"github.com/evictkit/eviction/timedqueue"
)

// Provider creates the metrics of each named queue; it satisfies
// timedqueue.MetricsProvider.
type Provider struct {
	depth, unfinished, longest *prometheus.GaugeVec
	adds, retries              *prometheus.CounterVec
	latency, work              *prometheus.HistogramVec
}

var _ timedqueue.MetricsProvider = (*Provider)(nil)

// New returns a provider whose metrics are registered with reg.
func New(reg prometheus.Registerer) (*Provider, error) {
	buckets := prometheus.ExponentialBuckets(10e-9, 10, 12) // client-go's: 10 ns to 1000 s
	label := []string{"name"}
	p := &Provider{
		depth:      prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "depth", Help: "Current depth of workqueue"}, label),
		adds:       prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: "adds_total", Help: "Total number of adds handled by workqueue"}, label),
		latency:    prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: "queue_duration_seconds", Help: "How long in seconds an item stays in workqueue before being requested.", Buckets: buckets}, label),
		work:       prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: "work_duration_seconds", Help: "How long in seconds processing an item from workqueue takes.", Buckets: buckets}, label),
		unfinished: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "unfinished_work_seconds", Help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases."}, label),
		longest:    prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "longest_running_processor_seconds", Help: "How many seconds has the longest running processor for workqueue been running."}, label),
		retries:    prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: "retries_total", Help: "Total number of retries handled by workqueue"}, label),
	}
	if err := promreg.Register(reg, p.depth, p.adds, p.latency, p.work, p.unfinished, p.longest, p.retries); err != nil {
		return nil, err
	}
	return p, nil
}

// NewDepthMetric returns the queue's workqueue_depth.
func (p *Provider) NewDepthMetric(name string) timedqueue.GaugeMetric {
	return p.depth.WithLabelValues(name)
}

// NewAddsMetric returns the queue's workqueue_adds_total.
func (p *Provider) NewAddsMetric(name string) timedqueue.CounterMetric {
	return p.adds.WithLabelValues(name)
}

// NewLatencyMetric returns the queue's workqueue_queue_duration_seconds.
func (p *Provider) NewLatencyMetric(name string) timedqueue.HistogramMetric {
	return p.latency.WithLabelValues(name)
}

// NewWorkDurationMetric returns the queue's workqueue_work_duration_seconds.
func (p *Provider) NewWorkDurationMetric(name string) timedqueue.HistogramMetric {
	return p.work.WithLabelValues(name)
}

// NewUnfinishedWorkSecondsMetric returns the queue's
// workqueue_unfinished_work_seconds.
func (p *Provider) NewUnfinishedWorkSecondsMetric(name string) timedqueue.SettableGaugeMetric {
	return p.unfinished.WithLabelValues(name)
}

// NewLongestRunningProcessorSecondsMetric returns the queue's
// workqueue_longest_running_processor_seconds.
func (p *Provider) NewLongestRunningProcessorSecondsMetric(name string) timedqueue.SettableGaugeMetric {
	return p.longest.WithLabelValues(name)
}

// NewRetriesMetric returns the queue's workqueue_retries_total.
func (p *Provider) NewRetriesMetric(name string) timedqueue.CounterMetric {
	return p.retries.WithLabelValues(name)
}

// Workqueue returns p as client-go's workqueue.MetricsProvider, for the
// client-go queues a controller runs beside the library's (the node
// lifecycle controller's node and pod queues): the same metric vectors,
// so both kinds of queue report under one set of names.
func (p *Provider) Workqueue() workqueue.MetricsProvider { return clientGoProvider{p} }

type clientGoProvider struct{ p *Provider }

func (c clientGoProvider) NewDepthMetric(name string) workqueue.GaugeMetric {
	return c.p.depth.WithLabelValues(name)
}

func (c clientGoProvider) NewAddsMetric(name string) workqueue.CounterMetric {
	return c.p.adds.WithLabelValues(name)
}

func (c clientGoProvider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return c.p.latency.WithLabelValues(name)
}

func (c clientGoProvider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return c.p.work.WithLabelValues(name)
}

func (c clientGoProvider) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return c.p.unfinished.WithLabelValues(name)
}

func (c clientGoProvider) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return c.p.longest.WithLabelValues(name)
}

func (c clientGoProvider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return c.p.retries.WithLabelValues(name)
}
