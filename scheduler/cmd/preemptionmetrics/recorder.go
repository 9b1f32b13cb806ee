// Package preemptionmetrics records the EvictkitPreemption plugin's
// measurements in kube-scheduler's own metrics, the ones DefaultPreemption
// records (k8s.io/kubernetes pkg/scheduler/metrics), so that dashboards and
// alerts built on them keep working when the plugin replaces
// DefaultPreemption:
//
//   - scheduler_preemption_attempts_total, once per PostFilter call;
//   - scheduler_preemption_evaluation_duration_seconds{preemptor="pod", result};
//   - scheduler_preemption_victims and
//     scheduler_preemption_pdb_violations_total{preemptor="pod"}, once a node
//     is chosen;
//   - scheduler_preemption_execution_duration_seconds{preemptor="pod", result},
//     scheduler_preemption_goroutines_duration_seconds{result} and
//     scheduler_preemption_goroutines_execution_total{result}, when a
//     preemption carried out in the background ends.
//
// kube-scheduler registers them (some only under the feature gates that
// register them for DefaultPreemption) before it builds its plugins. The
// plugin module cannot do this itself: it does not import k8s.io/kubernetes.
package preemptionmetrics

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/metrics"

	"github.com/evictkit/eviction/scheduler/preemptionplugin"
)

// Recorder is a [preemptionplugin.Metrics] that records in kube-scheduler's
// metrics. Use it once kube-scheduler's metrics.Register has run, as it has
// when the scheduler builds its plugins.
type Recorder struct{}

var _ preemptionplugin.Metrics = Recorder{}

// preemptor is the preemptor label of a single pod's preemption.
const preemptor = string(fwk.PodKeyType)

// Attempt counts a preemption attempt.
func (Recorder) Attempt() { metrics.PreemptionAttempts.Inc() }

// Evaluated records the evaluation's duration under its result.
func (Recorder) Evaluated(result string, took time.Duration) {
	metrics.PreemptionEvaluationDuration.WithLabelValues(preemptor, result).Observe(took.Seconds())
}

// Chosen records the number of victims and the PDB violations, if any.
func (Recorder) Chosen(victims, pdbViolations int) {
	metrics.PreemptionVictims.Observe(float64(victims))
	if pdbViolations > 0 {
		metrics.PreemptionPDBViolations.WithLabelValues(preemptor).Add(float64(pdbViolations))
	}
}

// Executed records a background preemption that ended.
func (Recorder) Executed(result string, took time.Duration) {
	metrics.PreemptionExecutionDuration.WithLabelValues(preemptor, result).Observe(took.Seconds())
	metrics.PreemptionGoroutinesDuration.WithLabelValues(result).Observe(took.Seconds())
	metrics.PreemptionGoroutinesExecutionTotal.WithLabelValues(result).Inc()
}

// NewPlugin is the plugin factory for app.WithPlugin: [preemptionplugin.New]
// with a [Recorder].
func NewPlugin(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return preemptionplugin.NewWithOptions(ctx, args, h, preemptionplugin.Options{Metrics: Recorder{}})
}
