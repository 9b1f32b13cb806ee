package pressureevictor

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// proxied serves handler as the API server's node proxy of node "node-1".
func proxied(t *testing.T, handler http.HandlerFunc) kubernetes.Interface {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/v1/nodes/"+node+"/proxy/stats/summary" {
			http.NotFound(w, r)
			return
		}
		handler(w, r)
	}))
	t.Cleanup(srv.Close)
	client, err := kubernetes.NewForConfig(&rest.Config{Host: srv.URL})
	require.NoError(t, err)
	return client
}

func TestProxySourceBoundsTheRead(t *testing.T) {
	body := `{"node":{"nodeName":"node-1"},"pods":[]}`
	client := proxied(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(body)) })

	data, err := ProxySource{Client: client, Node: node, MaxBytes: int64(len(body))}.Summary(context.Background())
	require.NoError(t, err)
	assert.Equal(t, body, string(data), "a summary of exactly the limit is read")

	_, err = ProxySource{Client: client, Node: node, MaxBytes: int64(len(body)) - 1}.Summary(context.Background())
	require.ErrorIs(t, err, ErrSummaryTooLarge)
	assert.ErrorContains(t, err, "limit of 39 bytes (--summary-max-bytes)")
}

func TestProxySourceDefaultLimit(t *testing.T) {
	chunk := strings.Repeat(" ", 1<<20)
	client := proxied(t, func(w http.ResponseWriter, r *http.Request) {
		for range 17 { // 17 MiB of blanks
			if _, err := w.Write([]byte(chunk)); err != nil {
				return
			}
		}
	})
	_, err := NewProxySource(client, node).Summary(context.Background())
	require.ErrorIs(t, err, ErrSummaryTooLarge)
	assert.ErrorContains(t, err, "limit of 16777216 bytes")
}

// A kubelet that never answers skips the cycle once the cycle times out: the
// loop goes on.
func TestHungKubeletTimesTheCycleOut(t *testing.T) {
	release := make(chan struct{})
	client := proxied(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) }) // before the server closes: it waits for the handler
	fx := newFixture(t, hardMemory, false, nodePods...)
	e := fx.evictor
	e.cfg.Source = NewProxySource(client, node)
	e.cfg.CycleTimeout = 100 * time.Millisecond

	done := make(chan report, 1)
	go func() { done <- e.cycle(context.Background()) }()
	select {
	case r := <-done:
		assert.Equal(t, OutcomeSkipped, r.outcome)
	case <-time.After(time.Minute):
		t.Fatal("the cycle did not end within a minute of its 100 ms timeout")
	}
	events := fx.events()
	require.Len(t, events, 1)
	assert.Contains(t, events[0], "context deadline exceeded")
}

// Healthy reports stale once no cycle completed for three intervals past
// the cycle timeout, and healthy again after one completes.
func TestHealthyReflectsTheLastCycle(t *testing.T) {
	fx := newFixture(t, hardMemory, false, nodePods...)
	fx.available = 900
	require.NoError(t, fx.evictor.Healthy(), "just made")
	fx.cycle(0)
	fx.clock.Step(3*DefaultInterval + DefaultCycleTimeout)
	require.NoError(t, fx.evictor.Healthy(), "at the limit")
	fx.clock.Step(time.Millisecond)
	err := fx.evictor.Healthy()
	require.ErrorIs(t, err, ErrStale)
	assert.ErrorContains(t, err, "last cycle completed 1m0.001s ago, more than 1m0s")
	fx.cycle(0)
	assert.NoError(t, fx.evictor.Healthy())
}
