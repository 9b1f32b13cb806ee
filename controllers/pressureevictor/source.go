package pressureevictor

import (
	"context"
	"fmt"

	"k8s.io/client-go/kubernetes"
)

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

// NewProxySource returns the SummarySource that GETs
// /api/v1/nodes/NODE/proxy/stats/summary through client's REST client, the
// request "kubectl get --raw" makes. It needs get on nodes/proxy.
func NewProxySource(client kubernetes.Interface, node string) SummarySource {
	return SummaryFunc(func(ctx context.Context) ([]byte, error) {
		data, err := client.CoreV1().RESTClient().Get().
			Resource("nodes").Name(node).SubResource("proxy").Suffix("stats/summary").
			DoRaw(ctx)
		if err != nil {
			return nil, fmt.Errorf("pressureevictor: stats summary of node %q: %w", node, err)
		}
		return data, nil
	})
}
