// Command pressure-evictor evicts, through the policy/v1 Eviction API, the
// pod the kubelet would kill for node pressure, a little before the kubelet
// has to: PodDisruptionBudgets hold and pods terminate gracefully. Run one per
// node (a DaemonSet, deploy/pressure-evictor):
//
//	pressure-evictor --node=$NODE_NAME --eviction-soft=memory.available<500Mi --eviction-soft-grace-period=memory.available=30s
//
// The threshold flags are the kubelet's, with the defaults of package
// pressureevictor (memory.available<500Mi for 30s), and so is
// --eviction-max-pod-grace-period (default 300 s here: the kubelet's 0 would
// be a forced deletion through the API). --cycle-timeout bounds each cycle
// and --summary-max-bytes the summary read; /healthz fails when no cycle
// completed for three intervals past the cycle timeout. --dry-run only logs
// and records events. Without --kubeconfig it uses the in-cluster
// configuration.
//
// The summary is read from the node's own kubelet,
// https://$NODE_IP:PORT/stats/summary (--node-ip, default $NODE_IP;
// --kubelet-port, default the Node's status.daemonEndpoints.kubeletEndpoint.Port),
// with the service-account token of --kubelet-token-file, re-read for every
// request, the kubelet's certificate verified against
// --kubelet-certificate-authority (default the service account's ca.crt),
// or not at all with --kubelet-insecure-skip-tls-verify, which is logged as
// a warning. The kubelet authorizes the read as get on nodes/stats.
// --summary-source=proxy reads it through the API server's node proxy
// instead, which needs get on nodes/proxy, a right that also reaches exec
// in every container of every node: use it only where pods cannot reach
// their kubelet.
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
	"sync/atomic"
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
	client          command.Options
	node            string
	interval        time.Duration
	cycleTimeout    time.Duration
	maxGrace        int64
	summaryMaxBytes int64
	dryRun          bool
	source          string
	kubelet         pressureevictor.KubeletConfig
	flags           thresholds.Flags
	ts              []thresholds.Threshold
}

// parse parses the command line; the error is one line.
func parse(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet(pressureevictor.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.client.RegisterClient(fs, 5, 10)
	fs.StringVar(&o.client.MetricsAddr, "metrics-bind-address", ":8080", `Address of the /metrics and /healthz endpoint; "0" turns it off.`)
	fs.StringVar(&o.node, "node", os.Getenv("NODE_NAME"), "The node whose pods are evicted (default $NODE_NAME).")
	fs.DurationVar(&o.interval, "interval", pressureevictor.DefaultInterval, "Time between two eviction cycles.")
	fs.DurationVar(&o.cycleTimeout, "cycle-timeout", pressureevictor.DefaultCycleTimeout, "Bound on one eviction cycle (summary read and evictions); /healthz fails when no cycle completed for three intervals past it.")
	fs.Int64Var(&o.maxGrace, "eviction-max-pod-grace-period", pressureevictor.DefaultMaxPodGracePeriodSeconds, "Maximum allowed grace period (in seconds) to use when evicting pods, as the kubelet's flag (applied to every eviction; at least 1 s is asked for). If negative, defer to pod specified value.")
	fs.Int64Var(&o.summaryMaxBytes, "summary-max-bytes", pressureevictor.DefaultSummaryMaxBytes, "Largest stats summary read, in bytes; a longer one skips the cycle.")
	fs.BoolVar(&o.dryRun, "dry-run", false, "Log and record events for what would be evicted; evict nothing.")
	fs.StringVar(&o.source, "summary-source", sourceKubelet, `Where the node's stats summary is read: "kubelet" reads https://NODE_IP:PORT/stats/summary from this node's kubelet with the service-account token, which needs get on nodes/stats; "proxy" reads it through the API server's node proxy, which needs get on nodes/proxy: that right also lets the token run commands (exec) in every container of every node, so grant it only on a cluster whose pods cannot reach their kubelet.`)
	fs.StringVar(&o.kubelet.Address, "node-ip", os.Getenv("NODE_IP"), "The IP address of the node's kubelet (default $NODE_IP; the DaemonSet sets it from status.hostIP).")
	fs.IntVar(&o.kubelet.Port, "kubelet-port", 0, "The kubelet's port; 0 reads the Node's status.daemonEndpoints.kubeletEndpoint.Port (10250 if it reports none), which needs get on nodes.")
	fs.StringVar(&o.kubelet.TokenFile, "kubelet-token-file", pressureevictor.DefaultTokenFile, "File holding the bearer token sent to the kubelet, read again for every request (projected tokens rotate).")
	fs.StringVar(&o.kubelet.CAFile, "kubelet-certificate-authority", pressureevictor.DefaultCAFile, "File of PEM certificates that verify the kubelet's serving certificate for the node IP (default the cluster CA the service account mounts, which signs kubelet serving certificates issued through the kubernetes.io/kubelet-serving signer).")
	fs.BoolVar(&o.kubelet.InsecureSkipTLSVerify, "kubelet-insecure-skip-tls-verify", false, "Do not verify the kubelet's serving certificate: whoever can answer in the kubelet's place gets the service-account token (which may evict any pod) and can feed the evictor false figures. Only for clusters whose kubelets serve self-signed certificates; logged as a warning at start.")
	fs.Var(repeated{&o.flags.Soft}, "eviction-soft", "Soft eviction thresholds, as the kubelet's flag (default "+pressureevictor.DefaultSoft+").")
	fs.Var(repeated{&o.flags.SoftGracePeriod}, "eviction-soft-grace-period", "Grace periods of the soft thresholds, as the kubelet's flag (default "+pressureevictor.DefaultSoftGracePeriod+").")
	fs.Var(repeated{&o.flags.MinimumReclaim}, "eviction-minimum-reclaim", "Minimum reclaims, as the kubelet's flag.")
	fs.Var(repeated{&o.flags.Hard}, "eviction-hard", "Hard eviction thresholds, as the kubelet's flag (default none).")
	if err := command.Parse(fs, args, stderr); err != nil {
		return o, err
	}
	if err := o.client.Validate(); err != nil {
		return o, err
	}
	switch {
	case o.node == "":
		return o, errors.New("--node is empty and NODE_NAME is not set")
	case o.interval <= 0:
		return o, fmt.Errorf("--interval %v is not positive", o.interval)
	case o.cycleTimeout <= 0:
		return o, fmt.Errorf("--cycle-timeout %v is not positive", o.cycleTimeout)
	case o.summaryMaxBytes <= 0:
		return o, fmt.Errorf("--summary-max-bytes %d is not positive", o.summaryMaxBytes)
	}
	ts, err := pressureevictor.ParseThresholds(o.flags)
	if err != nil {
		return o, err
	}
	o.ts = ts
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	switch o.source {
	case sourceKubelet:
		if o.kubelet.InsecureSkipTLSVerify {
			if set["kubelet-certificate-authority"] {
				return o, errors.New("--kubelet-certificate-authority and --kubelet-insecure-skip-tls-verify are both set: verify the kubelet or do not")
			}
			o.kubelet.CAFile = ""
		}
		if o.kubelet.Address == "" {
			return o, errors.New("--node-ip is empty and NODE_IP is not set (--summary-source=kubelet reads the node's kubelet at its IP)")
		}
		cfg := o.kubelet
		cfg.Node = o.node
		if err := cfg.Validate(); err != nil {
			return o, err
		}
	case sourceProxy:
		for _, name := range []string{"node-ip", "kubelet-port", "kubelet-token-file", "kubelet-certificate-authority", "kubelet-insecure-skip-tls-verify"} {
			if set[name] {
				return o, fmt.Errorf("--%s is set, but --summary-source=proxy does not reach the kubelet directly", name)
			}
		}
	default:
		return o, fmt.Errorf("--summary-source %q is not kubelet or proxy", o.source)
	}
	return o, nil
}

// The values of --summary-source.
const (
	sourceKubelet = "kubelet"
	sourceProxy   = "proxy"
)

// summarySource returns the source o names, reading the Node through
// client when the kubelet's port is not given. A source that cannot read
// verified is said so loudly in log.
func summarySource(o options, client kubernetes.Interface, log *slog.Logger) (pressureevictor.SummarySource, error) {
	if o.source == sourceProxy {
		log.Warn("reading the stats summary through the API server's node proxy (--summary-source=proxy): the service account needs get on nodes/proxy, which also allows exec in every container of every node",
			"node", o.node)
		return pressureevictor.ProxySource{Client: client, Node: o.node, MaxBytes: o.summaryMaxBytes}, nil
	}
	cfg := o.kubelet
	cfg.Node, cfg.Client, cfg.MaxBytes = o.node, client, o.summaryMaxBytes
	if cfg.InsecureSkipTLSVerify {
		log.Warn("TLS VERIFICATION OF THE KUBELET IS OFF (--kubelet-insecure-skip-tls-verify): whoever can answer at the node IP and kubelet port gets this pod's service-account token and can feed the evictor false figures; set --kubelet-certificate-authority instead",
			"node", o.node, "nodeIP", cfg.Address)
	}
	return pressureevictor.NewKubeletSource(cfg)
}

// errorLine is the line the program prints for err: its name, then the
// error as the package that made it wrote it.
func errorLine(err error) string {
	return pressureevictor.Name + ": " + err.Error()
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
	log := o.client.Logger(os.Stderr)
	reg := prometheus.NewRegistry()
	metrics, err := pressureevictor.NewMetrics(reg)
	if err != nil {
		fmt.Fprintln(os.Stderr, errorLine(err))
		os.Exit(1)
	}
	// /healthz reports the evictor's last completed cycle once it exists.
	var evictor atomic.Pointer[pressureevictor.Evictor]
	o.client.Healthz = func() error {
		if e := evictor.Load(); e != nil {
			return e.Healthy()
		}
		return nil
	}
	// One evictor per node: no leader election.
	err = command.Main(o.client, pressureevictor.Name, reg, log, func(ctx context.Context, client kubernetes.Interface) error {
		factory := informers.NewSharedInformerFactoryWithOptions(client, 0,
			informers.WithTweakListOptions(func(lo *metav1.ListOptions) {
				lo.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", o.node).String()
			}))
		pods := factory.Core().V1().Pods()
		source, err := summarySource(o, client, log)
		if err != nil {
			return err
		}
		e, err := pressureevictor.New(pressureevictor.Config{
			Client:     client,
			Node:       o.node,
			Pods:       pods.Lister(),
			PodsSynced: pods.Informer().HasSynced,
			Source:     source,
			Thresholds: o.ts,
			Interval:   o.interval,
			DryRun:     o.dryRun,
			Metrics:    metrics,
			Logger:     log.With("node", o.node),

			CycleTimeout:             o.cycleTimeout,
			MaxPodGracePeriodSeconds: &o.maxGrace,
		})
		if err != nil {
			return err
		}
		evictor.Store(e)
		factory.Start(ctx.Done())
		defer factory.Shutdown()
		log.Info("starting", "node", o.node, "summarySource", o.source, "interval", o.interval, "dryRun", o.dryRun, "thresholds", fmt.Sprint(o.ts))
		return e.Run(ctx)
	})
	if err != nil {
		log.Error("exiting", "err", err)
		os.Exit(1)
	}
}
