package pressureevictor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"k8s.io/client-go/kubernetes"
)

// DefaultSummaryMaxBytes bounds the summary read when the MaxBytes of
// ProxySource or KubeletConfig is zero: 16 MiB, twenty times a summary of 110 pods (about 800 KB), and
// small enough that reading it stays well inside the DaemonSet's 128 MiB
// memory limit.
const DefaultSummaryMaxBytes int64 = 16 << 20

// ErrSummaryTooLarge is wrapped by the error of a summary longer than the
// limit.
var ErrSummaryTooLarge = errors.New("summary too large")

// SummarySource reads the node's stats summary, the kubelet's JSON.
type SummarySource interface {
	// Summary returns the summary's bytes, or an error when it cannot be
	// read.
	Summary(ctx context.Context) ([]byte, error)
}

// SummaryFunc adapts a function to SummarySource.
type SummaryFunc func(ctx context.Context) ([]byte, error)

// Summary calls f.
func (f SummaryFunc) Summary(ctx context.Context) ([]byte, error) { return f(ctx) }

var (
	_ SummarySource = SummaryFunc(nil)
	_ SummarySource = ProxySource{}
)

// ProxySource is the SummarySource that GETs
// /api/v1/nodes/NODE/proxy/stats/summary through Client's REST client, the
// request "kubectl get --raw" makes, and reads at most MaxBytes of it. It
// needs get on nodes/proxy, a right that is not read-only: the kubelet
// authorizes exec, attach and port-forward under the same subresource and
// verb, so a token that holds it can run commands in every container of
// every node it reaches. Prefer KubeletSource, which needs get on
// nodes/stats only; this source is for clusters whose pods cannot reach
// their kubelet.
type ProxySource struct {
	// Client reaches the API server.
	Client kubernetes.Interface
	// Node is the node whose summary is read.
	Node string
	// MaxBytes bounds the summary: a longer one is an error wrapping
	// ErrSummaryTooLarge, read no further. Zero means
	// DefaultSummaryMaxBytes.
	MaxBytes int64
}

// NewProxySource returns the ProxySource of node with the default limit.
func NewProxySource(client kubernetes.Interface, node string) ProxySource {
	return ProxySource{Client: client, Node: node}
}

// Summary reads the summary; the read ends with ctx.
func (p ProxySource) Summary(ctx context.Context) ([]byte, error) {
	body, err := p.Client.CoreV1().RESTClient().Get().
		Resource("nodes").Name(p.Node).SubResource("proxy").Suffix("stats/summary").
		Stream(ctx)
	if err != nil {
		return nil, fmt.Errorf("pressureevictor: stats summary of node %q: %w", p.Node, err)
	}
	defer body.Close()
	return readSummary(p.Node, body, p.MaxBytes)
}

// readSummary reads body, the summary of node, up to limit bytes
// (DefaultSummaryMaxBytes when limit is not positive): a longer body is an
// error wrapping ErrSummaryTooLarge, read no further than one byte past the
// limit. Both sources read through it.
func readSummary(node string, body io.Reader, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultSummaryMaxBytes
	}
	limit = min(limit, math.MaxInt64-1)
	data, err := io.ReadAll(io.LimitReader(body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("pressureevictor: stats summary of node %q: %w", node, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("pressureevictor: stats summary of node %q: longer than the limit of %d bytes (--summary-max-bytes): %w",
			node, limit, ErrSummaryTooLarge)
	}
	return data, nil
}
