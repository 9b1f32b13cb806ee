package taintevictioncontroller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/evictkit/eviction/controllers/internal/podindex"
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
	// QueueMetrics receives the eviction queue's workqueue metrics; nil
	// reports none.
	QueueMetrics timedqueue.MetricsProvider
	// Policy, if set, is asked before each eviction and may veto or
	// postpone it: the hook for deciding with knowledge of the workload
	// (see tainteviction.Options.Policy). Nil deletes as upstream does.
	Policy func(ctx context.Context, e tainteviction.Eviction) tainteviction.Verdict
}

// Controller deletes the pods that do not tolerate their node's NoExecute
// taints, at once or when their toleration runs out, as kube-controller-
// manager's taint-eviction controller does.
type Controller struct {
	cfg     Config
	deleter deleter
	core    atomic.Pointer[tainteviction.Controller] // set by Run, for tests
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
	core := tainteviction.New(tainteviction.PodListerFunc(func(node string) ([]*v1.Pod, error) {
		return podindex.PodsOn(indexer, node)
	}), c.evict, tainteviction.Options{
		Clock:       c.cfg.Clock,
		Tolerations: c.cfg.Tolerations,
		Workers:     c.cfg.Workers,
		Name:        ControllerName,
		Metrics:     c.cfg.QueueMetrics,
		Policy:      c.cfg.Policy,
		Retry:       retry(),
		Events: func(e tainteviction.Event) {
			recorder.Event(&e.Object, e.Type, e.Reason, e.Message)
		},
		// Only a deletion the API server refuses for good ends here: every
		// other failure is retried until the pod is gone, the eviction is
		// cancelled or the controller stops.
		OnError: func(e tainteviction.Eviction, err error) {
			c.cfg.Metrics.abandoned()
			c.cfg.Logger.Error("eviction abandoned", "pod", e.Pod.String(), "attempts", e.Attempts+1, "err", err)
			ref := tainteviction.Marking(e.Pod).Object
			ref.UID = e.UID
			recorder.Eventf(&ref, v1.EventTypeWarning, EvictionFailedReason, "Abandoned deletion of Pod %s after %d attempts: %v", e.Pod, e.Attempts+1, err)
		},
	})
	c.core.Store(core)
	defer func() {
		// Nothing scheduled survives: the next leader recomputes it.
		sctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = core.Shutdown(sctx)
	}()
	logErr := func(err error) {
		if err != nil {
			c.cfg.Logger.Error("event", "err", err)
		}
	}
	podReg, err := c.cfg.Pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { core.PodUpdated(nil, asPod(obj)) },
		UpdateFunc: func(old, obj any) { core.PodUpdated(asPod(old), asPod(obj)) },
		DeleteFunc: func(obj any) { logErr(core.PodDeleted(tombstone(obj))) },
	})
	if err != nil {
		return fmt.Errorf("taint eviction: pod handler: %w", err)
	}
	defer func() { _ = c.cfg.Pods.Informer().RemoveEventHandler(podReg) }()
	nodeReg, err := c.cfg.Nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { logErr(core.NodeUpdated(nil, asNode(obj))) },
		UpdateFunc: func(old, obj any) { logErr(core.NodeUpdated(asNode(old), asNode(obj))) },
		DeleteFunc: func(obj any) { logErr(core.NodeDeleted(tombstone(obj))) },
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
	c.cfg.Logger.Info("started", "controller", ControllerName)
	<-ctx.Done()
	c.cfg.Logger.Info("stopping", "controller", ControllerName)
	return nil
}

// evict is the deletion the core calls when a pod's eviction is due: one
// attempt. A failed attempt returns its error and the core puts the
// eviction back on its queue, due after the backoff of retry, where a taint
// removal or a toleration change cancels it; a deletion the API server
// refuses for good (see permanent) is abandoned after upstream's five
// attempts.
func (c *Controller) evict(ctx context.Context, e tainteviction.Eviction) error {
	deleted, err := c.deleter.deletePod(ctx, e)
	if err == nil {
		if deleted {
			c.cfg.Metrics.deleted(e.FireAt, c.cfg.Clock.Now())
			c.cfg.Logger.Info("deleted pod", "pod", e.Pod.String(), "taint", e.Taint.Key)
		}
		return nil
	}
	if ctx.Err() != nil {
		return err
	}
	if permanent(err) && e.Attempts+1 >= deleteAttempts {
		return fmt.Errorf("%w: %w", err, tainteviction.ErrPermanent)
	}
	c.cfg.Logger.Warn("deletion failed, retrying", "pod", e.Pod.String(), "attempt", e.Attempts+1,
		"in", retry().Backoff(e.Attempts+1), "err", err)
	return err
}

// Backoff of a failed deletion: the first retries come as fast as
// upstream's (10 ms apart) and the waits double up to 5 s.
const (
	retryInitial = 10 * time.Millisecond
	retryMax     = 5 * time.Second
)

// retry is the eviction queue's retry of a failed deletion: until the pod
// is gone, the eviction is cancelled or abandoned, or the controller stops.
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
