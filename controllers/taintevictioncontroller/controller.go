package taintevictioncontroller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
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
		Events: func(e tainteviction.Event) {
			recorder.Event(&e.Object, e.Type, e.Reason, e.Message)
		},
		OnError: func(e tainteviction.Eviction, err error) {
			c.cfg.Logger.Error("eviction failed", "pod", e.Pod.String(), "err", err)
		},
	})
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
		AddFunc:    func(obj any) { logErr(core.PodUpdated(nil, asPod(obj))) },
		UpdateFunc: func(old, obj any) { logErr(core.PodUpdated(asPod(old), asPod(obj))) },
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

// evict is the deletion the core calls when a pod's eviction is due.
// Upstream's five quick attempts come first; if they all fail (the API
// server is down, say) the deletion is tried again with backoff until it
// succeeds, the pod is gone, or ctx ends, where upstream drops it.
func (c *Controller) evict(ctx context.Context, e tainteviction.Eviction) error {
	wait := retryInitial
	for {
		deleted, err := c.deleter.deletePod(ctx, e)
		if err == nil {
			if deleted {
				c.cfg.Metrics.deleted(e.FireAt, c.cfg.Clock.Now())
				c.cfg.Logger.Info("deleted pod", "pod", e.Pod.String(), "taint", e.Taint.Key)
			}
			return nil
		}
		c.cfg.Logger.Error("deletion failed, retrying", "pod", e.Pod.String(), "in", wait, "err", err)
		t := c.cfg.Clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C():
		}
		wait = min(2*wait, retryMax)
	}
}

// Backoff of a deletion whose quick attempts all failed.
const (
	retryInitial = 100 * time.Millisecond
	retryMax     = 5 * time.Second
)

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
