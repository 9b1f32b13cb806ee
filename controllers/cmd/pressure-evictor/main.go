// Command pressure-evictor evicts, through the policy/v1 Eviction API, the
// pod the kubelet would kill for node pressure, a little before the kubelet
// has to: PodDisruptionBudgets hold and pods terminate gracefully. Run one per
// node (a DaemonSet, deploy/pressure-evictor):
//
//	pressure-evictor --node=$NODE_NAME --eviction-soft=memory.available<500Mi --eviction-soft-grace-period=memory.available=30s
//
// The threshold flags are the kubelet's, with the defaults of package
// pressureevictor (memory.available<500Mi for 30s). --dry-run only logs and
// records events. Without --kubeconfig it uses the in-cluster configuration.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/evictkit/eviction/controllers/internal/command"
	"github.com/evictkit/eviction/controllers/pressureevictor"
	"github.com/evictkit/eviction/thresholds"
)

// repeated collects every occurrence of a flag; nil means not given.
type repeated struct{ values *[]string }

func (r repeated) String() string {
	if r.values == nil {
		return ""
	}
	return strings.Join(*r.values, ",")
}

func (r repeated) Set(v string) error {
	*r.values = append(*r.values, v)
	return nil
}

type options struct {
	client   command.Options
	node     string
	interval time.Duration
	dryRun   bool
	flags    thresholds.Flags
	ts       []thresholds.Threshold
}

// parse parses the command line; the error is one line.
func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet(pressureevictor.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.client.Kubeconfig, "kubeconfig", "", "Path to a kubeconfig file; empty means the in-cluster configuration.")
	fs.StringVar(&o.client.Master, "master", "", "The address of the Kubernetes API server (overrides any value in kubeconfig).")
	fs.Float64Var(&o.client.QPS, "kube-api-qps", 5, "QPS to use while talking with the API server.")
	fs.IntVar(&o.client.Burst, "kube-api-burst", 10, "Burst to use while talking with the API server.")
	fs.StringVar(&o.client.MetricsAddr, "metrics-bind-address", ":8080", `Address of the /metrics and /healthz endpoint; "0" turns it off.`)
	fs.StringVar(&o.node, "node", os.Getenv("NODE_NAME"), "The node whose pods are evicted (default $NODE_NAME).")
	fs.DurationVar(&o.interval, "interval", pressureevictor.DefaultInterval, "Time between two eviction cycles.")
	fs.BoolVar(&o.dryRun, "dry-run", false, "Log and record events for what would be evicted; evict nothing.")
	fs.Var(repeated{&o.flags.Soft}, "eviction-soft", "Soft eviction thresholds, as the kubelet's flag (default "+pressureevictor.DefaultSoft+").")
	fs.Var(repeated{&o.flags.SoftGracePeriod}, "eviction-soft-grace-period", "Grace periods of the soft thresholds, as the kubelet's flag (default "+pressureevictor.DefaultSoftGracePeriod+").")
	fs.Var(repeated{&o.flags.MinimumReclaim}, "eviction-minimum-reclaim", "Minimum reclaims, as the kubelet's flag.")
	fs.Var(repeated{&o.flags.Hard}, "eviction-hard", "Hard eviction thresholds, as the kubelet's flag (default none).")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.PrintDefaults()
		}
		return o, err
	}
	switch {
	case fs.NArg() > 0:
		return o, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	case o.node == "":
		return o, errors.New("--node is empty and NODE_NAME is not set")
	case o.interval <= 0:
		return o, fmt.Errorf("--interval %v is not positive", o.interval)
	}
	ts, err := pressureevictor.ParseThresholds(o.flags)
	if err != nil {
		return o, err
	}
	o.ts = ts
	return o, nil
}

// errorLine is the line the program prints for err: its name, then the
// error, the package prefix of an error of package pressureevictor left out
// (the program's name says as much), so that it reads
// "pressure-evictor: eviction-soft ...".
func errorLine(err error) string {
	return pressureevictor.Name + ": " + strings.TrimPrefix(err.Error(), "pressureevictor: ")
}

func main() {
	o, err := parse(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, errorLine(err))
		os.Exit(2)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	reg := prometheus.NewRegistry()
	metrics, err := pressureevictor.NewMetrics(reg)
	if err != nil {
		fmt.Fprintln(os.Stderr, errorLine(err))
		os.Exit(1)
	}
	// One evictor per node: no leader election.
	err = command.Main(o.client, pressureevictor.Name, reg, log, func(ctx context.Context, client kubernetes.Interface) error {
		factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
			informers.WithTweakListOptions(func(lo *metav1.ListOptions) {
				lo.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", o.node).String()
			}))
		pods := factory.Core().V1().Pods()
		e, err := pressureevictor.New(pressureevictor.Config{
			Client:     client,
			Node:       o.node,
			Pods:       pods.Lister(),
			PodsSynced: pods.Informer().HasSynced,
			Source:     pressureevictor.NewProxySource(client, o.node),
			Thresholds: o.ts,
			Interval:   o.interval,
			DryRun:     o.dryRun,
			Metrics:    metrics,
			Logger:     log.With("node", o.node),
		})
		if err != nil {
			return err
		}
		factory.Start(ctx.Done())
		defer factory.Shutdown()
		log.Info("starting", "node", o.node, "interval", o.interval, "dryRun", o.dryRun, "thresholds", fmt.Sprint(o.ts))
		return e.Run(ctx)
	})
	if err != nil {
		log.Error("exiting", "err", err)
		os.Exit(1)
	}
}
