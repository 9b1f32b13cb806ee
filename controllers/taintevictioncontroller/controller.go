package taintevictioncontroller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/evictkit/eviction/controllers/internal/podindex"
	"github.com/evictkit/eviction/events"
	"github.com/evictkit/eviction/tainteviction"
	"github.com/evictkit/eviction/timedqueue"
	"github.com/evictkit/eviction/tolerations"
)

// ControllerName is the controller's name in kube-controller-manager
// (--controllers), and the source of the events it emits.
const ControllerName = "taint-eviction-controller"

// NodeNameIndex is the pod informer index, by spec.nodeName, that the
// controller adds (unless it is there already) to find a node's pods.
const NodeNameIndex = podindex.NodeName

// Config is what New needs. Client, Pods and Nodes are required.
type Config struct {
	// Client deletes pods and patches their status.
	Client kubernetes.Interface
	// Pods and Nodes are the shared informers the controller watches. New
	// adds NodeNameIndex to Pods unless it exists.
	Pods  coreinformers.PodInformer
	Nodes coreinformers.NodeInformer
	// Recorder receives the controller's events; nil sends them to the API
	// server with ControllerName as source.
	Recorder record.EventRecorder
	// Metrics records deletions; nil records nothing.
	Metrics *Metrics
	// Logger receives the controller's log lines; nil discards them.
	Logger *slog.Logger
	// Clock is the controller's time; nil is the real clock.
	Clock clock.WithTicker
	// Tolerations are the matching options (the Lt/Gt gate); the zero
	// value is upstream's default.
	Tolerations tolerations.Options
	// Workers bounds the deletions carried out at once; 0 means GOMAXPROCS.
	Workers int
	// QueueMetrics receives the workqueue metrics of the controller's
	// eviction workers; nil reports none.
	QueueMetrics timedqueue.MetricsProvider
	// Policy, if set, is asked before each attempt of an eviction and may
	// veto or postpone it: the hook for deciding with knowledge of the
	// workload. Nil deletes as upstream does.
	Policy func(ctx context.Context, e tainteviction.Eviction) Verdict
}

// Verdict is what a Config.Policy says about one eviction. The zero
// Verdict lets it happen.
type Verdict struct {
	// Veto drops the eviction: the pod stays until a later pod or node
	// event decides again.
	Veto bool
	// Postpone, if positive (and Veto is false), schedules the eviction
	// again that much later, with the same CreatedAt; the policy is asked
	// again then. A taint removal or toleration change cancels it
	// meanwhile, like any scheduled eviction.
	Postpone time.Duration
}

// Controller deletes the pods that do not tolerate their node's NoExecute
// taints, at once or when their toleration runs out, as kube-controller-
// manager's taint-eviction controller does.
type Controller struct {
	cfg     Config
	deleter deleter

	// mu guards the fields below and the core: every informer event, every
	// report of an attempt and every timer tick is handled under it.
	mu       sync.Mutex
	core     *tainteviction.Controller // nil outside Run
	workers  *timedqueue.Queue[types.NamespacedName, tainteviction.Eviction]
	timer    clock.Timer
	recorder record.EventRecorder
	retries  timedqueue.CounterMetric

	// synced is set once the handlers have been given every object of the
	// informers' first lists (a test waits for it before it moves its
	// clock, so that no first add arrives after the evictions started).
	synced atomic.Bool
}

// New returns a controller over cfg's informers, which it requests from
// their factory: start the factory after New. Nothing happens until Run.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Pods == nil || cfg.Nodes == nil {
		return nil, errors.New("taint eviction: Config needs Client, Pods and Nodes")
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	// Request every informer now, so that the factory's Start (after New)
	// starts them all.
	cfg.Nodes.Informer()
	pods := cfg.Pods.Informer()
	if err := podindex.Add(pods); err != nil {
		return nil, fmt.Errorf("taint eviction: %w", err)
	}
	c := &Controller{cfg: cfg, deleter: deleter{client: cfg.Client, now: cfg.Clock.Now}}
	return c, nil
}

// Run watches the informers and deletes pods until ctx ends; the informers
// must be started by the caller. On return nothing scheduled survives: a
// controller started later (the next leader) recomputes every eviction from
// its own informers. Run returns nil when ctx ends, an error if the caches
// never synced.
func (c *Controller) Run(ctx context.Context) error {
	recorder := c.cfg.Recorder
	if recorder == nil {
		b := record.NewBroadcaster(record.WithContext(ctx))
		b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.cfg.Client.CoreV1().Events("")})
		defer b.Shutdown()
		recorder = b.NewRecorder(scheme.Scheme, v1.EventSource{Component: ControllerName})
	}
	indexer := c.cfg.Pods.Informer().GetIndexer()
	workers := timedqueue.New(c.work, timedqueue.Options[types.NamespacedName]{
		Name:    ControllerName,
		Clock:   c.cfg.Clock,
		Workers: c.cfg.Workers,
		Metrics: c.cfg.QueueMetrics,
		Context: ctx,
	})
	c.mu.Lock()
	c.core = tainteviction.New(tainteviction.PodListerFunc(func(node string) ([]*v1.Pod, error) {
		return podindex.PodsOn(indexer, node)
	}), tainteviction.Options{Tolerations: c.cfg.Tolerations, Retry: retry()})
	c.workers, c.recorder = workers, recorder
	if c.cfg.QueueMetrics != nil {
		c.retries = c.cfg.QueueMetrics.NewRetriesMetric(ControllerName)
	}
	c.timer = c.cfg.Clock.NewTimer(time.Hour)
	c.timer.Stop()
	timerC := c.timer.C()
	c.mu.Unlock()

	var wg sync.WaitGroup
	stop := make(chan struct{})
	defer func() {
		// Nothing scheduled survives: the next leader recomputes it.
		c.mu.Lock()
		c.core = nil
		c.timer.Stop()
		c.mu.Unlock()
		close(stop)
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = workers.Shutdown(sctx)
		wg.Wait()
	}()
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-timerC:
				c.handle(nil)
			}
		}
	})
	logErr := func(err error) {
		if err != nil {
			c.cfg.Logger.Error("event", "err", err)
		}
	}
	podReg, err := c.cfg.Pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			c.handle(func(core *tainteviction.Controller, now time.Time) { core.PodUpdated(now, nil, asPod(obj)) })
		},
		UpdateFunc: func(old, obj any) {
			c.handle(func(core *tainteviction.Controller, now time.Time) { core.PodUpdated(now, asPod(old), asPod(obj)) })
		},
		DeleteFunc: func(obj any) {
			c.handle(func(core *tainteviction.Controller, now time.Time) { logErr(core.PodDeleted(now, tombstone(obj))) })
		},
	})
	if err != nil {
		return fmt.Errorf("taint eviction: pod handler: %w", err)
	}
	defer func() { _ = c.cfg.Pods.Informer().RemoveEventHandler(podReg) }()
	nodeReg, err := c.cfg.Nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			c.handle(func(core *tainteviction.Controller, now time.Time) { logErr(core.NodeUpdated(now, nil, asNode(obj))) })
		},
		UpdateFunc: func(old, obj any) {
			c.handle(func(core *tainteviction.Controller, now time.Time) {
				logErr(core.NodeUpdated(now, asNode(old), asNode(obj)))
			})
		},
		DeleteFunc: func(obj any) {
			c.handle(func(core *tainteviction.Controller, now time.Time) { logErr(core.NodeDeleted(now, tombstone(obj))) })
		},
	})
	if err != nil {
		return fmt.Errorf("taint eviction: node handler: %w", err)
	}
	defer func() { _ = c.cfg.Nodes.Informer().RemoveEventHandler(nodeReg) }()

	if !cache.WaitForCacheSync(ctx.Done(), podReg.HasSynced, nodeReg.HasSynced) {
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("taint eviction: caches did not sync")
	}
	c.synced.Store(true)
	c.cfg.Logger.Info("started", "controller", ControllerName)
	<-ctx.Done()
	c.cfg.Logger.Info("stopping", "controller", ControllerName)
	return nil
}

// handle runs f (a call of the core: an informer event or the report of an
// attempt; nil for a timer tick) under the lock at the clock's now, then a
// step; nothing once Run has ended.
func (c *Controller) handle(f func(core *tainteviction.Controller, now time.Time)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.core == nil {
		return
	}
	if f != nil {
		f(c.core, c.cfg.Clock.Now())
	}
	c.step()
}

// step runs the core at the clock's now and hands out its result: events
// to the recorder, evictions to the workers; it arms the timer for the
// next step. Called with c.mu held while Run runs.
func (c *Controller) step() {
	now := c.cfg.Clock.Now()
	res := c.core.Step(now)
	events.Record(c.recorder, res.Events...)
	for _, e := range res.Evictions {
		// The core hands out no second eviction of a pod before the first
		// is reported, and the workers run one call per pod at a time.
		c.workers.Add(e.Pod, e, now, now)
	}
	c.timer.Stop()
	if !res.Next.IsZero() {
		c.timer.Reset(max(res.Next.Sub(now), 0))
	}
}

// work is one attempt at an eviction the core handed out, on one of the
// workers: the policy, the Marking event before the first attempt, the
// deletion; then the report to the core. A failed attempt is retried by
// the core after the backoff of retry, as a scheduled eviction that a
// taint removal or a toleration change cancels; a deletion the API server
// refuses for good (see permanent) is abandoned after upstream's five
// attempts.
func (c *Controller) work(ctx context.Context, it timedqueue.Item[types.NamespacedName, tainteviction.Eviction]) error {
	e := it.Value
	if c.cfg.Policy != nil {
		v := c.cfg.Policy(ctx, e)
		switch {
		case v.Veto:
			c.handle(func(core *tainteviction.Controller, _ time.Time) { core.Done(e) })
			return nil
		case v.Postpone > 0:
			c.handle(func(core *tainteviction.Controller, now time.Time) { core.Postpone(e, now.Add(v.Postpone)) })
			return nil
		}
	}
	if e.Attempts == 0 {
		events.Record(c.recorder, tainteviction.Marking(e.Pod))
	}
	deleted, err := c.deleter.deletePod(ctx, e)
	if ctx.Err() != nil {
		return nil // Run ends: the core goes with it
	}
	if err == nil {
		if deleted {
			c.cfg.Metrics.deleted(e.FireAt, c.cfg.Clock.Now())
			c.cfg.Logger.Info("deleted pod", "pod", e.Pod.String(), "taint", e.Taint.Key)
		}
		c.handle(func(core *tainteviction.Controller, _ time.Time) { core.Done(e) })
		return nil
	}
	if permanent(err) && e.Attempts+1 >= deleteAttempts {
		err = fmt.Errorf("%w: %w", err, tainteviction.ErrPermanent)
	}
	c.handle(func(core *tainteviction.Controller, now time.Time) {
		at, final := core.Failed(now, e, err)
		switch {
		case final != nil:
			// Only a deletion the API server refuses for good ends here:
			// every other failure is retried until the pod is gone, the
			// eviction is cancelled or the controller stops.
			c.cfg.Metrics.abandoned()
			c.cfg.Logger.Error("eviction abandoned", "pod", e.Pod.String(), "attempts", e.Attempts+1, "err", final)
			ref := tainteviction.Marking(e.Pod).Object
			ref.UID = e.UID
			c.recorder.Eventf(&ref, v1.EventTypeWarning, EvictionFailedReason, "Abandoned deletion of Pod %s after %d attempts: %v", e.Pod, e.Attempts+1, final)
		case !at.IsZero():
			if c.retries != nil {
				c.retries.Inc()
			}
			c.cfg.Logger.Warn("deletion failed, retrying", "pod", e.Pod.String(), "attempt", e.Attempts+1, "in", at.Sub(now), "err", err)
		}
	})
	return nil
}

// idle steps the core at the clock's now and waits until every eviction
// due has been attempted (for tests on a fake clock).
func (c *Controller) idle(ctx context.Context) error {
	c.mu.Lock()
	if c.core == nil {
		c.mu.Unlock()
		return nil
	}
	c.step()
	workers := c.workers
	c.mu.Unlock()
	return workers.Idle(ctx)
}

// inspect calls f with the core under the lock, once Run has built it, and
// reports whether it had (for tests).
func (c *Controller) inspect(f func(core *tainteviction.Controller)) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.core == nil {
		return false
	}
	f(c.core)
	return true
}

// Backoff of a failed deletion: the first retries come as fast as
// upstream's (10 ms apart) and the waits double up to 5 s.
const (
	retryInitial = 10 * time.Millisecond
	retryMax     = 5 * time.Second
)

// retry is the core's retry of a failed deletion: until the pod is gone,
// the eviction is cancelled or abandoned, or the controller stops.
func retry() timedqueue.Retry {
	return timedqueue.Retry{MaxAttempts: -1, Initial: retryInitial, Max: retryMax}
}

// EvictionFailedReason is the reason of the Warning event recorded on a pod
// whose deletion was abandoned: the API server refused it for good (403
// from an admission webhook, 422, 400) on every one of upstream's five
// attempts. Upstream records no such event.
const EvictionFailedReason = "TaintManagerEvictionFailed"

// tombstone converts client-go's deleted-final-state marker into the
// core's.
func tombstone(obj any) any {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return tainteviction.Tombstone{Key: d.Key, Obj: d.Obj}
	}
	return obj
}

func asPod(obj any) *v1.Pod {
	pod, _ := obj.(*v1.Pod)
	return pod
}

func asNode(obj any) *v1.Node {
	node, _ := obj.(*v1.Node)
	return node
}
