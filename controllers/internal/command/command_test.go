package command

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// flakyLock is a resourcelock.Interface held in memory whose renewals all
// fail: a replica takes the lease (from no holder, or from a holder gone),
// then every update that keeps it as holder fails, as when the API server
// stops answering the leader's renewals. Releases (no holder) pass. It
// records, in order, each acquisition and release, with whether the run was
// still going at a release.
type flakyLock struct {
	id string

	mu      sync.Mutex
	rec     *resourcelock.LeaderElectionRecord
	running bool // set by the test's run while it runs
	events  []string
}

var _ resourcelock.Interface = (*flakyLock)(nil)

func (l *flakyLock) Get(context.Context) (*resourcelock.LeaderElectionRecord, []byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := *l.rec
	return &r, []byte(fmt.Sprintf("%+v", r)), nil
}

func (l *flakyLock) Create(_ context.Context, r resourcelock.LeaderElectionRecord) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rec = &r
	l.events = append(l.events, "acquired")
	return nil
}

func (l *flakyLock) Update(_ context.Context, r resourcelock.LeaderElectionRecord) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case r.HolderIdentity == "":
		if l.running {
			l.events = append(l.events, "released while run was running")
		} else {
			l.events = append(l.events, "released")
		}
	case l.rec != nil && l.rec.HolderIdentity == r.HolderIdentity:
		return errors.New("renewal refused by the test")
	default:
		l.events = append(l.events, "acquired")
	}
	l.rec = &r
	return nil
}

func (l *flakyLock) RecordEvent(string)  {}
func (l *flakyLock) Identity() string    { return l.id }
func (l *flakyLock) Describe() string    { return "test/flaky" }
func (l *flakyLock) setRunning(run bool) { l.mu.Lock(); l.running = run; l.mu.Unlock() }

// A leader whose renewals fail loses the lease 20 times over: each time its
// run returns before the lease is released (never is a new leader let in
// while the old one acts), and no goroutine is left behind per loss.
func TestLostLeaseStopsRunBeforeReleaseAndLeaksNothing(t *testing.T) {
	const rounds = 20
	o := Options{LeaseDuration: 60 * time.Millisecond, RenewDeadline: 30 * time.Millisecond, RetryPeriod: 5 * time.Millisecond}
	lock := &flakyLock{id: "me", rec: &resourcelock.LeaderElectionRecord{}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		n        int
		baseline int
		last     int
	)
	run := func(runCtx context.Context, _ kubernetes.Interface) error {
		n++
		if n == 2 {
			baseline = runtime.NumGoroutine()
		}
		if n > rounds {
			// Every loss is behind: count what is left, then stop.
			last = goroutinesAtMost(baseline + 2)
			cancel()
			return nil
		}
		lock.setRunning(true)
		defer lock.setRunning(false)
		<-runCtx.Done()
		return nil
	}
	err := campaign(ctx, o, "test", "me", lock, slog.New(slog.DiscardHandler), nil, run)
	if err != nil {
		t.Fatalf("campaign: %v", err)
	}
	if n != rounds+1 {
		t.Fatalf("run called %d times, want %d", n, rounds+1)
	}
	if grown := last - baseline; grown > 2 {
		t.Errorf("goroutines grew by %d over %d lost leases (from %d to %d), want them not to grow", grown, rounds-1, baseline, last)
	}
	lock.mu.Lock()
	defer lock.mu.Unlock()
	var early int
	for _, e := range lock.events {
		if strings.Contains(e, "while run was running") {
			early++
		}
	}
	if early > 0 {
		t.Errorf("the lease was released %d times while run still ran; events %v", early, lock.events)
	}
	// Each round: acquired, then released once run had returned.
	want := strings.Repeat("acquired released ", rounds) + "acquired released"
	if got := strings.Join(lock.events, " "); got != want {
		t.Errorf("lease events %q, want %q", got, want)
	}
}

// goroutinesAtMost polls, for at most 5 s, until at most limit goroutines
// run (those of the last election may still be ending), and returns the
// last count.
func goroutinesAtMost(limit int) int {
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= limit || time.Now().After(deadline) {
			return n
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestValidate(t *testing.T) {
	good := Options{QPS: 20, Burst: 30, StartupTimeout: DefaultStartupTimeout, LeaderElect: true, LeaseDuration: 15 * time.Second,
		RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second, LeaseName: "x", LeaseNS: DefaultLeaseNamespace}
	if err := good.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	for _, tc := range []struct {
		change func(*Options)
		want   string
	}{
		{func(o *Options) { o.QPS = -1 }, "--kube-api-qps -1"},
		{func(o *Options) { o.QPS = math.NaN() }, "--kube-api-qps NaN"},
		{func(o *Options) { o.Burst = -1 }, "--kube-api-burst -1"},
		{func(o *Options) { o.ContentType = "application/yaml" }, `--kube-api-content-type "application/yaml" is neither`},
		{func(o *Options) { o.StartupTimeout = 0 }, "--kube-api-startup-timeout 0s is not positive"},
		{func(o *Options) { o.Verbosity = -1 }, "-v -1 is negative"},
		{func(o *Options) { o.LeaseDuration = -time.Second }, "--leader-elect-lease-duration -1s is not positive"},
		{func(o *Options) { o.RenewDeadline = 0 }, "--leader-elect-renew-deadline 0s is not positive"},
		{func(o *Options) { o.RetryPeriod = -time.Second }, "--leader-elect-retry-period -1s is not positive"},
		{func(o *Options) { o.LeaseDuration = 10 * time.Second }, "--leader-elect-lease-duration 10s is not longer than --leader-elect-renew-deadline 10s"},
		{func(o *Options) { o.RetryPeriod = 9 * time.Second }, "--leader-elect-renew-deadline 10s is not longer than 1.2 times --leader-elect-retry-period 9s"},
		{func(o *Options) { o.LeaseNS = "" }, "--leader-elect-resource-namespace is empty"},
	} {
		o := good
		tc.change(&o)
		err := o.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("got %v, want one line with %q", err, tc.want)
		}
	}
	off := good
	off.LeaderElect, off.LeaseDuration = false, -time.Second
	if err := off.Validate(); err != nil {
		t.Errorf("leader election off: the lease flags are not read, got %v", err)
	}
}

// -v sets the level of the program's logger on klog's scale: 0 shows Info
// and above, 4 shows Debug too; and client-go's klog messages, which Main
// routes to the same logger, show at V(n) when -v is n or more.
func TestVerbosity(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		debug, kv5 bool
	}{
		{nil, false, false},
		{[]string{"-v=4"}, true, false},
		{[]string{"-v", "5"}, true, true},
	} {
		var o Options
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		o.RegisterClient(fs, 20, 30)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		log := o.Logger(&b)
		log.Debug("debug line")
		log.Info("info line")
		// What logr's slog bridge gives klog.V(5).Info: slog level -5.
		log.Log(context.Background(), slog.Level(-5), "klog V(5) line")
		out := b.String()
		if !strings.Contains(out, "info line") {
			t.Errorf("%v: info not logged: %q", tc.args, out)
		}
		if got := strings.Contains(out, "debug line"); got != tc.debug {
			t.Errorf("%v: debug logged = %v, want %v", tc.args, got, tc.debug)
		}
		if got := strings.Contains(out, "klog V(5) line"); got != tc.kv5 {
			t.Errorf("%v: V(5) logged = %v, want %v", tc.args, got, tc.kv5)
		}
	}
}

// The client speaks protobuf unless told otherwise, as kube-controller-
// manager's does: --kube-api-content-type has its name and default.
func TestContentTypeDefaultsToProtobuf(t *testing.T) {
	var o Options
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	o.RegisterClient(fs, 20, 30)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if o.ContentType != "application/vnd.kubernetes.protobuf" {
		t.Errorf("default --kube-api-content-type = %q, want kube-controller-manager's application/vnd.kubernetes.protobuf", o.ContentType)
	}
	if err := fs.Parse([]string{"--kube-api-content-type=application/json"}); err != nil || o.ContentType != "application/json" {
		t.Errorf("--kube-api-content-type=application/json: got %q, %v", o.ContentType, err)
	}
}

// The endpoint serves /metrics and /healthz, and Go's profiles only when
// --profiling asks for them (the address has no authentication).
func TestEndpoints(t *testing.T) {
	reg := prometheus.NewRegistry()
	get := func(h http.Handler, path string) (int, string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		return rec.Code, rec.Body.String()
	}
	sick := errors.New("no cycle yet")
	off := endpoints(Options{Healthz: func() error { return sick }}, reg)
	if code, body := get(off, "/healthz"); code != http.StatusServiceUnavailable || !strings.Contains(body, "no cycle yet") {
		t.Errorf("/healthz: %d %q", code, body)
	}
	if code, _ := get(off, "/metrics"); code != http.StatusOK {
		t.Errorf("/metrics: %d", code)
	}
	if code, _ := get(off, "/debug/pprof/"); code != http.StatusNotFound {
		t.Errorf("/debug/pprof/ without --profiling: %d, want 404", code)
	}
	var o Options
	fs := flag.NewFlagSet("p", flag.ContinueOnError)
	o.Register(fs, "p")
	if err := fs.Parse([]string{"--profiling"}); err != nil {
		t.Fatal(err)
	}
	on := endpoints(o, reg)
	if code, body := get(on, "/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("/debug/pprof/ with --profiling: %d %q", code, body)
	}
	if code, body := get(on, "/healthz"); code != http.StatusOK || body != "ok" {
		t.Errorf("/healthz: %d %q", code, body)
	}
}
