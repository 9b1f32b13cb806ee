package nodelifecyclecontroller

import (
	"context"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/nodelifecycle"
)

// A negative period would panic in the ticker: New refuses it.
func TestNewRefusesNegativePeriods(t *testing.T) {
	for _, s := range []nodelifecycle.Config{
		{MonitorPeriod: -time.Second},
		{MonitorGracePeriod: -time.Second},
		{StartupGracePeriod: -time.Nanosecond},
	} {
		f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
		_, err := New(Config{Client: fake.NewClientset(), Nodes: f.Core().V1().Nodes(), Pods: f.Core().V1().Pods(),
			Leases: f.Coordination().V1().Leases(), Settings: s})
		if err == nil {
			t.Errorf("New(%+v) = nil error, want one", s)
		}
	}
}

// panickyClock panics when asked for a ticker of the monitor period, as
// time.NewTicker does for a period that is not positive.
type panickyClock struct {
	*clocktesting.FakeClock
	period time.Duration
}

func (c panickyClock) NewTicker(d time.Duration) clock.Ticker {
	if d == c.period {
		panic("ticker of the monitor period refused by the test")
	}
	return c.FakeClock.NewTicker(d)
}

// A panic inside Run, after its workers started, comes out of Run: the
// workers are stopped on that path too, so that Run never hangs (a program
// that hung there would keep its leader lease and do nothing).
func TestRunDoesNotHangOnAPanic(t *testing.T) {
	client := fake.NewClientset(readyNode("n", v1.ConditionTrue))
	f := informers.NewSharedInformerFactory(client, 0)
	const period = 7 * time.Second
	c, err := New(Config{Client: client, Nodes: f.Core().V1().Nodes(), Pods: f.Core().V1().Pods(),
		Leases: f.Coordination().V1().Leases(), Recorder: &capture{},
		Settings: nodelifecycle.Config{MonitorPeriod: period},
		Clock:    panickyClock{FakeClock: clocktesting.NewFakeClock(now), period: period}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	f.Start(ctx.Done())
	defer func() { cancel(); f.Shutdown() }()
	panicked := make(chan any, 1)
	go func() {
		defer func() { panicked <- recover() }()
		_ = c.Run(ctx)
	}()
	select {
	case p := <-panicked:
		if p == nil {
			t.Errorf("Run returned without the panic")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Run hung after a panic: not returned within 30s")
	}
}
