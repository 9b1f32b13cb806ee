package nodelifecycle

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	coordinationv1 "k8s.io/api/coordination/v1"
	v1 "k8s.io/api/core/v1"
)

// The breaker reads the lease cache's resourceVersion at each node's turn, as upstream reads
// its store's: when the cache catches up during a pass (a long one: a live GET, a status write
// and every pod per silent node), the nodes after that point are judged in the same pass. A
// version read once at the pass's start held every later node back until the next pass,
// however far the cache had come.
func TestMonitorLeaseCacheCatchesUpDuringAPass(t *testing.T) {
	ctx := context.Background()
	api := newFakeAPI()
	for _, n := range []string{"n1", "n2", "n3"} {
		api.node(n, "z", at(-time.Hour), t0)
		api.leases[n] = "5"
	}
	leases := map[string]*coordinationv1.Lease{}
	for _, n := range []string{"n1", "n2", "n3"} {
		leases[n] = mkLease(n, "5", ptr(t0))
	}
	m := drive(api, Config{})
	in := api.input(leases)
	in.LeaseCacheRV = func() string { return "5" }
	_, err := m.Pass(ctx, t0, in)
	require.NoError(t, err)

	// n1's Lease moved on the server (the cache has not seen it): n1 is skipped and "9"
	// recorded. The cache reaches "9" before n2's turn.
	api.leases["n1"] = "9"
	reads := 0
	in = api.input(leases)
	in.LeaseCacheRV = func() string {
		reads++
		if api.leaseGets >= 1 { // n1's live GET of this pass is done
			return "9"
		}
		return "5"
	}
	res, err := m.Pass(ctx, at(55*time.Second), in)
	require.ErrorIs(t, err, ErrNodeSkipped)
	assert.Equal(t, Skipped, res.Nodes[0].Health.Verdict)
	assert.Equal(t, Expired, res.Nodes[1].Health.Verdict, "the cache caught up: n2 is judged")
	assert.Equal(t, Expired, res.Nodes[2].Health.Verdict)
	assert.Equal(t, 2, api.statusWrites)
	assert.Equal(t, 1, reads, "read once, at n2's turn, while a version was recorded")
}

// A Run hands out one call at a time and repeats it until it is answered; a stray reply is
// ignored; the result is there once Next reports the end, not before; and a run driven by hand
// does what Do does.
func TestRunByHand(t *testing.T) {
	api := newFakeAPI()
	api.node("n1", "z", at(-time.Hour), t0)
	api.node("n2", "z", at(-time.Hour), t0)
	m := NewMonitor(Config{DisableLeaseCircuitBreaker: true})
	_, err := m.Pass(t0, api.input(nil)).Do(context.Background(), api)
	require.NoError(t, err)

	api.node("n2", "z", at(-time.Hour), at(50*time.Second)) // n2 posts: the zone is not all down
	run := m.Pass(at(55*time.Second), api.input(nil))
	_, err = run.Result()
	require.ErrorIs(t, err, ErrRunNotOver)
	c, ok := run.Next()
	require.True(t, ok)
	assert.Equal(t, UpdateNodeStatus, c.Op)
	again, _ := run.Next()
	assert.Equal(t, c, again, "not answered: the same call")
	run.Reply(c.Do(context.Background(), api))
	var ops []Op
	for c, ok := run.Next(); ok; c, ok = run.Next() {
		ops = append(ops, c.Op)
		run.Reply(c.Do(context.Background(), api))
	}
	run.Reply(Reply{}) // nothing waits: ignored
	res, err := run.Result()
	require.NoError(t, err)
	assert.Empty(t, ops, "a silent node in a healthy zone is queued, not tainted at once")
	assert.True(t, res.Nodes[0].Enqueued)
	assert.Equal(t, 1, api.statusWrites)

	// The Monitor is free again: a drain runs, and hands out the queued node.
	d := m.Drain(at(56*time.Second), func(name string) (*v1.Node, bool) { n, ok := api.nodes[name]; return n, ok })
	c, ok = d.Next()
	require.True(t, ok)
	assert.Equal(t, SwapTaints, c.Op)
	assert.Equal(t, "n1", c.Node)
	d.Reply(Reply{Err: errAPI})
	_, ok = d.Next()
	assert.False(t, ok)
	_, err = d.Result()
	require.ErrorIs(t, err, errAPI)
	zs := m.Zones()
	assert.Equal(t, []string{"n1"}, zs[ZoneKey(api.nodes["n1"])].Queued, "a failed taint write keeps the node queued")
}
