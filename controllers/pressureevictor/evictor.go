package pressureevictor

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"
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
	// ReasonEvictionFailed is the reason of the event on a pod whose
	// eviction the API server refused otherwise than with 429, or whose
	// outcome is unknown.
	ReasonEvictionFailed = "EvictionFailed"
)

// DefaultMaxPodGracePeriodSeconds is the cap on the grace period of an
// evicted pod when Config.MaxPodGracePeriodSeconds is nil: five minutes.
// (The kubelet's --eviction-max-pod-grace-period defaults to 0, which the
// kubelet can afford for a kill; through the API a grace period of 0 is a
// forced deletion, which the evictor exists to avoid.)
const DefaultMaxPodGracePeriodSeconds int64 = 300

// DefaultCycleTimeout bounds one cycle (summary read, evictions) when
// Config.CycleTimeout is zero.
const DefaultCycleTimeout = 30 * time.Second

// staleCycles is how many intervals (past the cycle timeout) may go by
// without a completed cycle before Healthy reports the evictor stuck.
const staleCycles = 3

// ErrInvalidConfig is wrapped by the errors of New and NewKubeletSource.
var ErrInvalidConfig = errors.New("invalid configuration")

// ErrWrongNode is wrapped by the error of a cycle skipped because the
// summary read was another node's.
var ErrWrongNode = errors.New("summary of another node")

// ErrStale is wrapped by Healthy's error when no cycle completed lately.
var ErrStale = errors.New("no recent cycle")

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
	// CycleTimeout bounds each cycle: the summary read and the evictions
	// are cancelled past it (the cycle is skipped or ends). Zero means
	// DefaultCycleTimeout.
	CycleTimeout time.Duration
	// MaxPodGracePeriodSeconds is the kubelet's
	// --eviction-max-pod-grace-period: the longest grace period, in
	// seconds, an evicted pod gets. When the pod's own
	// terminationGracePeriodSeconds is longer, the Eviction asks for this
	// one instead (at least 1 s: 0 would be a forced deletion), and the next
	// eviction waits for this one. Negative defers to the pod's own value
	// (the wait saturates rather than overflows); nil means
	// DefaultMaxPodGracePeriodSeconds. Unlike the kubelet, which applies it
	// to soft thresholds only and kills at once on hard ones, the evictor
	// applies it to every eviction.
	MaxPodGracePeriodSeconds *int64
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
	// pending are the pods evicted (or whose eviction's outcome is unknown)
	// and the pods of the node seen terminating, not yet gone from the
	// node, with the time after which they no longer hold back the next
	// eviction.
	pending map[types.UID]time.Time
	// lastCycle is when the last cycle completed (at first, when the
	// Evictor was made), in Unix nanoseconds of Config.Clock.
	lastCycle atomic.Int64
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
	case cfg.CycleTimeout < 0:
		return nil, fmt.Errorf("pressureevictor: negative CycleTimeout %v: %w", cfg.CycleTimeout, ErrInvalidConfig)
	}
	if cfg.Interval == 0 {
		cfg.Interval = DefaultInterval
	}
	if cfg.CycleTimeout == 0 {
		cfg.CycleTimeout = DefaultCycleTimeout
	}
	if cfg.MaxPodGracePeriodSeconds == nil {
		d := DefaultMaxPodGracePeriodSeconds
		cfg.MaxPodGracePeriodSeconds = &d
	} else {
		d := *cfg.MaxPodGracePeriodSeconds
		cfg.MaxPodGracePeriodSeconds = &d
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
	})
	if err != nil {
		return nil, fmt.Errorf("pressureevictor: %w", err)
	}
	e := &Evictor{cfg: cfg, manager: m, log: log, pending: map[types.UID]time.Time{}}
	e.lastCycle.Store(cfg.Clock.Now().UnixNano())
	return e, nil
}

// Healthy returns nil while cycles complete: it returns an error wrapping
// ErrStale when none has completed for three intervals past the cycle
// timeout (a cycle stuck, or Run stopped or never past the pods' sync).
// It is safe to call from any goroutine; the program's /healthz reports it.
func (e *Evictor) Healthy() error {
	last := time.Unix(0, e.lastCycle.Load())
	limit := int64(e.cfg.CycleTimeout)
	for range staleCycles {
		limit = sat(limit, int64(e.cfg.Interval))
	}
	if age := e.cfg.Clock.Since(last); age > time.Duration(limit) {
		return fmt.Errorf("pressureevictor: node %q: last cycle completed %v ago, more than %v: %w",
			e.cfg.Node, age.Round(time.Millisecond), time.Duration(limit), ErrStale)
	}
	return nil
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
	ctx, cancel := context.WithTimeout(ctx, e.cfg.CycleTimeout)
	defer cancel()
	r := e.run(ctx)
	e.cfg.Metrics.cycle(r.outcome)
	e.lastCycle.Store(e.cfg.Clock.Now().UnixNano())
	return r
}

func (e *Evictor) run(ctx context.Context) report {
	node := &v1.ObjectReference{Kind: "Node", Name: e.cfg.Node, UID: types.UID(e.cfg.Node)}
	data, err := e.cfg.Source.Summary(ctx)
	cause := SummaryUnavailable
	switch {
	case errors.Is(err, ErrKubeletRefused):
		cause = SummaryRefused
	case errors.Is(err, ErrSummaryTooLarge):
		cause = SummaryTooLarge
	}
	var s *statsummary.Summary
	if err == nil {
		s, err = statsummary.Decode(data)
		cause = SummaryMalformed
	}
	if err == nil {
		err = checkFigures(s)
	}
	if err == nil && s.NodeName != e.cfg.Node {
		err = fmt.Errorf("pressureevictor: summary of node %q, not %q: %w", s.NodeName, e.cfg.Node, ErrWrongNode)
		cause = SummaryWrongNode
	}
	if err != nil {
		e.log.Warn("cycle skipped", "node", e.cfg.Node, "cause", cause, "err", err)
		e.event(node, nil, v1.EventTypeWarning, ReasonSummaryUnavailable, "Eviction cycle skipped: "+err.Error())
		e.cfg.Metrics.summaryFailed(cause)
		return report{outcome: OutcomeSkipped}
	}

	all, err := e.cfg.Pods.List(labels.Everything())
	if err != nil {
		e.log.Warn("cycle skipped", "node", e.cfg.Node, "err", err)
		return report{outcome: OutcomeSkipped}
	}
	now := e.cfg.Clock.Now()
	var active []*v1.Pod
	onNode := map[types.UID]bool{}
	for _, pod := range all {
		if pod.Spec.NodeName != e.cfg.Node || pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed {
			continue
		}
		onNode[pod.UID] = true
		if pod.DeletionTimestamp == nil {
			active = append(active, pod)
			continue
		}
		// Terminating, by our eviction or anyone's deletion: its
		// resources are not free yet.
		if _, ok := e.pending[pod.UID]; !ok {
			e.pending[pod.UID] = until(now, e.wait(deletionGrace(pod)))
		}
	}
	holding := false
	for uid, t := range e.pending {
		switch {
		case !onNode[uid]:
			delete(e.pending, uid)
		case !now.After(t):
			holding = true
		}
	}

	res := e.manager.Synchronize(now, nodepressure.Stats{Node: s.Node, Pods: s.Usage}, active)
	e.cfg.Metrics.observe(res.Observations)
	ev := res.Evaluation
	if !ev.Reclaim {
		return report{outcome: OutcomeNone}
	}
	if holding {
		e.log.Info("waiting for an evicted pod to terminate", "node", e.cfg.Node, "signal", ev.Signal)
		return report{outcome: OutcomeWaiting}
	}

	var rep report
	failed := false
	met := thresholds.ByEvictionPriority(ev.Fresh)
	for _, pod := range res.Ranked {
		// Pods read from the API server: only what the API server
		// enforces makes a pod static or mirror.
		if !ranking.TrustAPIServer.Evictable(pod) {
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
		switch out, err := e.evict(ctx, pod); out {
		case evictMade:
			if err != nil {
				log.Info("eviction answer lost, the pod is terminating", "err", err)
			}
			log.Info("evicted", "message", msg)
			e.event(pod, annotations, v1.EventTypeWarning, ReasonEvicted, msg)
			e.cfg.Metrics.evicted(ev.Signal)
			e.pending[pod.UID] = until(now, e.wait(podGrace(pod)))
			rep.outcome, rep.evicted = OutcomeEvicted, pod
			return rep
		case evictBudget:
			log.Info("eviction refused, trying the next pod", "err", err)
			e.cfg.Metrics.refused()
			rep.refused = append(rep.refused, pod)
		case evictGone:
			// Gone, or replaced by a pod of the same name: not ours to evict.
			log.Info("pod gone, trying the next pod", "err", err)
		case evictRefused:
			log.Warn("eviction failed, trying the next pod", "err", err)
			e.event(pod, nil, v1.EventTypeWarning, ReasonEvictionFailed, "Eviction failed: "+err.Error())
			e.cfg.Metrics.failed(statusCode(err))
			rep.refused = append(rep.refused, pod)
			failed = true
		default: // evictUnknown
			log.Warn("eviction outcome unknown, waiting as for an evicted pod", "err", err)
			e.event(pod, nil, v1.EventTypeWarning, ReasonEvictionFailed, "Eviction outcome unknown: "+err.Error())
			e.cfg.Metrics.failed(statusCode(err))
			e.pending[pod.UID] = until(now, e.wait(podGrace(pod)))
			rep.outcome = OutcomeFailed
			return rep
		}
	}
	e.log.Info("no pod could be evicted this cycle", "node", e.cfg.Node, "signal", ev.Signal, "refused", len(rep.refused))
	rep.outcome = OutcomeRefused
	if failed {
		rep.outcome = OutcomeFailed
	}
	return rep
}

// An evictOutcome is what became of one eviction request.
type evictOutcome int

const (
	evictMade    evictOutcome = iota // applied: the pod is terminating or gone
	evictBudget                      // 429: a budget allows no disruption
	evictGone                        // 404 or 409: no such pod (any more)
	evictRefused                     // refused otherwise; the pod is untouched
	evictUnknown                     // may have been applied, or may still be
)

// verifyTimeout bounds the read of a pod whose eviction's answer was an
// error, made even when the cycle's context has ended.
const verifyTimeout = 10 * time.Second

// evict evicts pod through the Eviction API and tells what became of it. An
// error other than 429, 404 or 409 leaves the outcome in doubt (the answer
// may have been lost after the API server applied the eviction), so the pod
// is read back from the API server: terminating or gone means the eviction
// was made; untouched means it was refused, unless the answer was a 504 or
// no answer at all (a timeout, a broken connection), after which the
// eviction may still be under way, and the outcome stays unknown.
func (e *Evictor) evict(ctx context.Context, pod *v1.Pod) (evictOutcome, error) {
	if pod.Spec.NodeName != e.cfg.Node {
		return evictRefused, fmt.Errorf("pressureevictor: pod %s/%s is bound to node %q, not %q: not evicted",
			pod.Namespace, pod.Name, pod.Spec.NodeName, e.cfg.Node)
	}
	opts := &metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &pod.UID}}
	if g, capped := e.grace(podGrace(pod)); capped {
		opts.GracePeriodSeconds = &g
	}
	err := e.cfg.Client.PolicyV1().Evictions(pod.Namespace).Evict(ctx, &policyv1.Eviction{
		ObjectMeta:    metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name},
		DeleteOptions: opts,
	})
	switch {
	case err == nil:
		return evictMade, nil
	case apierrors.IsTooManyRequests(err):
		return evictBudget, err
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		return evictGone, err
	}
	vctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), verifyTimeout)
	defer cancel()
	got, gerr := e.cfg.Client.CoreV1().Pods(pod.Namespace).Get(vctx, pod.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(gerr):
		return evictMade, err
	case gerr != nil:
		return evictUnknown, fmt.Errorf("%w (and reading the pod back: %w)", err, gerr)
	case got.UID != pod.UID || got.DeletionTimestamp != nil:
		return evictMade, err
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Code != 0 && status.Status().Code != http.StatusGatewayTimeout {
		return evictRefused, err
	}
	return evictUnknown, err
}

// statusCode is the HTTP status code of err, "unknown" without one.
func statusCode(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) && status.Status().Code != 0 {
		return strconv.Itoa(int(status.Status().Code))
	}
	return "unknown"
}

// cleanupTimeout is how long past its termination grace period an evicted pod
// still on the node holds back the next eviction, the kubelet's wait for an
// evicted pod's cleanup.
const cleanupTimeout = 30 * time.Second

// podGrace is pod's termination grace period in seconds (the API's default
// of 30 when unset).
func podGrace(pod *v1.Pod) int64 {
	if g := pod.Spec.TerminationGracePeriodSeconds; g != nil && *g >= 0 {
		return *g
	}
	return v1.DefaultTerminationGracePeriodSeconds
}

// deletionGrace is the grace period in seconds of a pod being deleted: the
// one its deletion was given, else its own.
func deletionGrace(pod *v1.Pod) int64 {
	if g := pod.DeletionGracePeriodSeconds; g != nil && *g >= 0 {
		return *g
	}
	return podGrace(pod)
}

// grace returns the grace period the Eviction asks for a pod whose own is
// seconds, and whether it asks for one at all: Config.MaxPodGracePeriodSeconds
// (at least 1) when seconds is longer, the pod's own otherwise.
func (e *Evictor) grace(seconds int64) (int64, bool) {
	limit := *e.cfg.MaxPodGracePeriodSeconds
	if limit < 0 || seconds <= limit {
		return seconds, false
	}
	return max(limit, 1), true
}

// wait is how long a pod evicted with a grace period of seconds (before the
// cap) may take to go before the next eviction proceeds without it: its
// capped grace period and cleanupTimeout, saturating at the longest
// time.Duration.
func (e *Evictor) wait(seconds int64) time.Duration {
	g, _ := e.grace(seconds)
	if g < 0 {
		g = 0
	}
	var d int64 = math.MaxInt64
	if g <= math.MaxInt64/int64(time.Second) {
		d = g * int64(time.Second)
	}
	return time.Duration(sat(d, int64(cleanupTimeout)))
}

// sat is a+b for non-negative a and b, saturating at math.MaxInt64.
func sat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// until is now+d, saturating at the latest time now.Add reaches without
// wrapping.
func until(now time.Time, d time.Duration) time.Time {
	t := now.Add(d)
	if t.Before(now) {
		return now.Add(time.Duration(math.MaxInt64))
	}
	return t
}

func (e *Evictor) event(obj runtime.Object, annotations map[string]string, kind, reason, msg string) {
	if e.cfg.Recorder != nil {
		e.cfg.Recorder.AnnotatedEventf(obj, annotations, kind, reason, "%s", msg)
	}
}
