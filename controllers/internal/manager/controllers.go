package manager

import (
	"context"
	"flag"
	"fmt"

	"github.com/evictkit/eviction/controllers/devicetaintevictioncontroller"
	"github.com/evictkit/eviction/controllers/nodelifecyclecontroller"
	"github.com/evictkit/eviction/controllers/taintevictioncontroller"
)

// NodeLifecycle is kube-controller-manager's node-lifecycle-controller,
// with its flags (see [nodelifecyclecontroller.Flags]).
func NodeLifecycle() Controller { return &nodeLifecycle{} }

type nodeLifecycle struct {
	flags    nodelifecyclecontroller.Flags
	settings nodelifecyclecontroller.Settings
	metrics  *nodelifecyclecontroller.Metrics
}

func (*nodeLifecycle) Name() string                { return nodelifecyclecontroller.ControllerName }
func (c *nodeLifecycle) Register(fs *flag.FlagSet) { c.flags.Register(fs) }

func (c *nodeLifecycle) Check(fs *flag.FlagSet) (err error) {
	c.settings, err = c.flags.Settings(fs)
	return err
}

func (c *nodeLifecycle) Prepare(p *Process) (err error) {
	if c.settings.TimeoutIgnored {
		p.Logger.Warn("--pod-eviction-timeout has no effect while --enable-taint-manager is true")
	}
	c.metrics, err = nodelifecyclecontroller.NewMetrics(p.Registry)
	return err
}

func (c *nodeLifecycle) Start(p *Process, t *Term) (func(context.Context) error, error) {
	queues, err := p.QueueMetrics()
	if err != nil {
		return nil, err
	}
	client, err := t.ClientOf(nodelifecyclecontroller.ControllerName)
	if err != nil {
		return nil, err
	}
	cfg := nodelifecyclecontroller.Config{
		Client:   client,
		Nodes:    t.Informers.Core().V1().Nodes(),
		Pods:     t.Informers.Core().V1().Pods(),
		Settings: c.settings.Config,
		// Node Leases live in kube-node-lease; RBAC grants no other.
		Leases:       t.NodeLeases().Coordination().V1().Leases(),
		Metrics:      c.metrics,
		QueueMetrics: queues.Workqueue(),
		Logger:       p.Logger,
		// No Recorder: Run records the events to the API server (source
		// node-controller, as kube-controller-manager's) through a
		// broadcaster it shuts down when it returns.
	}
	if c.settings.Legacy != nil {
		cfg.Legacy, cfg.DaemonSets = c.settings.Legacy, t.Informers.Apps().V1().DaemonSets()
	}
	ctl, err := nodelifecyclecontroller.New(cfg)
	if err != nil {
		return nil, err
	}
	return ctl.Run, nil
}

// TaintEviction is kube-controller-manager's taint-eviction-controller. It
// has no flags of its own.
func TaintEviction() Controller { return &taintEviction{} }

// taintEvictionWorkers bounds the deletions the taint-eviction controller
// makes at once. Upstream starts each due eviction on a goroutine of its
// own, bounded only by the client's rate limit (kube-controller-manager has
// no flag for it); with GOMAXPROCS workers (the package's default) a
// cluster-wide taint on 2 cores evicted at half kcm's pace, one round trip
// per worker at a time, far below --kube-api-qps. 64 keep up with any rate
// limit a cluster sets, and bound the goroutines.
const taintEvictionWorkers = 64

type taintEviction struct {
	metrics *taintevictioncontroller.Metrics
}

func (*taintEviction) Name() string              { return taintevictioncontroller.ControllerName }
func (*taintEviction) Register(*flag.FlagSet)    {}
func (*taintEviction) Check(*flag.FlagSet) error { return nil }

func (c *taintEviction) Prepare(p *Process) (err error) {
	c.metrics, err = taintevictioncontroller.NewMetrics(p.Registry)
	return err
}

func (c *taintEviction) Start(p *Process, t *Term) (func(context.Context) error, error) {
	queues, err := p.QueueMetrics()
	if err != nil {
		return nil, err
	}
	client, err := t.ClientOf(taintevictioncontroller.ControllerName)
	if err != nil {
		return nil, err
	}
	ctl, err := taintevictioncontroller.New(taintevictioncontroller.Config{
		Client:       client,
		Pods:         t.Informers.Core().V1().Pods(),
		Nodes:        t.Informers.Core().V1().Nodes(),
		Metrics:      c.metrics,
		QueueMetrics: queues,
		Logger:       p.Logger,
		Workers:      taintEvictionWorkers,
	})
	if err != nil {
		return nil, err
	}
	return ctl.Run, nil
}

// DeviceTaintEviction is kube-controller-manager's
// device-taint-eviction-controller, with its
// --concurrent-device-taint-eviction-syncs.
func DeviceTaintEviction() Controller { return &deviceTaintEviction{} }

type deviceTaintEviction struct {
	workers int
	metrics *devicetaintevictioncontroller.Metrics
}

func (*deviceTaintEviction) Name() string { return devicetaintevictioncontroller.ControllerName }

func (c *deviceTaintEviction) Register(fs *flag.FlagSet) {
	fs.IntVar(&c.workers, "concurrent-device-taint-eviction-syncs", devicetaintevictioncontroller.DefaultWorkers,
		"The number of operations (evicting pods, updating DeviceTaintRule status) allowed to run concurrently.")
}

func (c *deviceTaintEviction) Check(*flag.FlagSet) error {
	if c.workers <= 0 || c.workers > 1<<20 {
		return fmt.Errorf("--concurrent-device-taint-eviction-syncs %d is not a number of workers (1 or more)", c.workers)
	}
	return nil
}

func (c *deviceTaintEviction) Prepare(p *Process) (err error) {
	c.metrics, err = devicetaintevictioncontroller.NewMetrics(p.Registry)
	return err
}

func (c *deviceTaintEviction) Start(p *Process, t *Term) (func(context.Context) error, error) {
	r := t.Informers.Resource().V1()
	client, err := t.ClientOf(devicetaintevictioncontroller.ControllerName)
	if err != nil {
		return nil, err
	}
	ctl, err := devicetaintevictioncontroller.New(devicetaintevictioncontroller.Config{
		Client:           client,
		Pods:             t.Informers.Core().V1().Pods(),
		ResourceClaims:   r.ResourceClaims(),
		ResourceSlices:   r.ResourceSlices(),
		DeviceTaintRules: r.DeviceTaintRules(),
		DeviceClasses:    r.DeviceClasses(),
		Metrics:          c.metrics,
		Logger:           p.Logger,
		Workers:          c.workers,
	})
	if err != nil {
		return nil, err
	}
	return ctl.Run, nil
}
