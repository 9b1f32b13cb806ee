// Command taint-eviction-controller is a drop-in for kube-controller-
// manager's taint-eviction controller: it deletes the pods that do not
// tolerate their node's NoExecute taints, at once or when their toleration
// runs out. Run kube-controller-manager with
// --controllers=*,-taint-eviction-controller and one or more replicas of this
// program (they elect a leader on a Lease).
//
//	taint-eviction-controller --kubeconfig=$HOME/.kube/config
//
// Without --kubeconfig it uses the in-cluster configuration.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/evictkit/eviction/controllers/internal/command"
	"github.com/evictkit/eviction/controllers/internal/queuemetrics"
	"github.com/evictkit/eviction/controllers/taintevictioncontroller"
)

// parse parses and checks the command line; the error is one line that
// names the bad flag and its value.
func parse(args []string, stderr io.Writer) (command.Options, error) {
	var o command.Options
	fs := flag.NewFlagSet(taintevictioncontroller.ControllerName, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.Register(fs, taintevictioncontroller.ControllerName)
	if err := command.Parse(fs, args, stderr); err != nil {
		return o, err
	}
	return o, o.Validate()
}

func main() {
	o, err := parse(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, taintevictioncontroller.ControllerName+": "+err.Error())
		os.Exit(2)
	}

	log := o.Logger(os.Stderr)
	reg := prometheus.NewRegistry()
	metrics, err := taintevictioncontroller.NewMetrics(reg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	queueMetrics, err := queuemetrics.New(reg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = command.Main(o, taintevictioncontroller.ControllerName, reg, log, func(ctx context.Context, client kubernetes.Interface) error {
		factory := informers.NewSharedInformerFactory(client, 0)
		c, err := taintevictioncontroller.New(taintevictioncontroller.Config{
			Client:       client,
			Pods:         factory.Core().V1().Pods(),
			Nodes:        factory.Core().V1().Nodes(),
			Metrics:      metrics,
			QueueMetrics: queueMetrics,
			Logger:       log,
		})
		if err != nil {
			return err
		}
		factory.Start(ctx.Done())
		defer factory.Shutdown()
		return c.Run(ctx)
	})
	if err != nil {
		log.Error("exiting", "err", err)
		os.Exit(1)
	}
}
