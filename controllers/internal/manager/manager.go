// Package manager runs controllers in a program as kube-controller-manager
// runs its own: the program names the controllers it hosts, and they share
// one API client, one set of informers (one watch and one cache of each
// resource, managed fields dropped as kube-controller-manager drops them),
// one metrics registry and endpoint, and one leader lease.
//
//	func main() {
//		manager.Main(manager.Program{Name: "taint-eviction-controller", Controllers: []manager.New{manager.TaintEviction}})
//	}
//
// A program that hosts more than one controller takes kube-controller-
// manager's --controllers flag ("*" for all, "name" for one, "-name" to
// leave one out).
package manager

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"

	"github.com/evictkit/eviction/controllers/internal/command"
	"github.com/evictkit/eviction/controllers/internal/queuemetrics"
)

// A Controller is one controller a program can host. Its methods are
// called in this order: Register before the command line is parsed, Check
// after it, Prepare once when the program starts, and Start at each term of
// leadership.
type Controller interface {
	// Name is the controller's name in kube-controller-manager
	// (--controllers, its events' source, its log lines).
	Name() string
	// Register adds the controller's own flags to fs.
	Register(fs *flag.FlagSet)
	// Check checks the controller's flags, once fs is parsed: the error is
	// one line that names the bad flag and its value.
	Check(fs *flag.FlagSet) error
	// Prepare registers the controller's metrics on p's registry and logs
	// what its flags warn of. It is called once per process.
	Prepare(p *Process) error
	// Start builds the controller on t's informers, which start once every
	// hosted controller is built, and returns the function that runs it
	// until its context ends.
	Start(p *Process, t *Term) (run func(ctx context.Context) error, err error)
}

// New makes a Controller with its flags unset: a program's list of what it
// may host.
type New func() Controller

// Process is what the controllers of one program share for its whole life.
type Process struct {
	// Registry is the metrics the program serves.
	Registry *prometheus.Registry
	// Logger is the program's logger, client-go's messages included.
	Logger *slog.Logger

	queueOnce    sync.Once
	queueMetrics *queuemetrics.Provider
	queueErr     error
}

// QueueMetrics is the program's one provider of workqueue metrics (their
// names are registered once, whatever hosts a queue).
func (p *Process) QueueMetrics() (*queuemetrics.Provider, error) {
	p.queueOnce.Do(func() { p.queueMetrics, p.queueErr = queuemetrics.New(p.Registry) })
	return p.queueMetrics, p.queueErr
}

// Term is what the controllers share while this replica leads: the
// informers, made anew at each term, and the clients.
type Term struct {
	// Client is the program's client, which the informers watch with.
	Client kubernetes.Interface
	// Informers is the shared informer factory of every namespace.
	Informers informers.SharedInformerFactory

	nodeLeases informers.SharedInformerFactory
	// clientOf makes a controller's client; nil: Client serves all.
	clientOf func(controller string) (kubernetes.Interface, error)
}

// ClientOf is the client the controller named writes with. In a program
// that hosts several, each has one of its own, with its own rate limit
// (--kube-api-qps, --kube-api-burst), as kube-controller-manager gives
// each of its controllers; a program of one controller has one client.
func (t *Term) ClientOf(controller string) (kubernetes.Interface, error) {
	if t.clientOf == nil {
		return t.Client, nil
	}
	return t.clientOf(controller)
}

// NodeLeases is the factory of informers of the kube-node-lease namespace,
// the one namespace whose Leases the node lifecycle controller may read.
func (t *Term) NodeLeases() informers.SharedInformerFactory {
	if t.nodeLeases == nil {
		t.nodeLeases = NewFactory(t.Client, informers.WithNamespace(v1.NamespaceNodeLease))
	}
	return t.nodeLeases
}

// NewFactory is the shared informer factory of every controller program
// (and of the scale harness's watcher, which measures what it costs alone).
// It keeps no managed fields in its caches, as kube-controller-manager's:
// they are most of a small object's bytes and no controller reads them, and
// a write of an object without them leaves the server's unchanged.
func NewFactory(client kubernetes.Interface, opts ...informers.SharedInformerOption) informers.SharedInformerFactory {
	opts = append(opts, informers.WithTransform(dropManagedFields))
	return informers.NewSharedInformerFactoryWithOptions(client, 0, opts...)
}

// dropManagedFields is the informers' transform: obj without its managed
// fields (a tombstone, which has no object metadata, as it is).
func dropManagedFields(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil && m.GetManagedFields() != nil {
		m.SetManagedFields(nil)
	}
	return obj, nil
}

// Program is a controller program.
type Program struct {
	// Name is the program's name: the prefix of its error lines, its user
	// agent and the default name of its leader Lease.
	Name string
	// Controllers are the controllers it may host; with more than one it
	// takes --controllers.
	Controllers []New
}

// config is a parsed command line.
type config struct {
	client  command.Options
	enabled []Controller
}

// allControllers is --controllers' default: every hosted controller.
const allControllers = "*"

// parse parses and checks the command line; the error is one line that
// names the bad flag and its value.
func (p Program) parse(args []string, stderr io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet(p.Name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.client.Register(fs, p.Name)
	all := make([]Controller, len(p.Controllers))
	for i, n := range p.Controllers {
		all[i] = n()
		all[i].Register(fs)
	}
	selection := allControllers
	if len(all) > 1 {
		names := make([]string, len(all))
		for i, ctl := range all {
			names[i] = ctl.Name()
		}
		fs.StringVar(&selection, "controllers", allControllers, "A list of controllers to enable: '*' enables all, 'foo' enables the controller named 'foo', '-foo' disables it. All controllers: "+strings.Join(names, ", ")+".")
	}
	if err := command.Parse(fs, args, stderr); err != nil {
		return c, err
	}
	if err := c.client.Validate(); err != nil {
		return c, err
	}
	enabled, err := selectControllers(all, selection)
	if err != nil {
		return c, err
	}
	for _, ctl := range enabled {
		if err := ctl.Check(fs); err != nil {
			return c, err
		}
	}
	c.enabled = enabled
	return c, nil
}

// selectControllers applies a --controllers value to all, as kube-
// controller-manager reads it: each comma-separated item is "*" (every
// controller not named "-name"), "name" or "-name"; a name it does not
// know is an error, and so is a list that enables none.
func selectControllers(all []Controller, value string) ([]Controller, error) {
	on, off, star := map[string]bool{}, map[string]bool{}, false
	known := func(name string) bool {
		return slices.ContainsFunc(all, func(c Controller) bool { return c.Name() == name })
	}
	for item := range strings.SplitSeq(value, ",") {
		item = strings.TrimSpace(item)
		switch {
		case item == allControllers:
			star = true
		case strings.HasPrefix(item, "-") && known(item[1:]):
			off[item[1:]] = true
		case known(item):
			on[item] = true
		default:
			return nil, fmt.Errorf("--controllers %q: %q is not a controller this program hosts", value, item)
		}
	}
	var enabled []Controller
	for _, c := range all {
		if !off[c.Name()] && (on[c.Name()] || star) {
			enabled = append(enabled, c)
		}
	}
	if len(enabled) == 0 {
		return nil, fmt.Errorf("--controllers %q enables no controller", value)
	}
	return enabled, nil
}

// Main runs the program with the command line of the process and exits:
// status 0 after -h, 2 on a bad command line, 1 when the program fails.
func Main(p Program) {
	c, err := p.parse(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, p.Name+": "+err.Error())
		os.Exit(2)
	}
	proc := &Process{Registry: prometheus.NewRegistry(), Logger: c.client.Logger(os.Stderr)}
	for _, ctl := range c.enabled {
		if err := ctl.Prepare(proc); err != nil {
			fmt.Fprintln(os.Stderr, p.Name+": "+err.Error())
			os.Exit(1)
		}
	}
	err = command.Main(c.client, p.Name, proc.Registry, proc.Logger, func(ctx context.Context, client kubernetes.Interface) error {
		return runTerm(ctx, proc, p.newTerm(c, client), c.enabled)
	})
	if err != nil {
		proc.Logger.Error("exiting", "err", err)
		os.Exit(1)
	}
}

// newTerm is a term of p with the configuration c, whose informers watch
// with client.
func (p Program) newTerm(c config, client kubernetes.Interface) *Term {
	t := &Term{Client: client, Informers: NewFactory(client)}
	if len(c.enabled) > 1 {
		t.clientOf = func(controller string) (kubernetes.Interface, error) {
			return c.client.Client(p.Name + "/" + controller)
		}
	}
	return t
}

// runTerm builds the controllers on t's informers, starts the informers and runs the controllers until ctx ends or one of them fails;
// then it stops the others and returns the first error.
func runTerm(ctx context.Context, proc *Process, t *Term, controllers []Controller) error {
	runs := make([]func(context.Context) error, len(controllers))
	for i, ctl := range controllers {
		run, err := ctl.Start(proc, t)
		if err != nil {
			return fmt.Errorf("%s: %w", ctl.Name(), err)
		}
		runs[i] = run
	}
	ctx, cancel := context.WithCancel(ctx)
	t.Informers.Start(ctx.Done())
	if t.nodeLeases != nil {
		t.nodeLeases.Start(ctx.Done())
	}
	// The informers stop once ctx ends; Shutdown waits for them.
	defer func() {
		cancel()
		t.Informers.Shutdown()
		if t.nodeLeases != nil {
			t.nodeLeases.Shutdown()
		}
	}()
	errs := make([]error, len(runs))
	var wg sync.WaitGroup
	for i, run := range runs {
		wg.Go(func() {
			if err := run(ctx); err != nil {
				errs[i] = fmt.Errorf("%s: %w", controllers[i].Name(), err)
				cancel()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
