package pressureevictor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/evictkit/eviction/nodepressure"
	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/statsummary"
	"github.com/evictkit/eviction/thresholds"
)

// Name is the program's name: its event source and user agent.
const Name = "pressure-evictor"

// DefaultInterval is the time between two cycles when Config.Interval is
// zero, the kubelet's eviction monitoring period.
const DefaultInterval = 10 * time.Second

// Event reasons.
const (
	// ReasonEvicted is the reason of the event on an evicted pod, the
	// kubelet's.
	ReasonEvicted = "Evicted"
	// ReasonDryRun is the reason of the event on the pod a dry run would
	// evict.
	ReasonDryRun = "EvictionDryRun"
	// ReasonSummaryUnavailable is the reason of the event on the Node when a
	// cycle is skipped because its summary could not be read or decoded.
	ReasonSummaryUnavailable = "SummaryUnavailable"
)

// ErrInvalidConfig is wrapped by New's errors.
var ErrInvalidConfig = errors.New("invalid configuration")

// Config configures an Evictor. Client, Node, Pods, Source and Thresholds are
// required.
type Config struct {
	// Client evicts pods (policy/v1 Eviction) and, unless Recorder is set,
	// records events.
	Client kubernetes.Interface
	// Node is the name of the node whose pods are evicted.
	Node string
	// Pods lists the pods; only those with spec.nodeName Node are read
	// (an informer with a spec.nodeName field selector keeps it small).
	Pods corelisters.PodLister
	// PodsSynced reports whether Pods has synced; Run waits for it. nil
	// means synced.
	PodsSynced func() bool
	// Source reads the node's stats summary.
	Source SummarySource
	// Thresholds are the thresholds evaluated, as ParseThresholds returns
	// them.
	Thresholds []thresholds.Threshold
	// Layout is the node's disk layout; the zero value is one filesystem.
	Layout thresholds.Layout
	// Ranking holds the feature gates of the pod ranking; the zero value is
	// v1.37.2's defaults.
	Ranking ranking.Options
	// Interval is the time between cycles; zero means DefaultInterval.
	Interval time.Duration
	// DryRun logs and records events for what would be evicted, and evicts
	// nothing.
	DryRun bool
	// Recorder records the events; nil means one writing to Client.
	Recorder record.EventRecorder
	// Metrics, if non-nil, are updated every cycle.
	Metrics *Metrics
	// Logger logs every decision; nil discards.
	Logger *slog.Logger
	// Clock times the cycles and the grace periods; nil means the real clock.
	Clock clock.WithTicker
}

// Evictor evicts pods of one node through the Eviction API when the node's
// stats meet a threshold; see the package doc.
type Evictor struct {
	cfg     Config
	manager *nodepressure.Manager
	log     *slog.Logger
	// pending are the pods evicted and not yet gone from the node, with the
	// time after which they no longer hold back the next eviction.
	pending map[types.UID]time.Time
}

// New returns an Evictor for cfg. The error wraps ErrInvalidConfig for a
// missing field, or nodepressure.NewManager's error.
func New(cfg Config) (*Evictor, error) {
	switch {
	case cfg.Client == nil:
		return nil, fmt.Errorf("pressureevictor: no Client: %w", ErrInvalidConfig)
	case cfg.Node == "":
		return nil, fmt.Errorf("pressureevictor: no Node: %w", ErrInvalidConfig)
	case cfg.Pods == nil:
		return nil, fmt.Errorf("pressureevictor: no Pods lister: %w", ErrInvalidConfig)
	case cfg.Source == nil:
		return nil, fmt.Errorf("pressureevictor: no summary Source: %w", ErrInvalidConfig)
	case len(cfg.Thresholds) == 0:
		return nil, fmt.Errorf("pressureevictor: no Thresholds: %w", ErrInvalidConfig)
	case cfg.Interval < 0:
		return nil, fmt.Errorf("pressureevictor: negative Interval %v: %w", cfg.Interval, ErrInvalidConfig)
	}
	if cfg.Interval == 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m, err := nodepressure.NewManager(nodepressure.Config{
		Thresholds:                           cfg.Thresholds,
		Layout:                               cfg.Layout,
		PressureTransitionPeriod:             -1, // conditions are the kubelet's to report
		DisableLocalStorageCapacityIsolation: true,
		Ranking:                              cfg.Ranking,
		Clock:                                cfg.Clock,
	})
	if err != nil {
		return nil, wrapped{err}
	}
	return &Evictor{cfg: cfg, manager: m, log: log, pending: map[types.UID]time.Time{}}, nil
}

// Run runs a cycle every Config.Interval, the first at once, until ctx ends;
// it returns nil then. It waits for Config.PodsSynced first.
func (e *Evictor) Run(ctx context.Context) error {
	if e.cfg.Recorder == nil {
		b := record.NewBroadcaster(record.WithContext(ctx))
		b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: e.cfg.Client.CoreV1().Events("")})
		defer b.Shutdown()
		e.cfg.Recorder = b.NewRecorder(scheme.Scheme, v1.EventSource{Component: Name, Host: e.cfg.Node})
	}
	if e.cfg.PodsSynced != nil {
		t := e.cfg.Clock.NewTicker(100 * time.Millisecond)
		for !e.cfg.PodsSynced() {
			select {
			case <-ctx.Done():
				t.Stop()
				return nil
			case <-t.C():
			}
		}
		t.Stop()
	}
	t := e.cfg.Clock.NewTicker(e.cfg.Interval)
	defer t.Stop()
	for {
		e.cycle(ctx)
		select {
		case <-ctx.Done():
			return nil
		case <-t.C():
		}
	}
}

// report is what one cycle did.
type report struct {
	outcome string
	evicted *v1.Pod
	refused []*v1.Pod
}

// cycle runs one cycle: read and decode the summary, run the eviction
// manager's step, evict the first candidate that may go.
func (e *Evictor) cycle(ctx context.Context) report {
	r := e.run(ctx)
	e.cfg.Metrics.cycle(r.outcome)
	return r
}

func (e *Evictor) run(ctx context.Context) report {
	node := &v1.ObjectReference{Kind: "Node", Name: e.cfg.Node, UID: types.UID(e.cfg.Node)}
	data, err := e.cfg.Source.Summary(ctx)
	var s *statsummary.Summary
	if err == nil {
		s, err = statsummary.Decode(data)
	}
	if err != nil {
		e.log.Warn("cycle skipped", "node", e.cfg.Node, "err", err)
		e.event(node, nil, v1.EventTypeWarning, ReasonSummaryUnavailable, "Eviction cycle skipped: "+err.Error())
		return report{outcome: OutcomeSkipped}
	}

	all, err := e.cfg.Pods.List(labels.Everything())
	if err != nil {
		e.log.Warn("cycle skipped", "node", e.cfg.Node, "err", err)
		return report{outcome: OutcomeSkipped}
	}
	var active []*v1.Pod
	onNode := map[types.UID]bool{}
	for _, pod := range all {
		if pod.Spec.NodeName != e.cfg.Node || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
			continue
		}
		onNode[pod.UID] = true
		if pod.DeletionTimestamp == nil {
			active = append(active, pod)
		}
	}
	now := e.cfg.Clock.Now()
	for uid, until := range e.pending {
		if !onNode[uid] || now.After(until) {
			delete(e.pending, uid)
		}
	}

	res := e.manager.Synchronize(nodepressure.Stats{Node: s.Node, Pods: s.Usage}, active)
	e.cfg.Metrics.observe(res.Observations)
	ev := res.Evaluation
	if !ev.Reclaim {
		return report{outcome: OutcomeNone}
	}
	if len(e.pending) > 0 {
		e.log.Info("waiting for an evicted pod to terminate", "node", e.cfg.Node, "signal", ev.Signal)
		return report{outcome: OutcomeWaiting}
	}

	var rep report
	met := thresholds.ByEvictionPriority(ev.Fresh)
	for _, pod := range res.Ranked {
		if !ranking.Evictable(pod) {
			continue
		}
		var msg string
		var annotations map[string]string
		if res.Victim != nil && res.Victim.Pod == pod {
			msg, annotations = res.Victim.Message, res.Victim.Annotations
		} else {
			msg, annotations = ranking.EvictionMessage(ev.Resource, pod, s.Usage, met, res.Observations, e.cfg.Ranking)
		}
		log := e.log.With("pod", pod.Namespace+"/"+pod.Name, "signal", ev.Signal, "threshold", ev.Threshold.String())
		if e.cfg.DryRun {
			log.Info("would evict", "message", msg)
			e.event(pod, annotations, v1.EventTypeWarning, ReasonDryRun, "Dry run, not evicted: "+msg)
			e.cfg.Metrics.evicted(ev.Signal)
			rep.outcome, rep.evicted = OutcomeEvicted, pod
			return rep
		}
		err := e.cfg.Client.PolicyV1().Evictions(pod.Namespace).Evict(ctx, &policyv1.Eviction{
			ObjectMeta:    metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name},
			DeleteOptions: &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &pod.UID}},
		})
		switch {
		case err == nil:
			log.Info("evicted", "message", msg)
			e.event(pod, annotations, v1.EventTypeWarning, ReasonEvicted, msg)
			e.cfg.Metrics.evicted(ev.Signal)
			e.pending[pod.UID] = now.Add(terminationWait(pod))
			rep.outcome, rep.evicted = OutcomeEvicted, pod
			return rep
		case apierrors.IsTooManyRequests(err):
			log.Info("eviction refused, trying the next pod", "err", err)
			e.cfg.Metrics.refused()
			rep.refused = append(rep.refused, pod)
		case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
			// Gone, or replaced by a pod of the same name: not ours to evict.
			log.Info("pod gone, trying the next pod", "err", err)
		default:
			log.Warn("eviction failed", "err", err)
			rep.outcome = OutcomeFailed
			return rep
		}
	}
	e.log.Info("no pod could be evicted this cycle", "node", e.cfg.Node, "signal", ev.Signal, "refused", len(rep.refused))
	rep.outcome = OutcomeRefused
	return rep
}

// cleanupTimeout is how long past its termination grace period an evicted pod
// still on the node holds back the next eviction, the kubelet's wait for an
// evicted pod's cleanup.
const cleanupTimeout = 30 * time.Second

// terminationWait is how long an evicted pod may take to go before the next
// eviction proceeds without it: its termination grace period (default 30 s)
// and cleanupTimeout.
func terminationWait(pod *v1.Pod) time.Duration {
	grace := int64(v1.DefaultTerminationGracePeriodSeconds)
	if pod.Spec.TerminationGracePeriodSeconds != nil && *pod.Spec.TerminationGracePeriodSeconds >= 0 {
		grace = *pod.Spec.TerminationGracePeriodSeconds
	}
	return time.Duration(grace)*time.Second + cleanupTimeout
}

func (e *Evictor) event(obj runtime.Object, annotations map[string]string, kind, reason, msg string) {
	if e.cfg.Recorder != nil {
		e.cfg.Recorder.AnnotatedEventf(obj, annotations, kind, reason, "%s", msg)
	}
}
