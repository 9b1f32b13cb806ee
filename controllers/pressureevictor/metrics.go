package pressureevictor

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/evictkit/eviction/controllers/internal/promreg"
	"github.com/evictkit/eviction/thresholds"
)

// Metrics are the evictor's Prometheus metrics.
type Metrics struct {
	cycles    *prometheus.CounterVec
	evictions *prometheus.CounterVec
	refusals  prometheus.Counter
	failures  *prometheus.CounterVec
	summaries *prometheus.CounterVec
	observed  *prometheus.GaugeVec
}

// Cycle outcomes, the values of the outcome label of
// pressure_evictor_cycles_total.
const (
	OutcomeSkipped = "skipped" // no usable summary
	OutcomeNone    = "none"    // no threshold drove eviction
	OutcomeWaiting = "waiting" // a pod evicted earlier is still terminating
	OutcomeEvicted = "evicted" // a pod was evicted (or would be, in a dry run)
	OutcomeRefused = "refused" // every candidate was refused or none was evictable
	OutcomeFailed  = "failed"  // the Eviction API failed otherwise
)

// Causes of a skipped cycle, the values of the cause label of
// pressure_evictor_summary_failures_total.
const (
	SummaryRefused     = "refused"     // the kubelet answered 401 or 403 (ErrKubeletRefused)
	SummaryTooLarge    = "too_large"   // longer than the limit (ErrSummaryTooLarge)
	SummaryMalformed   = "malformed"   // not a summary statsummary decodes, or a figure of 2^63 or more (ErrAbsurdFigure)
	SummaryWrongNode   = "wrong_node"  // another node's summary (ErrWrongNode)
	SummaryUnavailable = "unavailable" // any other failure: unreachable, timed out, another status
)

// NewMetrics creates the metrics and registers them with reg:
//
//   - pressure_evictor_cycles_total{outcome}: cycles run, by outcome
//     (skipped, none, waiting, evicted, refused, failed);
//   - pressure_evictor_evictions_total{signal}: pods evicted (counted in a
//     dry run too), by the signal that drove the eviction;
//   - pressure_evictor_pdb_refusals_total: evictions refused with 429 (a
//     PodDisruptionBudget allows no disruption);
//   - pressure_evictor_eviction_failures_total{code}: evictions refused
//     otherwise (a 500 for a pod under two budgets, a 403 from an admission
//     webhook) or whose outcome is unknown, by HTTP status code ("unknown"
//     for a timeout or a broken connection without one);
//   - pressure_evictor_summary_failures_total{cause}: cycles skipped for
//     want of a usable summary, by cause (refused, too_large, malformed,
//     wrong_node, unavailable);
//   - pressure_evictor_signal_available{signal}: the last observed available
//     amount of each signal (bytes, inodes or PIDs).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		cycles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "pressure_evictor", Name: "cycles_total",
			Help: "Eviction cycles run, by outcome.",
		}, []string{"outcome"}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "pressure_evictor", Name: "evictions_total",
			Help: "Pods evicted through the Eviction API, by the signal that drove the eviction.",
		}, []string{"signal"}),
		refusals: prometheus.NewCounter(prometheus.CounterOpts{
			Subsystem: "pressure_evictor", Name: "pdb_refusals_total",
			Help: "Evictions refused with 429 Too Many Requests because of a PodDisruptionBudget.",
		}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "pressure_evictor", Name: "eviction_failures_total",
			Help: "Evictions refused otherwise than with 429, or whose outcome is unknown, by HTTP status code (\"unknown\" without one).",
		}, []string{"code"}),
		summaries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "pressure_evictor", Name: "summary_failures_total",
			Help: "Cycles skipped for want of a usable stats summary, by cause (refused: the kubelet answered 401 or 403, the token lacks get on nodes/stats).",
		}, []string{"cause"}),
		observed: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: "pressure_evictor", Name: "signal_available",
			Help: "Last observed available amount of each eviction signal.",
		}, []string{"signal"}),
	}
	if err := promreg.Register(reg, m.cycles, m.evictions, m.refusals, m.failures, m.summaries, m.observed); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Metrics) cycle(outcome string) {
	if m != nil {
		m.cycles.WithLabelValues(outcome).Inc()
	}
}

func (m *Metrics) evicted(s thresholds.Signal) {
	if m != nil {
		m.evictions.WithLabelValues(string(s)).Inc()
	}
}

func (m *Metrics) refused() {
	if m != nil {
		m.refusals.Inc()
	}
}

func (m *Metrics) failed(code string) {
	if m != nil {
		m.failures.WithLabelValues(code).Inc()
	}
}

func (m *Metrics) summaryFailed(cause string) {
	if m != nil {
		m.summaries.WithLabelValues(cause).Inc()
	}
}

func (m *Metrics) observe(obs thresholds.Observations) {
	if m == nil {
		return
	}
	for s, o := range obs {
		if o.Available != nil {
			m.observed.WithLabelValues(string(s)).Set(o.Available.AsApproximateFloat64())
		}
	}
}
