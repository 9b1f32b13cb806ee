package nodelifecyclecontroller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	appsinformers "k8s.io/client-go/informers/apps/v1"
	coordinformers "k8s.io/client-go/informers/coordination/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/evictkit/eviction/controllers/internal/podindex"
	"github.com/evictkit/eviction/events"
	"github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/nodelifecycle/legacy"
)

// ControllerName is the controller's name in kube-controller-manager
// (--controllers).
const ControllerName = "node-lifecycle-controller"

// NodeNameIndex is the pod informer index, by spec.nodeName, that the
// controller adds (unless it is there already) to find a node's pods.
const NodeNameIndex = podindex.NodeName

// Config is what New needs. Client, Nodes, Pods and Leases are required.
type Config struct {
	// Client writes node and pod status and node taints.
	Client kubernetes.Interface
	// Nodes, Pods and Leases are the shared informers the controller reads
	// (Leases should cover the kube-node-lease namespace).
	Nodes  coreinformers.NodeInformer
	Pods   coreinformers.PodInformer
	Leases coordinformers.LeaseInformer
	// Settings are kube-controller-manager's node lifecycle flags; the zero
	// value is its defaults.
	Settings nodelifecycle.Config
	// Legacy, when non-nil, runs v1.26's pod eviction mode
	// (--enable-taint-manager=false) with its settings: the controller
	// writes no NoExecute taint and deletes the pods of a node not ready
	// for longer than Legacy.PodEvictionTimeout itself, through its zone's
	// rate-limited queue. Nil is v1.37's taint-based eviction.
	Legacy *legacy.Config
	// DaemonSets is the shared informer whose DaemonSets' pods the legacy
	// mode keeps; required with Legacy, unused without.
	DaemonSets appsinformers.DaemonSetInformer
	// Recorder receives the controller's events; nil sends them to the API
	// server (core/v1 Events) with EventSource as source, from Run's start
	// to its return.
	Recorder record.EventRecorder
	// Metrics records zone and eviction metrics; nil records nothing.
	Metrics *Metrics
	// QueueMetrics, if set, reports the node and pod work queues under
	// client-go's workqueue_* names, labelled node_lifecycle_controller and
	// node_lifecycle_controller_pods as upstream's are.
	QueueMetrics workqueue.MetricsProvider
	// Logger receives the controller's log lines; nil discards them.
	Logger *slog.Logger
	// Clock is the controller's time; nil is the real clock.
	Clock clock.WithTicker
}

// Controller is the node lifecycle controller.
type Controller struct {
	cfg     Config
	api     *api
	monitor *nodelifecycle.Monitor
	// evictor is the legacy mode's eviction state; nil in the taint mode.
	evictor *legacy.Evictor
}

// New returns a controller over cfg's informers, which it requests from
// their factory: start the factory after New. Nothing happens until Run.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Nodes == nil || cfg.Pods == nil || cfg.Leases == nil {
		return nil, errors.New("node lifecycle: Config needs Client, Nodes, Pods and Leases")
	}
	eff := cfg.Settings.Effective()
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"MonitorPeriod", eff.MonitorPeriod},
		{"MonitorGracePeriod", eff.MonitorGracePeriod},
		{"StartupGracePeriod", eff.StartupGracePeriod},
	} {
		if d.v < 0 {
			return nil, fmt.Errorf("node lifecycle: Settings.%s %v is negative", d.name, d.v)
		}
	}
	if cfg.Legacy != nil {
		if cfg.DaemonSets == nil {
			return nil, errors.New("node lifecycle: the legacy mode (Config.Legacy) needs Config.DaemonSets")
		}
		if cfg.Legacy.PodEvictionTimeout < 0 {
			return nil, fmt.Errorf("node lifecycle: Legacy.PodEvictionTimeout %v is negative", cfg.Legacy.PodEvictionTimeout)
		}
		cfg.Settings.DisableNoExecuteTainting = true
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
	cfg.Leases.Informer()
	pods := cfg.Pods.Informer()
	if err := podindex.Add(pods); err != nil {
		return nil, fmt.Errorf("node lifecycle: %w", err)
	}
	c := &Controller{cfg: cfg, api: &api{client: cfg.Client, clock: cfg.Clock}}
	c.monitor = nodelifecycle.NewMonitor(cfg.Settings)
	if cfg.Legacy != nil {
		cfg.DaemonSets.Informer()
		c.evictor = legacy.NewEvictor(*cfg.Legacy, cfg.Settings)
	}
	return c, nil
}

// Run watches the informers and acts until ctx ends; the informers must be
// started by the caller. Run returns nil when ctx ends, an error if the caches
// never synced.
func (c *Controller) Run(ctx context.Context) error {
	defer c.startRecording(ctx)()
	// Upstream's queues, under upstream's names.
	nodeQueue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "node_lifecycle_controller", Clock: c.cfg.Clock, MetricsProvider: c.cfg.QueueMetrics})
	podQueue := workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "node_lifecycle_controller_pods", Clock: c.cfg.Clock, MetricsProvider: c.cfg.QueueMetrics})
	defer nodeQueue.ShutDown()
	defer podQueue.ShutDown()

	nodeReg, err := c.cfg.Nodes.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if node, ok := obj.(*v1.Node); ok && c.evictor != nil {
				c.evictor.NodeAdded(node.Name)
			}
			enqueueNode(nodeQueue, obj)
		},
		UpdateFunc: func(_, obj any) { enqueueNode(nodeQueue, obj) },
		DeleteFunc: func(obj any) {
			if c.evictor == nil {
				return
			}
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if node, ok := obj.(*v1.Node); ok {
				c.evictor.NodeDeleted(node.Name)
			}
		},
	})
	if err != nil {
		return fmt.Errorf("node lifecycle: node handler: %w", err)
	}
	defer func() { _ = c.cfg.Nodes.Informer().RemoveEventHandler(nodeReg) }()
	podReg, err := c.cfg.Pods.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if pod, ok := obj.(*v1.Pod); ok && pod.Spec.NodeName != "" {
				podQueue.Add(pod.Namespace + "/" + pod.Name)
			}
		},
		UpdateFunc: func(old, obj any) {
			was, ok1 := old.(*v1.Pod)
			pod, ok2 := obj.(*v1.Pod)
			if ok1 && ok2 && pod.Spec.NodeName != "" && was.Spec.NodeName != pod.Spec.NodeName {
				podQueue.Add(pod.Namespace + "/" + pod.Name)
			}
		},
	})
	if err != nil {
		return fmt.Errorf("node lifecycle: pod handler: %w", err)
	}
	defer func() { _ = c.cfg.Pods.Informer().RemoveEventHandler(podReg) }()
	synced := []cache.InformerSynced{nodeReg.HasSynced, podReg.HasSynced, c.cfg.Leases.Informer().HasSynced}
	if c.evictor != nil {
		synced = append(synced, c.cfg.DaemonSets.Informer().HasSynced)
	}
	if !cache.WaitForCacheSync(ctx.Done(), synced...) {
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("node lifecycle: caches did not sync")
	}
	if c.evictor != nil {
		c.cfg.Logger.Info("started", "controller", ControllerName, "mode", "legacy pod eviction", "podEvictionTimeout", c.cfg.Legacy.PodEvictionTimeout.String())
	} else {
		c.cfg.Logger.Info("started", "controller", ControllerName)
	}

	// The workers end on every way out of Run, a panic included: their
	// queues are shut down and their context cancelled before Run waits for
	// them, so that a Run that fails never hangs (a leader that hung would
	// keep renewing its lease and do nothing).
	workCtx, stopWork := context.WithCancel(ctx)
	done := make(chan struct{})
	defer func() {
		stopWork()
		nodeQueue.ShutDown()
		podQueue.ShutDown()
		<-done
		<-done
		<-done
	}()
	go func() { defer func() { done <- struct{}{} }(); c.noScheduleWorker(workCtx, nodeQueue) }()
	go func() { defer func() { done <- struct{}{} }(); c.podWorker(workCtx, podQueue) }()
	go func() { defer func() { done <- struct{}{} }(); c.drainLoop(workCtx) }()

	tick := c.cfg.Clock.NewTicker(c.cfg.Settings.Effective().MonitorPeriod)
	defer tick.Stop()
	for {
		c.pass(ctx)
		select {
		case <-ctx.Done():
			c.cfg.Logger.Info("stopping", "controller", ControllerName)
			return nil
		case <-tick.C():
		}
	}
}

// startRecording sets the recorder the controller's events go to, and
// returns what stops it: Config.Recorder, or a broadcaster to the API server
// (which also logs each event at debug level, as upstream's does at its
// verbosity 3) that the returned func shuts down.
func (c *Controller) startRecording(ctx context.Context) (stop func()) {
	if c.cfg.Recorder != nil {
		c.api.recorder = c.cfg.Recorder
		return func() {}
	}
	b := record.NewBroadcaster(record.WithContext(ctx))
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.cfg.Client.CoreV1().Events("")})
	b.StartEventWatcher(func(e *v1.Event) {
		o := e.InvolvedObject
		c.cfg.Logger.Debug("event", "object", o.Kind+" "+strings.TrimPrefix(o.Namespace+"/"+o.Name, "/"),
			"type", e.Type, "reason", e.Reason, "message", e.Message)
	})
	c.api.recorder = b.NewRecorder(scheme.Scheme, v1.EventSource{Component: EventSource})
	return b.Shutdown
}

func enqueueNode(q workqueue.TypedInterface[string], obj any) {
	if node, ok := obj.(*v1.Node); ok {
		q.Add(node.Name)
	}
}

// pass is one monitor pass over the caches.
func (c *Controller) pass(ctx context.Context) {
	start := c.cfg.Clock.Now()
	defer func() { c.cfg.Metrics.passTook(c.cfg.Clock.Since(start)) }()
	nodes, err := c.cfg.Nodes.Lister().List(labels.Everything())
	if err != nil {
		c.cfg.Logger.Error("listing nodes", "err", err)
		return
	}
	sortNodes(nodes)

	// Upstream times each node's turn in the pass (judgement, status write,
	// taints, pods: node_collector_update_node_health_duration_seconds). The
	// Monitor reads a node's Lease first thing in its turn, node after node
	// in the listing's order, so a turn runs from that read to the next
	// node's, and the last one to the pass's return: it also holds the zone
	// step, which calls the API only when the cluster enters the
	// all-zones-down mode.
	var turn time.Time
	inTurn := false
	endTurn := func(now time.Time) {
		if inTurn {
			c.cfg.Metrics.nodeTook(now.Sub(turn))
		}
	}
	leaseLister := c.cfg.Leases.Lister().Leases(v1.NamespaceNodeLease)
	leaseStore := c.cfg.Leases.Informer().GetStore()
	indexer := c.cfg.Pods.Informer().GetIndexer()
	res, err := c.monitor.Pass(start, nodelifecycle.PassInput{
		Nodes: nodes,
		Lease: func(name string) *coordinationv1.Lease {
			now := c.cfg.Clock.Now()
			endTurn(now)
			turn, inTurn = now, true
			l, err := leaseLister.Get(name)
			if err != nil {
				return nil
			}
			return l
		},
		// What the lease cache holds, read when the breaker asks, as upstream reads
		// its store's: not the reflector's version, which runs ahead of the store.
		LeaseCacheRV: leaseStore.LastStoreSyncResourceVersion,
		Pods:         func(node string) ([]*v1.Pod, error) { return podindex.PodsOn(indexer, node) },
	}).Do(ctx, c.api)
	endTurn(c.cfg.Clock.Now())
	if err != nil {
		c.cfg.Logger.Error("monitor pass", "err", err)
	}
	events.Record(c.api.recorder, res.Events...)
	for _, tw := range res.Taints {
		if tw.Err == nil {
			c.cfg.Logger.Info("taints", "node", tw.Node, "add", taintKeys(tw.Swap.Add), "remove", taintKeys(tw.Swap.Remove), "reason", tw.Reason.String())
		}
	}
	for _, np := range res.Nodes {
		if np.TurnedNotReady {
			c.cfg.Logger.Info("node not ready", "node", np.Node.Name, "pods marked not ready", len(np.PodsNotReady))
		}
	}
	if c.evictor != nil {
		c.legacyPass(ctx, start, res)
		c.cfg.Metrics.zones(res, c.evictor.Queues(start))
		return
	}
	c.cfg.Metrics.zones(res, c.monitor.Queues(start))
}

// legacyPass carries out the legacy mode's part of a monitor pass: the
// Evictor queues and dequeues nodes, and the pods of a node evicted before
// that is due again are deleted at once.
func (c *Controller) legacyPass(ctx context.Context, now time.Time, res nodelifecycle.PassResult) {
	acts, err := c.evictor.AfterPass(now, res)
	if err != nil {
		c.cfg.Logger.Error("legacy eviction pass", "err", err)
	}
	for _, a := range acts {
		switch a.Op {
		case legacy.OpEnqueue:
			c.cfg.Logger.Info("node not ready longer than the pod eviction timeout, queued for pod deletion", "node", a.Node, "zone", a.Zone)
		case legacy.OpDequeue:
			c.cfg.Logger.Debug("node ready, pod eviction cancelled", "node", a.Node)
		case legacy.OpDeleteNow:
			pods, err := podindex.PodsOn(c.cfg.Pods.Informer().GetIndexer(), a.Node)
			if err == nil {
				err = c.deletePods(ctx, c.api, pods, a.Node, a.UID)
			}
			if err != nil {
				c.cfg.Logger.Error("deleting the pods of an evicted node", "node", a.Node, "err", err)
			}
		}
	}
}

// deletePods deletes a failed node's pods as the legacy mode does (package
// legacy's DeletePods) and records its events.
func (c *Controller) deletePods(ctx context.Context, a *api, pods []*v1.Pod, node string, uid types.UID) error {
	dsList, err := c.cfg.DaemonSets.Lister().List(labels.Everything())
	if err != nil {
		return fmt.Errorf("node lifecycle: listing DaemonSets: %w", err)
	}
	d, err := legacy.DeletePods(ctx, a, pods, node, uid, legacy.NewDaemonSets(dsList))
	events.Record(c.api.recorder, d.Events...)
	if len(d.Deleted) > 0 {
		c.cfg.Logger.Info("pods deleted", "node", node, "pods", podKeys(d.Deleted))
	}
	return err
}

func podKeys(pods []*v1.Pod) []string {
	out := make([]string, 0, len(pods))
	for _, p := range pods {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	return out
}

// drainLoop drains the zone queues every 100 ms until ctx ends.
func (c *Controller) drainLoop(ctx context.Context) {
	tick := c.cfg.Clock.NewTicker(nodelifecycle.DrainPeriod)
	defer tick.Stop()
	lister := c.cfg.Nodes.Lister()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C():
		}
		if c.evictor != nil {
			c.evictionPass(ctx)
			continue
		}
		writes, err := c.monitor.Drain(c.cfg.Clock.Now(), func(name string) (*v1.Node, bool) {
			n, err := lister.Get(name)
			return n, err == nil
		}).Do(ctx, c.api)
		if err != nil {
			c.cfg.Logger.Error("tainting pass", "err", err)
		}
		for _, tw := range writes {
			if tw.Err != nil {
				continue
			}
			c.cfg.Logger.Info("taints", "node", tw.Node, "add", taintKeys(tw.Swap.Add), "remove", taintKeys(tw.Swap.Remove), "reason", tw.Reason.String())
			if n, err := lister.Get(tw.Node); err == nil && len(tw.Swap.Add) > 0 {
				c.cfg.Metrics.evicted(nodelifecycle.ZoneKey(n))
			}
		}
	}
}

// evictionPass hands the legacy mode's due nodes their pod deletion
// (upstream v1.26 doEvictionPass); a node whose listing or deletion failed
// stays queued.
func (c *Controller) evictionPass(ctx context.Context) {
	indexer := c.cfg.Pods.Informer().GetIndexer()
	evicted, err := c.evictor.Drain(c.cfg.Clock.Now(), func(node string, uid types.UID) error {
		pods, err := podindex.PodsOn(indexer, node)
		if err != nil {
			return err
		}
		return c.deletePods(ctx, c.api, pods, node, uid)
	})
	if err != nil {
		c.cfg.Logger.Error("eviction pass", "err", err)
	}
	for _, e := range evicted {
		c.cfg.Logger.Info("node evicted", "node", e.Node)
		if _, err := c.cfg.Nodes.Lister().Get(e.Node); err == nil {
			c.cfg.Metrics.evicted(e.Zone)
		}
	}
}

// noScheduleWorker keeps each queued node's NoSchedule taints in line with
// its conditions (upstream doNoScheduleTaintingPass). A failed write is
// queued again with backoff; upstream drops it (a TODO in its source) until
// the node's next update, which a node that stopped posting may never have.
func (c *Controller) noScheduleWorker(ctx context.Context, q workqueue.TypedRateLimitingInterface[string]) {
	a := &api{client: c.cfg.Client, clock: c.cfg.Clock}
	for {
		name, shutdown := q.Get()
		if shutdown {
			return
		}
		if err := c.noScheduleTaints(ctx, a, name); err != nil {
			c.cfg.Logger.Error("NoSchedule taints, retrying", "node", name, "err", err)
			q.AddRateLimited(name)
		} else {
			q.Forget(name)
		}
		q.Done(name)
	}
}

// noScheduleTaints writes the NoSchedule taints the cached node's conditions
// call for; a node gone from the cache needs none.
func (c *Controller) noScheduleTaints(ctx context.Context, a *api, name string) error {
	node, err := c.cfg.Nodes.Lister().Get(name)
	if err != nil {
		return nil
	}
	add, remove := nodelifecycle.NoScheduleTaints(node)
	if s := (nodelifecycle.Swap{Add: add, Remove: remove}); !s.Empty() {
		return a.SwapTaints(ctx, name, s)
	}
	return nil
}

// podWorker marks each queued pod not ready when its node is not ready
// (upstream processPod). A pod whose node is missing from the cache, or
// whose marking failed, is queued again with backoff, as upstream does
// (which never forgets a pod's failures, so neither does this).
func (c *Controller) podWorker(ctx context.Context, q workqueue.TypedRateLimitingInterface[string]) {
	for {
		key, shutdown := q.Get()
		if shutdown {
			return
		}
		if !c.podBound(ctx, key) {
			q.AddRateLimited(key)
		}
		q.Done(key)
	}
}

// podBound handles one queued pod; it returns false to retry it.
func (c *Controller) podBound(ctx context.Context, key string) bool {
	ns, name, _ := cache.SplitMetaNamespaceKey(key)
	pod, err := c.cfg.Pods.Lister().Pods(ns).Get(name)
	if err != nil {
		return true // gone
	}
	if _, ok := c.monitor.Probe(pod.Spec.NodeName); !ok {
		return true // the node was never judged: its first pass marks the pod
	}
	if _, err := c.cfg.Nodes.Lister().Get(pod.Spec.NodeName); err != nil {
		c.cfg.Logger.Info("pod bound to a node not in the cache", "pod", key, "node", pod.Spec.NodeName)
		return false
	}
	now := c.cfg.Clock.Now()
	if c.evictor != nil && !c.legacyPodBound(ctx, now, pod) {
		return false
	}
	res, err := c.monitor.PodBound(now, pod).Do(ctx, c.api)
	events.Record(c.api.recorder, res.Events...)
	if err != nil {
		c.cfg.Logger.Error("marking pod not ready", "pod", key, "err", err)
		return false
	}
	return true
}

// legacyPodBound is the legacy mode's decision for a pod newly bound to a
// node (upstream v1.26 processPod): queue the node, or delete the pod at
// once when the node was evicted already. It returns false to retry the pod.
func (c *Controller) legacyPodBound(ctx context.Context, now time.Time, pod *v1.Pod) bool {
	node, err := c.cfg.Nodes.Lister().Get(pod.Spec.NodeName)
	if err != nil {
		return false
	}
	probe, ok := c.monitor.Probe(node.Name)
	if !ok {
		return true
	}
	op, _, err := c.evictor.PodBound(now, node.Name, node.UID, nodelifecycle.ZoneKey(node), &probe)
	if err != nil {
		c.cfg.Logger.Error("legacy eviction of a bound pod", "pod", pod.Namespace+"/"+pod.Name, "err", err)
		return false
	}
	if op == legacy.OpDeleteNow {
		if err := c.deletePods(ctx, c.api, []*v1.Pod{pod}, node.Name, node.UID); err != nil {
			c.cfg.Logger.Error("deleting a pod bound to an evicted node", "pod", pod.Namespace+"/"+pod.Name, "err", err)
			return false
		}
	}
	return true
}

func taintKeys(ts []v1.Taint) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Key+":"+string(t.Effect))
	}
	return out
}

// api is nodelifecycle.API over a clientset.
type api struct {
	client kubernetes.Interface
	clock  clock.PassiveClock
	// recorder receives the events of pods marked not ready; set by Run.
	recorder record.EventRecorder
}

var (
	_ nodelifecycle.API = (*api)(nil)
	_ legacy.PodAPI     = (*api)(nil)
)

func (a *api) GetLease(ctx context.Context, name string) (nodelifecycle.LiveLease, error) {
	l, err := a.client.CoordinationV1().Leases(v1.NamespaceNodeLease).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nodelifecycle.LiveLease{}, nil
	}
	if err != nil {
		return nodelifecycle.LiveLease{}, err
	}
	return nodelifecycle.LiveLease{Found: true, ResourceVersion: l.ResourceVersion}, nil
}

func (a *api) GetNode(ctx context.Context, name string) (*v1.Node, error) {
	return a.client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
}

func (a *api) UpdateNodeStatus(ctx context.Context, node *v1.Node) error {
	_, err := a.client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{})
	return err
}

// SwapTaints writes s to the node as upstream's SwapNodeControllerTaint does:
// it reads the node (from the API server's cache first, from etcd after a
// conflict), applies s and, unless that changes nothing, sends the new taint
// list as a strategic merge patch carrying the resourceVersion it read, so
// that a write which overtook the read is a conflict, tried again with
// upstream's backoff. A patch, not an update, keeps the fields of a newer
// Node than this client knows.
func (a *api) SwapTaints(ctx context.Context, name string, s nodelifecycle.Swap) error {
	// upstream's UpdateTaintBackoff: five tries, 100 ms apart, each wait
	// stretched by up to 100 %
	backoff := wait.Backoff{Steps: 5, Duration: 100 * time.Millisecond, Jitter: 1.0}
	read := metav1.GetOptions{ResourceVersion: "0"}
	return retry.RetryOnConflict(backoff, func() error {
		node, err := a.client.CoreV1().Nodes().Get(ctx, name, read)
		read = metav1.GetOptions{}
		if err != nil {
			return err
		}
		list := s.Apply(node.Spec.Taints, a.clock.Now())
		if equality.Semantic.DeepEqual(list, node.Spec.Taints) {
			return nil
		}
		patch, err := taintPatch(node.ResourceVersion, list)
		if err != nil {
			return fmt.Errorf("node %s: %w", name, err)
		}
		_, err = a.client.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, patch, metav1.PatchOptions{})
		return err
	})
}

// taintPatch is the strategic merge patch that sets a node's taints to list
// if its resourceVersion is still rv. spec.taints has no merge key, so the
// list replaces the stored one; an empty list removes the field.
func taintPatch(rv string, list []v1.Taint) ([]byte, error) {
	var p struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Spec struct {
			Taints []v1.Taint `json:"taints"`
		} `json:"spec"`
	}
	p.Metadata.ResourceVersion = rv
	if len(list) > 0 {
		p.Spec.Taints = list
	}
	return json.Marshal(p)
}

// UpdatePodStatus writes a pod marked not ready, or given reason NodeLost.
func (a *api) UpdatePodStatus(ctx context.Context, pod *v1.Pod) error {
	_, err := a.client.CoreV1().Pods(pod.Namespace).UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	return err
}

// DeletePod deletes a pod of a failed node (legacy mode), with default
// options as upstream.
func (a *api) DeletePod(ctx context.Context, pod *v1.Pod) error {
	return a.client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{})
}
