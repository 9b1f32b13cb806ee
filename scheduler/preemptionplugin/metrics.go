package preemptionplugin

import "time"

// Metrics receives what DefaultPreemption records in kube-scheduler's own
// metrics, at the same moments, so that a scheduler binary records the
// plugin's preemptions under the same names: those metrics live in
// k8s.io/kubernetes, which this module does not import. Set it through
// [Options.Metrics]; the scheduler module's cmd/ wires it to kube-scheduler's
// metrics. Its methods may be called from several goroutines at once.
//
// The framework records the rest itself, for any PostFilter plugin:
// scheduler_plugin_execution_duration_seconds and
// scheduler_framework_extension_point_duration_seconds, and
// scheduler_goroutines{operation="EvictkitPreemption"} while victims are
// preempted in parallel.
type Metrics interface {
	// Attempt counts one PostFilter call, whatever its outcome
	// (scheduler_preemption_attempts_total).
	Attempt()
	// Evaluated records how long finding the node and its victims took, and
	// the outcome: the name of the status code before the preemption is
	// carried out, "Success", "Unschedulable" or "Error"
	// (scheduler_preemption_evaluation_duration_seconds{preemptor="pod",
	// result}).
	Evaluated(result string, took time.Duration)
	// Chosen records the victims of a chosen node, before they are
	// preempted: their number (scheduler_preemption_victims) and, when
	// pdbViolations > 0, the PodDisruptionBudget violations
	// (scheduler_preemption_pdb_violations_total{preemptor="pod"}).
	Chosen(victims, pdbViolations int)
	// Executed records a preemption carried out in the background, when it
	// had a victim not yet terminating to preempt: how long it took and
	// its result, "success" or "error" (a failed API call)
	// (scheduler_preemption_execution_duration_seconds{preemptor="pod",
	// result}, scheduler_preemption_goroutines_duration_seconds{result} and
	// scheduler_preemption_goroutines_execution_total{result}).
	Executed(result string, took time.Duration)
}

// Results of a preemption carried out, as [Metrics.Executed] reports them.
const (
	ResultSuccess = "success"
	ResultError   = "error"
)

// noMetrics is the Metrics of a plugin without any.
type noMetrics struct{}

func (noMetrics) Attempt()                        {}
func (noMetrics) Evaluated(string, time.Duration) {}
func (noMetrics) Chosen(int, int)                 {}
func (noMetrics) Executed(string, time.Duration)  {}

var _ Metrics = noMetrics{}
