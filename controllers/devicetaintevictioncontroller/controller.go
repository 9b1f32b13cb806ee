package devicetaintevictioncontroller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	coreinformers "k8s.io/client-go/informers/core/v1"
	resourceinformers "k8s.io/client-go/informers/resource/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"

	"github.com/evictkit/eviction/devicetaints"
	"github.com/evictkit/eviction/events"
)

// ControllerName is the controller's name in kube-controller-manager
// (--controllers), the source of its events and the field manager of its
// DeviceTaintRule status writes.
const ControllerName = devicetaints.DefaultName

// DefaultWorkers is the default of kube-controller-manager's
// --concurrent-device-taint-eviction-syncs: the pod deletions and rule
// status writes carried out at once.
const DefaultWorkers = 8

// Config is what New needs. Client and the five informers are required.
type Config struct {
	// Client gets, patches and deletes pods and applies rule statuses.
	Client kubernetes.Interface
	// The shared informers the controller watches. DeviceClasses is only
	// waited for, as upstream does.
	Pods             coreinformers.PodInformer
	ResourceClaims   resourceinformers.ResourceClaimInformer
	ResourceSlices   resourceinformers.ResourceSliceInformer
	DeviceTaintRules resourceinformers.DeviceTaintRuleInformer
	DeviceClasses    resourceinformers.DeviceClassInformer
	// Recorder receives the controller's events; nil sends them to the API
	// server with ControllerName as source.
	Recorder record.EventRecorder
	// Metrics records deletions; nil records nothing.
	Metrics *Metrics
	// Logger receives the controller's log lines; nil discards them.
	Logger *slog.Logger
	// Clock is the controller's time; nil is the real clock.
	Clock clock.WithTicker
	// Workers bounds the deletions and status writes carried out at once;
	// 0 means DefaultWorkers.
	Workers int
	// Options are the core's decision options (feature gates); the zero
	// value is upstream's default.
	Options devicetaints.Options
}

// Controller deletes the pods whose allocated devices have NoExecute
// taints that their claims do not tolerate, and keeps the
// EvictionInProgress condition of every DeviceTaintRule, as
// kube-controller-manager's device-taint-eviction-controller does.
type Controller struct {
	cfg Config

	// mu guards everything below and the core: every informer event, every
	// report of a task and every timer tick is handled under it.
	mu       sync.Mutex
	cond     *sync.Cond // signals tasks or stop to the workers
	core     *devicetaints.Controller
	synced   bool // the caches synced: Step runs from then on
	stopped  bool
	tasks    []task
	timer    clock.Timer
	recorder record.EventRecorder
	backoff  workqueue.TypedRateLimiter[string]
	handled  map[string]int // informer events handled by kind, for tests
}

// task is one unit of work for a worker: an eviction or a status write.
type task struct {
	eviction *devicetaints.Eviction
	status   *devicetaints.RuleStatus
}

// New returns a controller over cfg's informers, which it requests from
// their factory: start the factory after New. Nothing happens until Run.
func New(cfg Config) (*Controller, error) {
	if cfg.Client == nil || cfg.Pods == nil || cfg.ResourceClaims == nil || cfg.ResourceSlices == nil ||
		cfg.DeviceTaintRules == nil || cfg.DeviceClasses == nil {
		return nil, errors.New("device taint eviction: Config needs Client, Pods, ResourceClaims, ResourceSlices, DeviceTaintRules and DeviceClasses")
	}
	if cfg.Workers < 0 {
		return nil, fmt.Errorf("device taint eviction: Workers %d is negative", cfg.Workers)
	}
	if cfg.Workers == 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.Clock == nil {
		cfg.Clock = clock.RealClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	// Request every informer now, so that the factory's Start (after New)
	// starts them all.
	cfg.Pods.Informer()
	cfg.ResourceClaims.Informer()
	cfg.ResourceSlices.Informer()
	cfg.DeviceTaintRules.Informer()
	cfg.DeviceClasses.Informer()
	return &Controller{cfg: cfg}, nil
}

// Run watches the informers, deletes pods and writes rule statuses until
// ctx ends; the informers must be started by the caller. Nothing is
// decided before the caches synced, and nothing scheduled survives Run: a
// controller started later (the next leader) recomputes every eviction
// from its informers. Run returns nil when ctx ends, an error if the
// caches never synced.
func (c *Controller) Run(ctx context.Context) error {
	recorder := c.cfg.Recorder
	if recorder == nil {
		b := record.NewBroadcaster(record.WithContext(ctx))
		b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.cfg.Client.CoreV1().Events("")})
		defer b.Shutdown()
		recorder = b.NewRecorder(scheme.Scheme, v1.EventSource{Component: ControllerName})
	}
	c.mu.Lock()
	c.cond = sync.NewCond(&c.mu)
	c.core = devicetaints.NewController(c.cfg.Options)
	c.synced, c.stopped, c.tasks = false, false, nil
	c.handled = make(map[string]int)
	c.recorder = recorder
	c.backoff = workqueue.DefaultTypedControllerRateLimiter[string]()
	c.timer = c.cfg.Clock.NewTimer(time.Hour)
	c.timer.Stop()
	timerC := c.timer.C()
	c.mu.Unlock()

	var wg sync.WaitGroup
	defer func() {
		c.mu.Lock()
		c.stopped = true
		c.timer.Stop()
		c.cond.Broadcast()
		c.mu.Unlock()
		wg.Wait()
	}()

	var regs []func()
	defer func() {
		for _, remove := range regs {
			remove()
		}
	}()
	add := func(inf cache.SharedIndexInformer, h cache.ResourceEventHandlerFuncs) (cache.ResourceEventHandlerRegistration, error) {
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			return nil, fmt.Errorf("device taint eviction: handler: %w", err)
		}
		regs = append(regs, func() { _ = inf.RemoveEventHandler(reg) })
		return reg, nil
	}
	podReg, err := add(c.cfg.Pods.Informer(), handlers(func(old, obj *v1.Pod) { c.handle("pod", func() { c.core.PodChanged(old, obj) }) }))
	if err != nil {
		return err
	}
	claimReg, err := add(c.cfg.ResourceClaims.Informer(), handlers(func(old, obj *resourceapi.ResourceClaim) {
		c.handle("claim", func() { c.core.ClaimChanged(old, obj) })
	}))
	if err != nil {
		return err
	}
	sliceReg, err := add(c.cfg.ResourceSlices.Informer(), handlers(func(old, obj *resourceapi.ResourceSlice) {
		c.handle("slice", func() { c.core.SliceChanged(old, obj) })
	}))
	if err != nil {
		return err
	}
	ruleReg, err := add(c.cfg.DeviceTaintRules.Informer(), handlers(func(old, obj *resourceapi.DeviceTaintRule) {
		c.handle("rule", func() { c.core.RuleChanged(Rule(old), Rule(obj)) })
	}))
	if err != nil {
		return err
	}

	if !cache.WaitForCacheSync(ctx.Done(), podReg.HasSynced, claimReg.HasSynced, sliceReg.HasSynced, ruleReg.HasSynced,
		c.cfg.DeviceClasses.Informer().HasSynced) {
		if ctx.Err() != nil {
			return nil
		}
		return errors.New("device taint eviction: caches did not sync")
	}

	for range c.cfg.Workers {
		wg.Go(func() { c.worker(ctx) })
	}
	wg.Go(func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-timerC:
				c.handle("", nil)
			}
		}
	})
	c.mu.Lock()
	c.synced = true
	c.step()
	c.mu.Unlock()
	c.cfg.Logger.Info("started", "controller", ControllerName, "workers", c.cfg.Workers)
	<-ctx.Done()
	c.cfg.Logger.Info("stopping", "controller", ControllerName)
	return nil
}

// handlers returns informer handlers that call f with the old and new
// object (nil for none), a deleted object's last state taken from its
// tombstone.
func handlers[T any](f func(old, obj *T)) cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if o, ok := obj.(*T); ok {
				f(nil, o)
			}
		},
		UpdateFunc: func(old, obj any) {
			o, ok1 := old.(*T)
			n, ok2 := obj.(*T)
			if ok1 && ok2 {
				f(o, n)
			}
		},
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if o, ok := obj.(*T); ok {
				f(o, nil)
			}
		},
	}
}

// Rule converts a DeviceTaintRule into the core's value; nil stays nil.
func Rule(r *resourceapi.DeviceTaintRule) *devicetaints.Rule {
	if r == nil {
		return nil
	}
	return &devicetaints.Rule{
		Name:       r.Name,
		UID:        r.UID,
		Generation: r.Generation,
		Selector:   (*devicetaints.Selector)(r.Spec.DeviceSelector),
		Taint:      r.Spec.Taint,
		Conditions: r.Status.Conditions,
	}
}

// handle runs f (a call of the core, for an informer event of kind; nil
// for a timer tick) under the lock, then a step.
func (c *Controller) handle(kind string, f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped || c.core == nil {
		return
	}
	if f != nil {
		f()
		c.handled[kind]++
	}
	c.step()
}

// step runs the core at now and hands out its result: events to the
// recorder, status writes and evictions to the workers; it arms the timer
// for the next step. Called with c.mu held, once the caches synced.
func (c *Controller) step() {
	if !c.synced || c.stopped {
		return
	}
	now := c.cfg.Clock.Now()
	res := c.core.Step(now)
	events.Record(c.recorder, res.Events...)
	for i := range res.Statuses {
		c.tasks = append(c.tasks, task{status: &res.Statuses[i]})
	}
	for i := range res.Evictions {
		c.tasks = append(c.tasks, task{eviction: &res.Evictions[i]})
	}
	if len(res.Statuses)+len(res.Evictions) > 0 {
		c.cond.Broadcast()
	}
	c.timer.Stop()
	if !res.Next.IsZero() {
		c.timer.Reset(max(res.Next.Sub(now), 0))
	}
}

// worker carries out tasks until the controller stops.
func (c *Controller) worker(ctx context.Context) {
	for {
		c.mu.Lock()
		for len(c.tasks) == 0 && !c.stopped {
			c.cond.Wait()
		}
		if c.stopped {
			c.mu.Unlock()
			return
		}
		t := c.tasks[0]
		c.tasks[0] = task{}
		c.tasks = c.tasks[1:]
		c.mu.Unlock()
		if t.eviction != nil {
			c.evict(ctx, *t.eviction)
		} else {
			c.writeStatus(ctx, *t.status)
		}
	}
}

// retryAt is when to try a failed task again: client-go's default
// controller rate limiter, upstream's (per item 5 ms doubling to 1000 s,
// and 10 per second overall).
func (c *Controller) retryAt(key string) time.Time {
	return c.cfg.Clock.Now().Add(c.backoff.When(key))
}

// handledEvents returns the number of informer events of kind ("pod",
// "claim", "slice", "rule") handled (for tests).
func (c *Controller) handledEvents(kind string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.handled[kind]
}
