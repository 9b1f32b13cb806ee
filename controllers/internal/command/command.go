// Package command is what both controller programs share: kube-controller-
// manager's client and leader-election flags, the kubeconfig or in-cluster
// configuration, the metrics and health endpoint, leader election on a Lease,
// and a shutdown on SIGTERM or SIGINT that cancels the controller's context.
package command

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"
)

// Options are the flags every controller program takes. The names and
// defaults are kube-controller-manager's where it has the flag.
type Options struct {
	Kubeconfig string
	Master     string
	QPS        float64
	Burst      int
	// ContentType is what the client encodes requests in and asks answers
	// in: protobuf by default, as kube-controller-manager does (a watch of
	// every pod costs several times the CPU in JSON); "" is client-go's
	// default, JSON.
	ContentType string

	LeaderElect   bool
	LeaseDuration time.Duration
	RenewDeadline time.Duration
	RetryPeriod   time.Duration
	LeaseName     string
	LeaseNS       string

	// StartupTimeout bounds the wait for the API server's first answer:
	// past it Main returns an error instead of retrying for ever.
	StartupTimeout time.Duration

	MetricsAddr string
	// Profiling serves Go's profiles (net/http/pprof) at /debug/pprof/ on
	// the metrics address. kube-controller-manager's --profiling defaults
	// to true, behind its secure port's authentication; the metrics
	// address has none, so here it is off unless asked for.
	Profiling bool

	// Verbosity is -v, kube-controller-manager's log verbosity: [Options.Logger]
	// shows messages of slog level -Verbosity and above, which is klog's
	// V(Verbosity) for client-go's messages (V(n) is slog level -n), so -v=4
	// shows the programs' Debug messages, as it shows kcm's V(4) ones.
	Verbosity int

	// Healthz, if set, is asked by /healthz: an error answers 503 with it.
	// nil answers "ok" always.
	Healthz func() error
}

// DefaultLeaseNamespace is the default of --leader-elect-resource-namespace:
// a namespace of evictkit's own (deploy/rbac.yaml creates it), so that the
// Role that lets the programs create their Lease lets them create no Lease
// of kube-system, such as the one of an absent kube-scheduler.
const DefaultLeaseNamespace = "evictkit-system"

// DefaultStartupTimeout is the default of --kube-api-startup-timeout.
const DefaultStartupTimeout = 30 * time.Second

// RegisterClient adds the flags of the API client to fs: --kubeconfig,
// --master, --kube-api-qps and --kube-api-burst (with the given defaults),
// --kube-api-content-type
// and --kube-api-startup-timeout; and -v, the log verbosity.
func (o *Options) RegisterClient(fs *flag.FlagSet, qps float64, burst int) {
	fs.IntVar(&o.Verbosity, "v", 0, "Log verbosity, kube-controller-manager's scale: 4 adds the debug messages.")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "Path to a kubeconfig file; empty means the in-cluster configuration.")
	fs.StringVar(&o.Master, "master", "", "The address of the Kubernetes API server (overrides any value in kubeconfig).")
	fs.Float64Var(&o.QPS, "kube-api-qps", qps, "QPS to use while talking with the API server.")
	fs.IntVar(&o.Burst, "kube-api-burst", burst, "Burst to use while talking with the API server.")
	fs.StringVar(&o.ContentType, "kube-api-content-type", runtime.ContentTypeProtobuf, "Content type of requests sent to apiserver.")
	fs.DurationVar(&o.StartupTimeout, "kube-api-startup-timeout", DefaultStartupTimeout, "How long the program tries to reach the API server at start before it exits with an error.")
}

// Register adds the flags to fs; leaseName is the default Lease name.
func (o *Options) Register(fs *flag.FlagSet, leaseName string) {
	o.RegisterClient(fs, 20, 30)
	fs.BoolVar(&o.LeaderElect, "leader-elect", true, "Take a leader lease before acting, so that one replica acts at a time.")
	fs.DurationVar(&o.LeaseDuration, "leader-elect-lease-duration", 15*time.Second, "How long non-leaders wait after the last renewal before taking over.")
	fs.DurationVar(&o.RenewDeadline, "leader-elect-renew-deadline", 10*time.Second, "How long the leader tries to renew before it stops leading.")
	fs.DurationVar(&o.RetryPeriod, "leader-elect-retry-period", 2*time.Second, "How long clients wait between tries to acquire or renew the lease.")
	fs.StringVar(&o.LeaseName, "leader-elect-resource-name", leaseName, "The name of the Lease used for leader election.")
	fs.StringVar(&o.LeaseNS, "leader-elect-resource-namespace", DefaultLeaseNamespace, "The namespace of the Lease used for leader election.")
	fs.StringVar(&o.MetricsAddr, "metrics-bind-address", ":8080", `Address of the /metrics and /healthz endpoint; "0" turns it off.`)
	fs.BoolVar(&o.Profiling, "profiling", false, "Serve Go's profiles at /debug/pprof/ on the metrics address, which has no authentication.")
}

// Logger is the program's logger: text lines on w, at the level -v asks
// for. [Main] sends client-go's klog messages to it too, so that a program
// writes one format.
func (o Options) Logger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.Level(-o.Verbosity)}))
}

// Validate checks the numbers of o, as parsed from the flags: the error
// names the first bad flag and its value, on one line. The leader-election
// durations are checked (when LeaderElect is set) as client-go's leader
// elector would check them, but before the program reaches the API server.
func (o Options) Validate() error {
	switch {
	case math.IsNaN(o.QPS) || math.IsInf(o.QPS, 0) || o.QPS < 0 || o.QPS > math.MaxFloat32:
		return fmt.Errorf("--kube-api-qps %v is not a number of queries per second (0 or more)", o.QPS)
	case o.Burst < 0:
		return fmt.Errorf("--kube-api-burst %d is negative", o.Burst)
	case o.ContentType != "" && o.ContentType != runtime.ContentTypeProtobuf && o.ContentType != runtime.ContentTypeJSON:
		return fmt.Errorf("--kube-api-content-type %q is neither %s nor %s", o.ContentType, runtime.ContentTypeProtobuf, runtime.ContentTypeJSON)
	case o.StartupTimeout <= 0:
		return fmt.Errorf("--kube-api-startup-timeout %v is not positive", o.StartupTimeout)
	case o.Verbosity < 0:
		return fmt.Errorf("-v %d is negative", o.Verbosity)
	case !o.LeaderElect:
		return nil
	case o.LeaseDuration <= 0:
		return fmt.Errorf("--leader-elect-lease-duration %v is not positive", o.LeaseDuration)
	case o.RenewDeadline <= 0:
		return fmt.Errorf("--leader-elect-renew-deadline %v is not positive", o.RenewDeadline)
	case o.RetryPeriod <= 0:
		return fmt.Errorf("--leader-elect-retry-period %v is not positive", o.RetryPeriod)
	case o.LeaseDuration <= o.RenewDeadline:
		return fmt.Errorf("--leader-elect-lease-duration %v is not longer than --leader-elect-renew-deadline %v", o.LeaseDuration, o.RenewDeadline)
	case float64(o.RenewDeadline) <= leaderelection.JitterFactor*float64(o.RetryPeriod):
		return fmt.Errorf("--leader-elect-renew-deadline %v is not longer than %v times --leader-elect-retry-period %v", o.RenewDeadline, leaderelection.JitterFactor, o.RetryPeriod)
	case o.LeaseName == "":
		return errors.New("--leader-elect-resource-name is empty")
	case o.LeaseNS == "":
		return errors.New("--leader-elect-resource-namespace is empty")
	}
	return nil
}

// Main runs a controller program: it builds the client from o, waits for
// the API server's first answer (up to o.StartupTimeout), serves metrics
// from reg, and calls run once this replica leads (at once without leader
// election). run's context ends on SIGTERM or SIGINT, or when the lease is
// lost; Main returns after run has returned. Its errors are one line that
// starts with name.
func Main(o Options, name string, reg *prometheus.Registry, log *slog.Logger, run func(ctx context.Context, client kubernetes.Interface) error) error {
	klog.SetSlogLogger(log)
	cfg, err := o.clientConfig(name)
	if err != nil {
		return fmt.Errorf("%s: client configuration: %w", name, err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("%s: client: %w", name, err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := reach(ctx, client, cfg.Host, o.StartupTimeout); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}

	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if o.MetricsAddr != "0" && o.MetricsAddr != "" {
		l, err := net.Listen("tcp", o.MetricsAddr)
		if err != nil {
			return fmt.Errorf("%s: metrics address: %w", name, err)
		}
		srv := &http.Server{Handler: endpoints(o, reg), ReadHeaderTimeout: 10 * time.Second}
		go func() { _ = srv.Serve(l) }()
		defer srv.Close()
		log.Info("serving metrics", "address", l.Addr().String())
	}

	if !o.LeaderElect {
		return run(ctx, client)
	}
	host, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("%s: hostname: %w", name, err)
	}
	id := host + "_" + string(uuid.NewUUID())
	lock, err := resourcelock.New(resourcelock.LeasesResourceLock, o.LeaseNS, o.LeaseName,
		client.CoreV1(), client.CoordinationV1(), resourcelock.ResourceLockConfig{Identity: id})
	if err != nil {
		return fmt.Errorf("%s: lease lock: %w", name, err)
	}

	return campaign(ctx, o, name, id, lock, log, client, run)
}

// endpoints serves /metrics from reg, /healthz from o.Healthz and, when
// o.Profiling, Go's profiles at /debug/pprof/.
func endpoints(o Options, reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		if o.Healthz != nil {
			if err := o.Healthz(); err != nil {
				http.Error(w, err.Error(), http.StatusServiceUnavailable)
				return
			}
		}
		_, _ = w.Write([]byte("ok"))
	})
	if o.Profiling {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	return mux
}

// clientConfig is the client configuration of o's flags, with name in its
// user agent.
func (o Options) clientConfig(name string) (*rest.Config, error) {
	cfg, err := restConfig(o)
	if err != nil {
		return nil, err
	}
	cfg.QPS = float32(o.QPS)
	cfg.Burst = o.Burst
	cfg.ContentType = o.ContentType
	if o.ContentType == runtime.ContentTypeProtobuf {
		// Built-in types all speak protobuf; JSON stays acceptable for
		// an answer that has no protobuf form.
		cfg.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	}
	return rest.AddUserAgent(cfg, name), nil
}

// Client is an API client of its own, as o's flags configure it (its own
// --kube-api-qps and --kube-api-burst), named name in its user agent: what
// kube-controller-manager gives each controller it hosts.
func (o Options) Client(name string) (kubernetes.Interface, error) {
	cfg, err := o.clientConfig(name)
	if err != nil {
		return nil, fmt.Errorf("%s: client configuration: %w", name, err)
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s: client: %w", name, err)
	}
	return client, nil
}

// restConfig is the client configuration of o: the kubeconfig and master
// given, or without either the in-cluster configuration, and never a
// kubeconfig of the environment (~/.kube/config, $KUBECONFIG) that the
// operator did not name.
func restConfig(o Options) (*rest.Config, error) {
	if o.Kubeconfig == "" && o.Master == "" {
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return nil, fmt.Errorf("no --kubeconfig and not in a cluster: %w", err)
		}
		return cfg, nil
	}
	return clientcmd.BuildConfigFromFlags(o.Master, o.Kubeconfig)
}

// reachRetry is the wait between two tries to reach the API server at
// start.
const reachRetry = time.Second

// reach asks the API server at host for /version until it answers, ctx
// ends, or timeout (DefaultStartupTimeout when not positive) passes; the
// error says which server did not answer and why. A 401 ends the wait at
// once: the credentials are wrong, not the server slow.
func reach(ctx context.Context, client kubernetes.Interface, host string, timeout time.Duration) error {
	if timeout <= 0 {
		timeout = DefaultStartupTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		err := client.Discovery().RESTClient().Get().AbsPath("/version").Do(ctx).Error()
		switch {
		case err == nil:
			return nil
		case apierrors.IsUnauthorized(err):
			return fmt.Errorf("the API server at %s did not accept the credentials: %w", host, err)
		}
		t := time.NewTimer(reachRetry)
		select {
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("the API server at %s did not answer within %v (--kube-api-startup-timeout): %w", host, timeout, err)
		case <-t.C:
		}
	}
}

// campaign runs elections on lock until ctx ends or run fails. A replica
// that loses the lease (the API server was unreachable for longer than the
// renew deadline) has stopped acting; it campaigns again, with fresh
// informers, instead of exiting as kube-controller-manager does, so that it
// needs no supervisor to come back.
func campaign(ctx context.Context, o Options, name, id string, lock resourcelock.Interface, log *slog.Logger,
	client kubernetes.Interface, run func(ctx context.Context, client kubernetes.Interface) error) error {
	for {
		err := elect(ctx, o, name, id, lock, log, client, run)
		if !errors.Is(err, errLeaseLost) {
			return err
		}
		log.Info("leader lease lost; campaigning again", "identity", id)
	}
}

// errLeaseLost says that a replica stopped leading while it kept running.
var errLeaseLost = errors.New("leader lease lost")

// elect campaigns for the lease and runs run while it leads. It returns
// errLeaseLost if the lease was lost before ctx ended.
//
// The lease is released only once run has returned, so that the next leader
// never overlaps with this one. client-go's own release (ReleaseOnCancel)
// cannot promise that: when a renewal fails its renew loop releases the
// lease before it cancels run's context, and a new leader could act while
// run still does. So client-go never releases here, and elect releases the
// lease itself after run returned, if this replica still holds it (when the
// API server cannot be reached the release fails too, and the lease
// expires).
func elect(ctx context.Context, o Options, name, id string, lock resourcelock.Interface, log *slog.Logger,
	client kubernetes.Interface, run func(ctx context.Context, client kubernetes.Interface) error) error {
	// The election has a context of its own, cancelled when ctx ends but
	// only once run (if it started) has returned.
	electCtx, stopElection := context.WithCancel(context.Background())
	defer stopElection()
	var (
		mu      sync.Mutex
		started bool // run was called
		over    bool // le.Run returned: run must not start any more
		runErr  error
		done    = make(chan struct{}) // closed when run has returned
	)
	le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
		Lock:          lock,
		LeaseDuration: o.LeaseDuration,
		RenewDeadline: o.RenewDeadline,
		RetryPeriod:   o.RetryPeriod,
		Name:          name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(leadCtx context.Context) {
				mu.Lock()
				if over || ctx.Err() != nil || leadCtx.Err() != nil {
					mu.Unlock()
					return
				}
				started = true
				mu.Unlock()
				defer close(done)
				log.Info("leading", "identity", id)
				runCtx, cancel := context.WithCancel(leadCtx)
				defer cancel()
				defer context.AfterFunc(ctx, cancel)()
				runErr = run(runCtx, client)
			},
			OnStoppedLeading: func() { log.Info("stopped leading", "identity", id) },
			OnNewLeader: func(identity string) {
				if identity != id {
					log.Info("following", "leader", identity)
				}
			},
		},
	})
	if err != nil {
		return fmt.Errorf("%s: leader election: %w", name, err)
	}
	// Registered for this election only: stopWatch in the defer below
	// removes it when the lease is lost while ctx lives on, so no goroutine
	// outlives the election.
	stopWatch := context.AfterFunc(ctx, func() {
		mu.Lock()
		s := started
		mu.Unlock()
		if s {
			<-done
		}
		stopElection()
	})
	defer stopWatch()
	le.Run(electCtx)
	mu.Lock()
	s := started
	over = true
	mu.Unlock()
	if s {
		<-done
		release(lock, id, o.RenewDeadline, log)
	}
	if ctx.Err() == nil {
		return errLeaseLost
	}
	return runErr
}

// release gives up the lease if id still holds it, as client-go's release
// does: no holder, a lease of one second. It is called only after run has
// returned; a failure is logged, and the lease then expires.
func release(lock resourcelock.Interface, id string, timeout time.Duration, log *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	rec, _, err := lock.Get(ctx)
	if err != nil {
		log.Info("leader lease not released; it will expire", "identity", id, "err", err)
		return
	}
	if rec.HolderIdentity != id {
		return
	}
	now := metav1.NewTime(time.Now())
	err = lock.Update(ctx, resourcelock.LeaderElectionRecord{
		LeaderTransitions:    rec.LeaderTransitions,
		LeaseDurationSeconds: 1,
		RenewTime:            now,
		AcquireTime:          now,
	})
	if err != nil {
		log.Info("leader lease not released; it will expire", "identity", id, "err", err)
		return
	}
	log.Info("leader lease released", "identity", id)
}

// Parse parses args into fs, a flag set made with flag.ContinueOnError whose
// output is discarded: on -h or -help it prints the flags' defaults to stderr
// and returns flag.ErrHelp; a bad flag or a positional argument is an error
// of one line.
func Parse(fs *flag.FlagSet, args []string, stderr io.Writer) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stderr)
			fs.PrintDefaults()
		}
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return nil
}
