// Command node-lifecycle-controller is a drop-in for kube-controller-
// manager's node lifecycle controller: it marks silent nodes Unknown, marks
// their pods not ready and taints them NoSchedule and NoExecute, rate-limited
// per zone, with kube-controller-manager's flags and defaults, and records
// its events (RegisteredNode, NodeNotReady, ...). Run
// kube-controller-manager with --controllers=*,-node-lifecycle-controller
// and one or more replicas of this program (they elect a leader on a Lease).
//
//	node-lifecycle-controller --kubeconfig=$HOME/.kube/config --node-monitor-grace-period=50s
//
// Without --kubeconfig it uses the in-cluster configuration.
//
// --enable-taint-manager=false runs kube-controller-manager v1.26's legacy
// mode (off by default, gone from kube-controller-manager since v1.27): no
// NoExecute taint is written, and the pods of a node whose Ready condition
// has been False or Unknown for longer than --pod-eviction-timeout (5m0s) are
// deleted by the controller itself, rate-limited per zone, DaemonSet pods
// kept. That mode also lists and watches DaemonSets and deletes pods, which
// deploy/rbac.yaml does not grant.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/evictkit/eviction/controllers/internal/command"
	"github.com/evictkit/eviction/controllers/internal/queuemetrics"
	"github.com/evictkit/eviction/controllers/nodelifecyclecontroller"
	"github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/nodelifecycle/legacy"
)

type options struct {
	client   command.Options
	settings nodelifecycle.Config
	// legacy is the legacy pod eviction mode's settings, nil when the
	// taint manager is on (the default).
	legacy *legacy.Config
	// timeoutIgnored: --pod-eviction-timeout was set with the taint manager
	// on, where it means nothing (kube-controller-manager v1.26 ignored it).
	timeoutIgnored bool
}

// parse parses and checks the command line; the error is one line that
// names the bad flag and its value.
func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet(nodelifecyclecontroller.ControllerName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.client.Register(fs, nodelifecyclecontroller.ControllerName)
	var nf nodelifecycle.Flags
	nf.Register(fs)
	taintManager := fs.Bool("enable-taint-manager", true, "If false, run kube-controller-manager v1.26's legacy mode: no NoExecute taints; the controller deletes the pods of a node not ready for longer than --pod-eviction-timeout itself.")
	timeout := fs.Duration("pod-eviction-timeout", legacy.DefaultPodEvictionTimeout, "The grace period for deleting pods on failed nodes (only with --enable-taint-manager=false).")
	if err := command.Parse(fs, args, stderr); err != nil {
		return o, err
	}
	if err := o.client.Validate(); err != nil {
		return o, err
	}
	if *timeout <= 0 {
		return o, fmt.Errorf("--pod-eviction-timeout %v is not positive", *timeout)
	}
	if *taintManager {
		fs.Visit(func(f *flag.Flag) { o.timeoutIgnored = o.timeoutIgnored || f.Name == "pod-eviction-timeout" })
	} else {
		o.legacy = &legacy.Config{PodEvictionTimeout: *timeout}
	}
	settings, err := nf.Config()
	if err != nil {
		return o, err
	}
	o.settings = settings
	return o, nil
}

func main() {
	o, err := parse(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, nodelifecyclecontroller.ControllerName+": "+err.Error())
		os.Exit(2)
	}
	s := o.settings

	log := o.client.Logger(os.Stderr)
	if o.timeoutIgnored {
		log.Warn("--pod-eviction-timeout has no effect while --enable-taint-manager is true")
	}
	reg := prometheus.NewRegistry()
	metrics, err := nodelifecyclecontroller.NewMetrics(reg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	queueMetrics, err := queuemetrics.New(reg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = command.Main(o.client, nodelifecyclecontroller.ControllerName, reg, log, func(ctx context.Context, client kubernetes.Interface) error {
		factory := informers.NewSharedInformerFactory(client, 0)
		cfg := nodelifecyclecontroller.Config{
			Client:       client,
			Nodes:        factory.Core().V1().Nodes(),
			Pods:         factory.Core().V1().Pods(),
			Settings:     s,
			Metrics:      metrics,
			QueueMetrics: queueMetrics.Workqueue(),
			Logger:       log,
		}
		if o.legacy != nil {
			cfg.Legacy, cfg.DaemonSets = o.legacy, factory.Apps().V1().DaemonSets()
		}
		// Node Leases live in kube-node-lease; RBAC grants no other.
		leases := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(v1.NamespaceNodeLease))
		// No Recorder: Run records the events to the API server (source
		// node-controller, as kube-controller-manager's) through a
		// broadcaster it shuts down when it returns.
		cfg.Leases = leases.Coordination().V1().Leases()
		c, err := nodelifecyclecontroller.New(cfg)
		if err != nil {
			return err
		}
		factory.Start(ctx.Done())
		leases.Start(ctx.Done())
		defer factory.Shutdown()
		defer leases.Shutdown()
		return c.Run(ctx)
	})
	if err != nil {
		log.Error("exiting", "err", err)
		os.Exit(1)
	}
}
