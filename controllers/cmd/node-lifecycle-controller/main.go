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
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/evictkit/eviction/controllers/internal/command"
	"github.com/evictkit/eviction/controllers/nodelifecyclecontroller"
	"github.com/evictkit/eviction/nodelifecycle"
)

func main() {
	var o command.Options
	fs := flag.NewFlagSet(nodelifecyclecontroller.ControllerName, flag.ExitOnError)
	o.Register(fs, nodelifecyclecontroller.ControllerName)
	var s nodelifecycle.Config
	var secondary float64
	fs.DurationVar(&s.MonitorPeriod, "node-monitor-period", 5*time.Second, "The period for syncing NodeStatus in NodeLifecycleController.")
	fs.DurationVar(&s.MonitorGracePeriod, "node-monitor-grace-period", 50*time.Second, "Amount of time which we allow running Node to be unresponsive before marking it unhealthy.")
	fs.DurationVar(&s.StartupGracePeriod, "node-startup-grace-period", 60*time.Second, "Amount of time which we allow starting Node to be unresponsive before marking it unhealthy.")
	rate := fs.Float64("node-eviction-rate", 0.1, "Number of nodes per second on which pods are deleted in case of node failure when a zone is healthy.")
	fs.Float64Var(&secondary, "secondary-node-eviction-rate", 0.01, "Number of nodes per second on which pods are deleted in case of node failure when a zone is unhealthy.")
	large := fs.Int("large-cluster-size-threshold", 50, "Number of nodes from which the controller treats the cluster as large for the eviction logic purposes.")
	unhealthy := fs.Float64("unhealthy-zone-threshold", 0.55, "Fraction of Nodes in a zone which needs to be not Ready (minimum 3) for zone to be treated as unhealthy.")
	_ = fs.Parse(os.Args[1:])
	s.EvictionRate, s.StopEviction = float32(*rate), *rate == 0
	s.SecondaryEvictionRate, s.StopSecondaryEviction = float32(secondary), secondary == 0
	s.LargeClusterThreshold = int32(*large)
	s.UnhealthyZoneThreshold = float32(*unhealthy)

	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	reg := prometheus.NewRegistry()
	metrics, err := nodelifecyclecontroller.NewMetrics(reg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = command.Main(o, nodelifecyclecontroller.ControllerName, reg, log, func(ctx context.Context, client kubernetes.Interface) error {
		factory := informers.NewSharedInformerFactory(client, 0)
		// Node Leases live in kube-node-lease; RBAC grants no other.
		leases := informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(v1.NamespaceNodeLease))
		// No Recorder: Run records the events to the API server (source
		// node-controller, as kube-controller-manager's) through a
		// broadcaster it shuts down when it returns.
		c, err := nodelifecyclecontroller.New(nodelifecyclecontroller.Config{
			Client:   client,
			Nodes:    factory.Core().V1().Nodes(),
			Pods:     factory.Core().V1().Pods(),
			Leases:   leases.Coordination().V1().Leases(),
			Settings: s,
			Metrics:  metrics,
			Logger:   log,
		})
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
