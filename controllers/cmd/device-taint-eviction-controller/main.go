// Command device-taint-eviction-controller is a drop-in for
// kube-controller-manager's device-taint-eviction-controller: it deletes
// the pods whose allocated DRA devices carry a NoExecute taint (of their
// ResourceSlice or of a DeviceTaintRule) that their claims do not
// tolerate, at once or when the toleration runs out, and keeps each
// DeviceTaintRule's EvictionInProgress condition. Run
// kube-controller-manager with --controllers=*,-device-taint-eviction-controller
// and one or more replicas of this program (they elect a leader on a
// Lease).
//
//	device-taint-eviction-controller --kubeconfig=$HOME/.kube/config
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

	"github.com/evictkit/eviction/controllers/devicetaintevictioncontroller"
	"github.com/evictkit/eviction/controllers/internal/command"
)

const name = devicetaintevictioncontroller.ControllerName

// options are the program's flags.
type options struct {
	client  command.Options
	workers int
}

// parse parses and checks the command line; the error is one line that
// names the bad flag and its value.
func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.client.Register(fs, name)
	fs.IntVar(&o.workers, "concurrent-device-taint-eviction-syncs", devicetaintevictioncontroller.DefaultWorkers,
		"The number of operations (evicting pods, updating DeviceTaintRule status) allowed to run concurrently.")
	if err := command.Parse(fs, args, stderr); err != nil {
		return o, err
	}
	if o.workers <= 0 || o.workers > 1<<20 {
		return o, fmt.Errorf("--concurrent-device-taint-eviction-syncs %d is not a number of workers (1 or more)", o.workers)
	}
	return o, o.client.Validate()
}

func main() {
	o, err := parse(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, name+": "+err.Error())
		os.Exit(2)
	}

	log := o.client.Logger(os.Stderr)
	reg := prometheus.NewRegistry()
	metrics, err := devicetaintevictioncontroller.NewMetrics(reg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	err = command.Main(o.client, name, reg, log, func(ctx context.Context, client kubernetes.Interface) error {
		factory := informers.NewSharedInformerFactory(client, 0)
		r := factory.Resource().V1()
		c, err := devicetaintevictioncontroller.New(devicetaintevictioncontroller.Config{
			Client:           client,
			Pods:             factory.Core().V1().Pods(),
			ResourceClaims:   r.ResourceClaims(),
			ResourceSlices:   r.ResourceSlices(),
			DeviceTaintRules: r.DeviceTaintRules(),
			DeviceClasses:    r.DeviceClasses(),
			Metrics:          metrics,
			Logger:           log,
			Workers:          o.workers,
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
