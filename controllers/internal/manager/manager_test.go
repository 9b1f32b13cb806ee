package manager

import (
	"context"
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/evictkit/eviction/controllers/internal/commandtest"
)

var (
	nodeLifecycleProgram = Program{Name: "node-lifecycle-controller", Controllers: []New{NodeLifecycle}}
	taintProgram         = Program{Name: "taint-eviction-controller", Controllers: []New{TaintEviction}}
	deviceTaintProgram   = Program{Name: "device-taint-eviction-controller", Controllers: []New{DeviceTaintEviction}}
	managerProgram       = Program{Name: "evictkit-controller-manager", Controllers: []New{NodeLifecycle, TaintEviction, DeviceTaintEviction}}
)

// names lists the enabled controllers of c.
func names(c config) []string {
	var out []string
	for _, ctl := range c.enabled {
		out = append(out, ctl.Name())
	}
	return out
}

func TestParseNodeLifecycleFlags(t *testing.T) {
	c, err := nodeLifecycleProgram.parse([]string{"--node-monitor-period=1s", "--node-eviction-rate=0", "--unhealthy-zone-threshold=1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s := c.enabled[0].(*nodeLifecycle).settings.Config; s.MonitorPeriod != time.Second || !s.StopEviction || s.UnhealthyZoneThreshold != 1 || s.LargeClusterThreshold != 50 {
		t.Errorf("settings %+v", s)
	}
	if c.client.LeaseNS != "evictkit-system" || c.client.LeaseName != "node-lifecycle-controller" {
		t.Errorf("lease %s/%s, want evictkit-system/node-lifecycle-controller", c.client.LeaseNS, c.client.LeaseName)
	}
}

func TestParseDeviceTaintFlags(t *testing.T) {
	c, err := deviceTaintProgram.parse(nil, io.Discard)
	if err != nil || c.enabled[0].(*deviceTaintEviction).workers != 8 || c.client.LeaseName != "device-taint-eviction-controller" {
		t.Fatalf("defaults: %v, %+v; want 8 workers, lease device-taint-eviction-controller", err, c)
	}
	c, err = deviceTaintProgram.parse([]string{"--concurrent-device-taint-eviction-syncs=3", "--leader-elect=false"}, io.Discard)
	if err != nil || c.enabled[0].(*deviceTaintEviction).workers != 3 || c.client.LeaderElect {
		t.Errorf("got %v, %+v", err, c)
	}
}

// The legacy mode is off by default; --enable-taint-manager=false turns it
// on with --pod-eviction-timeout (5m0s by default), which means nothing
// with the taint manager on.
func TestParseLegacyFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    time.Duration // 0: legacy mode off
		ignored bool
	}{
		{nil, 0, false},
		{[]string{"--enable-taint-manager=true"}, 0, false},
		{[]string{"--pod-eviction-timeout=1m"}, 0, true},
		{[]string{"--enable-taint-manager=false"}, 5 * time.Minute, false},
		{[]string{"--enable-taint-manager=false", "--pod-eviction-timeout=5s"}, 5 * time.Second, false},
		{[]string{"--pod-eviction-timeout=90s", "--enable-taint-manager=false"}, 90 * time.Second, false},
	} {
		c, err := nodeLifecycleProgram.parse(tc.args, io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		s := c.enabled[0].(*nodeLifecycle).settings
		switch {
		case tc.want == 0 && s.Legacy != nil:
			t.Errorf("%v: legacy mode %+v, want off", tc.args, *s.Legacy)
		case tc.want != 0 && (s.Legacy == nil || s.Legacy.PodEvictionTimeout != tc.want):
			t.Errorf("%v: legacy mode %+v, want timeout %v", tc.args, s.Legacy, tc.want)
		}
		if s.TimeoutIgnored != tc.ignored {
			t.Errorf("%v: timeout ignored %v, want %v", tc.args, s.TimeoutIgnored, tc.ignored)
		}
	}
}

// Every flag is checked before the program starts: one line that names
// the flag and the value.
func TestBadFlagsGiveOneLine(t *testing.T) {
	for _, tc := range []struct {
		p    Program
		args []string
		want string
	}{
		{taintProgram, []string{"--bogus"}, "flag provided but not defined: -bogus"},
		{taintProgram, []string{"stray"}, `unexpected argument "stray"`},
		{taintProgram, []string{"--kube-api-qps=-1"}, "--kube-api-qps -1"},
		{taintProgram, []string{"--kube-api-qps=NaN"}, "--kube-api-qps NaN"},
		{taintProgram, []string{"--kube-api-burst=-1"}, "--kube-api-burst -1 is negative"},
		{taintProgram, []string{"--leader-elect-lease-duration=-15s"}, "--leader-elect-lease-duration -15s is not positive"},
		{taintProgram, []string{"--leader-elect-renew-deadline=0s"}, "--leader-elect-renew-deadline 0s is not positive"},
		{taintProgram, []string{"--leader-elect-retry-period=-2s"}, "--leader-elect-retry-period -2s is not positive"},
		{taintProgram, []string{"--leader-elect-lease-duration=5s"}, "--leader-elect-lease-duration 5s is not longer than --leader-elect-renew-deadline 10s"},
		{taintProgram, []string{"--leader-elect-resource-namespace="}, "--leader-elect-resource-namespace is empty"},
		{taintProgram, []string{"--controllers=*"}, "flag provided but not defined: -controllers"},
		{nodeLifecycleProgram, []string{"--node-monitor-period=-1s"}, "--node-monitor-period -1s is not positive"},
		{nodeLifecycleProgram, []string{"--node-monitor-period=0s"}, "--node-monitor-period 0s is not positive"},
		{nodeLifecycleProgram, []string{"--node-monitor-grace-period=-5s"}, "--node-monitor-grace-period -5s is not positive"},
		{nodeLifecycleProgram, []string{"--node-startup-grace-period=0s"}, "--node-startup-grace-period 0s is not positive"},
		{nodeLifecycleProgram, []string{"--node-eviction-rate=NaN"}, "--node-eviction-rate NaN is not a rate"},
		{nodeLifecycleProgram, []string{"--node-eviction-rate=-0.1"}, "--node-eviction-rate -0.1 is not a rate"},
		{nodeLifecycleProgram, []string{"--node-eviction-rate=1e39"}, "--node-eviction-rate 1e+39 is not a rate"},
		{nodeLifecycleProgram, []string{"--secondary-node-eviction-rate=-1"}, "--secondary-node-eviction-rate -1 is not a rate"},
		{nodeLifecycleProgram, []string{"--secondary-node-eviction-rate=NaN"}, "--secondary-node-eviction-rate NaN is not a rate"},
		{nodeLifecycleProgram, []string{"--large-cluster-size-threshold=-3"}, "--large-cluster-size-threshold -3 is not a number of nodes"},
		{nodeLifecycleProgram, []string{"--large-cluster-size-threshold=0"}, "--large-cluster-size-threshold 0 is not a number of nodes"},
		{nodeLifecycleProgram, []string{"--large-cluster-size-threshold=4294967296"}, "--large-cluster-size-threshold 4294967296 is not a number of nodes"},
		{nodeLifecycleProgram, []string{"--unhealthy-zone-threshold=1.5"}, "--unhealthy-zone-threshold 1.5 is not a fraction"},
		{nodeLifecycleProgram, []string{"--unhealthy-zone-threshold=-0.5"}, "--unhealthy-zone-threshold -0.5 is not a fraction"},
		{nodeLifecycleProgram, []string{"--unhealthy-zone-threshold=NaN"}, "--unhealthy-zone-threshold NaN is not a fraction"},
		{nodeLifecycleProgram, []string{"--node-monitor-period=often"}, `invalid value "often" for flag -node-monitor-period`},
		{nodeLifecycleProgram, []string{"--enable-taint-manager=false", "--pod-eviction-timeout=0s"}, "--pod-eviction-timeout 0s is not positive"},
		{nodeLifecycleProgram, []string{"--pod-eviction-timeout=-1m"}, "--pod-eviction-timeout -1m0s is not positive"},
		{nodeLifecycleProgram, []string{"--pod-eviction-timeout=soon"}, `invalid value "soon" for flag -pod-eviction-timeout`},
		{nodeLifecycleProgram, []string{"--enable-taint-manager=maybe"}, `invalid boolean value "maybe" for -enable-taint-manager`},
		{deviceTaintProgram, []string{"--concurrent-device-taint-eviction-syncs=0"}, "--concurrent-device-taint-eviction-syncs 0 is not a number of workers"},
		{deviceTaintProgram, []string{"--concurrent-device-taint-eviction-syncs=-2"}, "--concurrent-device-taint-eviction-syncs -2 is not a number of workers"},
		{deviceTaintProgram, []string{"--concurrent-device-taint-eviction-syncs=many"}, `invalid value "many" for flag -concurrent-device-taint-eviction-syncs`},
		{managerProgram, []string{"--controllers=bogus"}, `--controllers "bogus": "bogus" is not a controller this program hosts`},
		{managerProgram, []string{"--controllers=*,-pressure-evictor"}, `"-pressure-evictor" is not a controller this program hosts`},
		{managerProgram, []string{"--controllers="}, `"" is not a controller`},
		{managerProgram, []string{"--controllers=-taint-eviction-controller"}, `--controllers "-taint-eviction-controller" enables no controller`},
		// A disabled controller's flags are still checked: they are the
		// program's flags.
		{managerProgram, []string{"--controllers=taint-eviction-controller", "--node-monitor-period=often"}, `invalid value "often"`},
		{managerProgram, []string{"--node-eviction-rate=-1"}, "--node-eviction-rate -1 is not a rate"},
	} {
		_, err := tc.p.parse(tc.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v: got %v, want one line with %q", tc.p.Name, tc.args, err, tc.want)
		}
	}
}

// --controllers reads as kube-controller-manager's: "*" for every
// controller, a name to add one, "-name" to leave one out.
func TestControllersFlag(t *testing.T) {
	all := []string{"node-lifecycle-controller", "taint-eviction-controller", "device-taint-eviction-controller"}
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"*", all},
		{"*,-device-taint-eviction-controller", all[:2]},
		{"taint-eviction-controller", all[1:2]},
		{"taint-eviction-controller,node-lifecycle-controller", all[:2]},
		{" node-lifecycle-controller , -taint-eviction-controller", all[:1]},
		{"-node-lifecycle-controller,*", all[1:]},
	} {
		c, err := managerProgram.parse([]string{"--controllers=" + tc.value}, io.Discard)
		if err != nil {
			t.Errorf("%q: %v", tc.value, err)
			continue
		}
		if got := names(c); strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: enabled %v, want %v", tc.value, got, tc.want)
		}
	}
	c, err := managerProgram.parse(nil, io.Discard)
	if err != nil || len(c.enabled) != 3 || c.client.LeaseName != "evictkit-controller-manager" {
		t.Errorf("defaults: %v, %v, lease %s", err, names(c), c.client.LeaseName)
	}
}

func TestHelpPrintsTheFlags(t *testing.T) {
	var b strings.Builder
	if _, err := managerProgram.parse([]string{"-h"}, &b); !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	for _, f := range []string{"-controllers", "-node-monitor-period", "-enable-taint-manager", "-pod-eviction-timeout duration", "(default 5m0s)",
		"-concurrent-device-taint-eviction-syncs", "-kubeconfig", "-leader-elect", "-metrics-bind-address", "device-taint-eviction-controller."} {
		if !strings.Contains(b.String(), f) {
			t.Errorf("help lacks %q: %s", f, b.String())
		}
	}
}

// The informers keep no managed fields, as kube-controller-manager's: the
// cached pod has none, the rest of it is as the server sent it, and the
// caller's object is the informer's own (the transform changes what the
// watch decoded, nothing a caller holds).
func TestInformersDropManagedFields(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{
		Name: "p", Namespace: "ns", Labels: map[string]string{"app": "a"},
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl", Operation: metav1.ManagedFieldsOperationApply}},
	}, Spec: corev1.PodSpec{NodeName: "n1"}}
	client := fake.NewClientset(pod)
	f := NewFactory(client)
	inf := f.Core().V1().Pods().Informer()
	ctx, cancel := context.WithCancel(context.Background())
	f.Start(ctx.Done())
	defer f.Shutdown() // after cancel: Shutdown waits for the informers to stop
	defer cancel()
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("cache never synced")
	}
	got, ok, err := inf.GetStore().GetByKey("ns/p")
	if err != nil || !ok {
		t.Fatalf("pod not cached: %v", err)
	}
	p := got.(*corev1.Pod)
	if p.ManagedFields != nil || p.Labels["app"] != "a" || p.Spec.NodeName != "n1" {
		t.Errorf("cached pod %+v", p.ObjectMeta)
	}
	if len(pod.ManagedFields) != 1 {
		t.Errorf("the caller's pod lost its managed fields")
	}
	// A tombstone passes unchanged.
	tomb := cache.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod}
	if out, err := dropManagedFields(tomb); err != nil || out.(cache.DeletedFinalStateUnknown).Key != "ns/p" {
		t.Errorf("tombstone: %v, %v", out, err)
	}
}

// Hosting several controllers, the program gives each a client of its own
// (its own rate limit, as kube-controller-manager does); hosting one, the
// controller writes with the program's client.
func TestEachControllerHasItsClient(t *testing.T) {
	var kubeconfig string // one that parses (its server is never reached)
	for _, k := range commandtest.Nowhere(t) {
		if k.Name == "connection refused" {
			kubeconfig = k.Path
		}
	}
	shared := fake.NewClientset()
	c, err := managerProgram.parse([]string{"--kubeconfig=" + kubeconfig}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	term := managerProgram.newTerm(c, shared)
	limiters := map[any]string{}
	for _, ctl := range c.enabled {
		client, err := term.ClientOf(ctl.Name())
		if err != nil {
			t.Fatal(err)
		}
		if client == shared {
			t.Fatalf("%s writes with the informers' client", ctl.Name())
		}
		l := client.CoreV1().RESTClient().GetRateLimiter()
		if other, ok := limiters[l]; ok {
			t.Errorf("%s and %s share a rate limiter", ctl.Name(), other)
		}
		limiters[l] = ctl.Name()
	}
	c, err = taintProgram.parse([]string{"--kubeconfig=" + kubeconfig}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if client, err := taintProgram.newTerm(c, shared).ClientOf(c.enabled[0].Name()); err != nil || client != shared {
		t.Errorf("one controller: client %v, %v; want the program's", client, err)
	}
}
