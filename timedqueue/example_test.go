package timedqueue_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	testclock "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/timedqueue"
)

var start = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// A taint manager in miniature: when a node gets a NoExecute taint, each pod
// is scheduled for deletion when its toleration runs out, with the node it
// runs on as the item's value; when the taint goes away, the pending
// deletions are cancelled.
func ExampleQueue() {
	clk := testclock.NewFakeClock(start)
	q := timedqueue.New(func(_ context.Context, it timedqueue.Item[types.NamespacedName, string]) error {
		fmt.Printf("%5v delete %v from %s (due %v)\n", clk.Since(start), it.Key, it.Value, it.FireAt.Sub(start))
		return nil
	}, timedqueue.Options[types.NamespacedName]{Clock: clk, Workers: 1})
	ctx := context.Background()

	// The node is tainted at start; the pods tolerate it for these long.
	pods := []struct {
		pod       types.NamespacedName
		tolerates time.Duration
	}{
		{types.NamespacedName{Namespace: "web", Name: "frontend"}, 5 * time.Second},
		{types.NamespacedName{Name: "no-namespace"}, 0},
		{types.NamespacedName{Namespace: "db", Name: "postgres"}, time.Minute},
	}
	for _, p := range pods {
		q.Add(p.pod, "node-1", start, start.Add(p.tolerates))
	}
	_ = q.Idle(ctx)

	clk.Step(10 * time.Second)
	_ = q.Idle(ctx)

	// The taint is removed: cancel what is still pending.
	for _, p := range pods {
		if q.Cancel(p.pod) {
			fmt.Printf("%5v cancel %v\n", clk.Since(start), p.pod)
		}
	}
	fmt.Println("pending:", q.Len())
	_ = q.Shutdown(ctx)
	// Output:
	//    0s delete /no-namespace from node-1 (due 0s)
	//   10s delete web/frontend from node-1 (due 5s)
	//   10s cancel db/postgres
	// pending: 0
}

// Rescheduling: a second Add of a pending key is refused (the first add
// wins); Cancel and Add again move its fire time, and Get shows the stored
// item.
func ExampleQueue_Cancel() {
	clk := testclock.NewFakeClock(start)
	q := timedqueue.New(func(_ context.Context, it timedqueue.Item[string, struct{}]) error {
		fmt.Printf("%v run %s (due %v)\n", clk.Since(start), it.Key, it.FireAt.Sub(start))
		return nil
	}, timedqueue.Options[string]{Clock: clk, Workers: 1})
	ctx := context.Background()

	q.Add("ns/pod", struct{}{}, start, start.Add(time.Minute))
	fmt.Println("add again:", q.Add("ns/pod", struct{}{}, start, start.Add(5*time.Second)))
	fmt.Println("cancel:", q.Cancel("ns/pod"), "add:", q.Add("ns/pod", struct{}{}, start, start.Add(5*time.Second)))
	it, _ := q.Get("ns/pod")
	fmt.Println(it.Key, it.State, "due", it.FireAt.Sub(start))

	clk.Step(5 * time.Second)
	_ = q.Idle(ctx)
	_, ok := q.Get("ns/pod")
	fmt.Println("still queued:", ok)
	_ = q.Shutdown(ctx)
	// Output:
	// add again: false
	// cancel: true add: true
	// ns/pod pending due 5s
	// 5s run ns/pod (due 5s)
	// still queued: false
}

// Many operations under one lock: a node's pods are looked up and
// scheduled in one Batch, which dispatches what is due once it ends; each
// pod's Entry hashes its key once for all its operations.
func ExampleQueue_Batch() {
	clk := testclock.NewFakeClock(start)
	q := timedqueue.New(func(_ context.Context, it timedqueue.Item[string, string]) error {
		fmt.Printf("%v evict %s: %s\n", clk.Since(start), it.Key, it.Value)
		return nil
	}, timedqueue.Options[string]{Clock: clk, Workers: 1})
	ctx := context.Background()
	q.Add("ns/b", "tolerates 60 s", start, start.Add(time.Minute))

	q.Batch(func(b timedqueue.Batch[string, string]) {
		for _, pod := range []string{"ns/a", "ns/b", "ns/c"} {
			e := b.Entry(pod) // hashes pod once for Get and Add
			if it, ok := e.Get(); ok {
				fmt.Println(pod, "already due in", it.FireAt.Sub(start))
				continue
			}
			e.Add("no toleration", start, start)
		}
	})
	_ = q.Idle(ctx)
	fmt.Println("pending:", q.Len())
	_ = q.Shutdown(ctx)
	// Output:
	// ns/b already due in 1m0s
	// 0s evict ns/a: no toleration
	// 0s evict ns/c: no toleration
	// pending: 1
}

// Durable retries: the work fails twice, and the queue tries again after 1 s
// and then 2 s on its clock.
func ExampleRetry() {
	clk := testclock.NewFakeClock(start)
	failures := 2
	q := timedqueue.New(func(_ context.Context, it timedqueue.Item[string, struct{}]) error {
		if failures > 0 {
			failures--
			fmt.Printf("%v %s: fails\n", clk.Since(start), it.Key)
			return errors.New("apiserver unavailable")
		}
		fmt.Printf("%v %s: done\n", clk.Since(start), it.Key)
		return nil
	}, timedqueue.Options[string]{
		Clock: clk, Workers: 1, Retry: timedqueue.Retry{MaxAttempts: 5, Initial: time.Second},
	})
	ctx := context.Background()

	q.Add("ns/pod", struct{}{}, start, start)
	for range 4 {
		_ = q.Idle(ctx)
		clk.Step(time.Second)
	}
	_ = q.Shutdown(ctx)
	// Output:
	// 0s ns/pod: fails
	// 1s ns/pod: fails
	// 3s ns/pod: done
}

// A zone loses three nodes at once. The node lifecycle controller polls the
// zone's queue every 100 ms and taints one node per token: at the default
// eviction rate of 0.1 nodes per second, one node every ten seconds. The
// queue reads no clock: each call says what time it is.
func ExampleRateLimited() {
	zone := timedqueue.NewRateLimited[string](0.1)
	for _, node := range []string{"node-a", "node-b", "node-c"} {
		zone.Add(start, node, "uid-"+node)
	}
	for now := start; now.Sub(start) <= 30*time.Second; now = now.Add(100 * time.Millisecond) {
		zone.Try(now, func(v timedqueue.TimedValue[string]) (bool, time.Duration) {
			fmt.Printf("%v taint %s (%v)\n", now.Sub(start), v.Value, v.UID)
			return true, 0
		})
	}
	fmt.Println("queued:", zone.Len(), "node-a processed:", zone.Has("node-a"))
	// Output:
	// 0s taint node-a (uid-node-a)
	// 10s taint node-b (uid-node-b)
	// 20s taint node-c (uid-node-c)
	// queued: 0 node-a processed: true
}

// Instead of polling every 100 ms, a caller may wait until the bucket holds
// its next token: the draws in between would hand out nothing.
func ExampleRateLimited_NextToken() {
	zone := timedqueue.NewRateLimited[string](0.5)
	for _, node := range []string{"node-a", "node-b", "node-c"} {
		zone.Add(start, node, nil)
	}
	for now := start; zone.Len() > 0; {
		zone.Try(now, func(v timedqueue.TimedValue[string]) (bool, time.Duration) {
			fmt.Printf("%v taint %s\n", now.Sub(start).Round(time.Millisecond), v.Value)
			return true, 0
		})
		next, ok := zone.NextToken(now)
		if !ok {
			break
		}
		now = next
	}
	// Output:
	// 0s taint node-a
	// 2s taint node-b
	// 4s taint node-c
}

// Stopping and resuming a zone: unlike upstream, rate 1 resumes a stopped
// queue (upstream's stopped limiter already reports rate 1).
func ExampleRateLimited_SetRate() {
	zone := timedqueue.NewRateLimited[string](1)
	zone.Add(start, "node-a", nil)
	zone.SetRate(start, 0)
	taint := func(v timedqueue.TimedValue[string]) (bool, time.Duration) { return true, 0 }
	fmt.Println("stopped:", zone.Try(start, taint), zone.QPS())
	zone.SetRate(start, 1)
	later := start.Add(time.Second)
	fmt.Println("resumed:", zone.Try(later, taint), zone.QPS())
	// Output:
	// stopped: 0 0
	// resumed: 1 1
}

// A core that keeps its evictions in a Schedule: no clock and no goroutine.
// Its caller passes now, carries out what Start hands out, and reports each
// back; a failed attempt is retried at a time the caller picks, and a key
// never has two items started at once.
func ExampleSchedule() {
	var s timedqueue.Schedule[string, string]
	s.Add("default/web", "node-a", start, start.Add(30*time.Second))
	s.Add("default/db", "node-a", start, start)

	now := start
	for it, ok := s.Start(now); ok; it, ok = s.Start(now) {
		fmt.Println("evict", it.Key, "from", it.Value)
		s.Retry(it.Key, now.Add(time.Second)) // the API server refused
	}
	next, _ := s.NextAt()
	fmt.Println("next call at +", next.Sub(start))

	now = next
	it, _ := s.Start(now)
	fmt.Println("evict", it.Key, "again, attempts failed:", it.Attempts)
	s.Finish(it.Key)
	fmt.Println("cancelled web:", s.Cancel("default/web"), "left:", s.Len())
	// Output:
	// evict default/db from node-a
	// next call at + 1s
	// evict default/db again, attempts failed: 1
	// cancelled web: true left: 0
}
