package nodepressure

import (
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
)

// Config configures a [Manager]. The zero value, with Thresholds from
// [thresholds.ParseConfig] of the zero [thresholds.Config], is a kubelet with
// default eviction settings on a node with one filesystem.
type Config struct {
	// Thresholds are the configured thresholds, as [thresholds.ParseConfig]
	// returns them. The containerfs thresholds are derived from them for
	// Layout ([thresholds.WithContainerFs]); containerfs thresholds given
	// here are replaced, with a warning in the first [Result].
	Thresholds []thresholds.Threshold
	// Layout is the node's disk layout, which the kubelet learns on its first
	// cycle from cAdvisor (HasDedicatedImageFs, HasDedicatedContainerFs).
	Layout thresholds.Layout
	// OS selects how memory.available is observed ([thresholds.MakeObservations]);
	// zero means Linux.
	OS thresholds.OS
	// PressureTransitionPeriod is --eviction-pressure-transition-period. Zero
	// means the kubelet's default of 5 minutes; a negative value reports no
	// node condition at all, as the kubelet does for an explicit "0s".
	PressureTransitionPeriod time.Duration
	// MaxPodGracePeriodSeconds is --eviction-max-pod-grace-period, the kill
	// grace period of pods evicted for a soft threshold (default 0).
	MaxPodGracePeriodSeconds int64
	// DisableLocalStorageCapacityIsolation turns off the local-storage limit
	// checks (the kubelet's localStorageCapacityIsolation, on by default).
	DisableLocalStorageCapacityIsolation bool
	// Ranking holds the feature gates of the pod ranking, eviction messages
	// and local-storage checks; the zero value is v1.37.2's default.
	Ranking ranking.Options
}

// Stats is one reading of the kubelet's stats summary: the node's figures,
// from which the eviction signals are observed, and each pod's usage. Package
// statsummary decodes both from the JSON the kubelet serves.
type Stats struct {
	// Node is the node-level part of the summary.
	Node thresholds.Summary
	// Pods returns each pod's usage; a pod it reports false for has no stats.
	// nil means no pod has stats.
	Pods ranking.UsageFunc
}

// Manager runs the kubelet eviction manager's cycle (synchronize) over
// successive stats readings and keeps the state that links them: when each
// threshold was first met, when each node condition was last seen, which
// thresholds drove eviction last cycle and the last observations.
//
// A Manager is not safe for concurrent use.
type Manager struct {
	eval         *thresholds.Evaluator
	layout       thresholds.Layout
	os           thresholds.OS
	localStorage bool
	opts         ranking.Options
	warnings     []error // the containerfs warnings, reported by the first cycle
	cycles       int
}

// NewManager returns a Manager for cfg. It derives the containerfs thresholds
// for cfg.Layout ([thresholds.WithContainerFs]); the warnings of that step
// are returned by the first [Manager.Synchronize]. The error wraps
// [thresholds.ErrSplitFsDisabled] for a split layout with
// KubeletSeparateDiskGC off, or [thresholds.ErrConflictingThresholds] for two
// thresholds that differ only in their minimum reclaim.
func NewManager(cfg Config) (*Manager, error) {
	ts, warnings, err := thresholds.WithContainerFs(cfg.Thresholds, cfg.Layout)
	if err != nil {
		return nil, fmt.Errorf("nodepressure: Config.Layout: %w", err)
	}
	eval, err := thresholds.NewEvaluator(ts, thresholds.Options{
		PressureTransitionPeriod: cfg.PressureTransitionPeriod,
		MaxPodGracePeriodSeconds: cfg.MaxPodGracePeriodSeconds,
	})
	if err != nil {
		return nil, fmt.Errorf("nodepressure: Config.Thresholds: %w", err)
	}
	return &Manager{
		eval:         eval,
		layout:       cfg.Layout,
		os:           cfg.OS,
		localStorage: !cfg.DisableLocalStorageCapacityIsolation,
		opts:         cfg.Ranking,
		warnings:     warnings,
	}, nil
}

// Synchronize runs one cycle of the kubelet's eviction manager at now, on
// the stats read this cycle and the pods running on
// the node, and returns what it decided:
//
//  1. the signals observed in stats.Node ([thresholds.MakeObservations]) and
//     the threshold pipeline ([thresholds.Evaluator.Observe]): thresholds met,
//     past their grace period, on fresh statistics; the node conditions to
//     report; the starved resource, if any;
//  2. the local-storage evictions (emptyDir sizeLimit, pod and container
//     ephemeral-storage limits; [ranking.LocalStorageEvictions]): if there is
//     any, the cycle ends there, as the kubelet's does;
//  3. with a starved resource: the node-level garbage collections to run
//     first ([thresholds.NodeReclaimActions]), the pods ranked for the
//     starved signal ([ranking.ForSignal]) and the victim, the first
//     [ranking.Evictable] pod, with its kill grace period, eviction message,
//     event annotations and the PodStatus the kubelet writes.
//
// The first cycle also returns the warnings of the containerfs step.
// activePods is neither reordered nor modified; Result.Ranked is a new slice.
func (m *Manager) Synchronize(now time.Time, stats Stats, activePods []*v1.Pod) Result {
	r := Result{Time: now}
	if m.cycles == 0 {
		r.Warnings = m.warnings
	}
	m.cycles++
	if len(m.eval.Thresholds()) == 0 && !m.localStorage {
		return r
	}
	obs := thresholds.MakeObservations(stats.Node, m.os)
	r.Observations = obs
	r.Evaluation = m.eval.Observe(now, obs)
	r.Conditions = r.Evaluation.Conditions

	if m.localStorage {
		for _, e := range ranking.LocalStorageEvictions(activePods, stats.Pods, m.layout, m.opts) {
			r.LocalStorage = append(r.LocalStorage, Eviction{
				Pod:                e.Pod,
				GracePeriodSeconds: ranking.LocalStorageGracePeriodSeconds,
				Message:            e.Message,
				Status:             ranking.LocalStorageEvictedStatus(e.Pod, e.Message),
			})
		}
		if len(r.LocalStorage) > 0 {
			return r
		}
	}

	ev := r.Evaluation
	if !ev.Reclaim {
		return r
	}
	r.NodeReclaim = thresholds.NodeReclaimActions(ev.Signal, m.layout)
	if len(activePods) == 0 {
		return r
	}
	r.Ranked = slices.Clone(activePods)
	if err := ranking.ForSignal(r.Ranked, stats.Pods, ev.Signal, m.layout, m.opts); err != nil {
		// Unreachable: a starved resource always has a known signal.
		r.Ranked = nil
		return r
	}
	victim, ok := ranking.Victim(r.Ranked)
	if !ok {
		return r
	}
	msg, annotations := ranking.EvictionMessage(ev.Resource, victim, stats.Pods,
		thresholds.ByEvictionPriority(ev.Fresh), obs, m.opts)
	r.Victim = &Eviction{
		Pod:                victim,
		GracePeriodSeconds: ev.GracePeriodOverride(victim),
		Message:            msg,
		Annotations:        annotations,
		Status:             ranking.EvictedStatus(victim, msg, now),
	}
	return r
}

// ReclaimSatisfied reports whether the node-level garbage collection a
// [Result] asked for ([Result.NodeReclaim]) made its eviction unnecessary:
// after is the stats summary read once the collections ran, and no configured
// threshold is met on it with its minimum reclaim added (upstream:
// reclaimNodeLevelResources). Like the kubelet, any met threshold, even one
// still in its grace period, makes the reclaim count as failed. When it
// reports true, the caller skips [Result.Victim]; otherwise it evicts it. It
// does not change the manager's state.
func (m *Manager) ReclaimSatisfied(after thresholds.Summary) bool {
	return m.eval.ReclaimSatisfied(thresholds.MakeObservations(after, m.os))
}

// Conditions returns the node conditions reported after the last cycle, in
// the order MemoryPressure, DiskPressure, PIDPressure. Admission under
// pressure reads them.
func (m *Manager) Conditions() []v1.NodeConditionType {
	return m.eval.Conditions()
}

// State returns a copy of the threshold pipeline's memory between cycles:
// when each met threshold was first observed, when each node condition was
// last seen, and the last cycle's observations.
func (m *Manager) State() thresholds.State {
	return m.eval.State()
}

// Thresholds returns a copy of the thresholds the manager evaluates: the
// configured ones with the containerfs thresholds derived for the layout.
func (m *Manager) Thresholds() []thresholds.Threshold {
	return m.eval.Thresholds()
}
