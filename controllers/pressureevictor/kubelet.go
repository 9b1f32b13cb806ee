package pressureevictor

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// DefaultKubeletPort is the kubelet's default --port, used when the Node
// reports no kubelet port.
const DefaultKubeletPort = 10250

// The files a pod's projected service-account volume holds: the defaults of
// KubeletConfig.TokenFile and of the program's --kubelet-certificate-authority.
const (
	DefaultTokenFile = "/var/run/secrets/kubernetes.io/serviceaccount/token"
	DefaultCAFile    = "/var/run/secrets/kubernetes.io/serviceaccount/ca.crt"
)

// maxTokenBytes bounds the read of the token file; a service-account token
// is about a kilobyte.
const maxTokenBytes = 64 << 10

// ErrKubeletRefused is wrapped by the error of a summary the kubelet refused
// with 401 Unauthorized (it did not authenticate the token) or 403 Forbidden
// (the token's user may not get nodes/stats of the node).
var ErrKubeletRefused = errors.New("kubelet refused the request")

// KubeletConfig configures a KubeletSource. Node, Address, TokenFile, and
// CAFile or InsecureSkipTLSVerify are required; so is Client when Port is
// zero.
type KubeletConfig struct {
	// Node is the name of the node whose kubelet is read.
	Node string
	// Address is the node's IP address (the pod's status.hostIP, through
	// the downward API).
	Address string
	// Port is the kubelet's port. Zero means the Node's
	// status.daemonEndpoints.kubeletEndpoint.Port, read through Client
	// until a read succeeds (DefaultKubeletPort when the Node reports 0).
	Port int
	// Client reads the Node when Port is zero.
	Client kubernetes.Interface
	// TokenFile holds the bearer token sent to the kubelet, the pod's
	// projected service-account token (DefaultTokenFile). It is read again
	// for every request: the kubelet rotates projected tokens.
	TokenFile string
	// CAFile holds the PEM certificates that verify the kubelet's serving
	// certificate (for the node's IP address).
	CAFile string
	// InsecureSkipTLSVerify turns the verification off: whoever can answer
	// in the kubelet's place then gets the token and can feed the evictor
	// figures of its choosing. For clusters whose kubelets serve
	// self-signed certificates only; CAFile must be empty.
	InsecureSkipTLSVerify bool
	// MaxBytes bounds the summary, as ProxySource.MaxBytes does.
	MaxBytes int64
}

// KubeletSource is the SummarySource that GETs
// https://ADDRESS:PORT/stats/summary from the node's own kubelet, the way
// kubelet-stats DaemonSets do, with the pod's service-account token. The
// kubelet authorizes /stats/* as get on the subresource nodes/stats of its
// node (fine-grained kubelet authorization, KEP-2862), which reads
// statistics and nothing else: unlike nodes/proxy it does not reach exec.
// It reads at most MaxBytes of the summary. Make one with NewKubeletSource.
type KubeletSource struct {
	cfg  KubeletConfig
	http *http.Client
	// port is the port read from the Node, 0 until a read succeeds.
	port atomic.Int32
}

var _ SummarySource = (*KubeletSource)(nil)

// Validate checks cfg's fields, all but Client, without reading any file:
// the error wraps ErrInvalidConfig and names the first missing or
// contradictory field (and the program's flag for it).
func (cfg KubeletConfig) Validate() error {
	switch {
	case cfg.Node == "":
		return fmt.Errorf("pressureevictor: kubelet source: no Node: %w", ErrInvalidConfig)
	case net.ParseIP(cfg.Address) == nil:
		return fmt.Errorf("pressureevictor: kubelet source: node address %q is not an IP address (--node-ip): %w", cfg.Address, ErrInvalidConfig)
	case cfg.Port < 0 || cfg.Port > 65535:
		return fmt.Errorf("pressureevictor: kubelet source: port %d is not 1 to 65535, or 0 (--kubelet-port): %w", cfg.Port, ErrInvalidConfig)
	case cfg.TokenFile == "":
		return fmt.Errorf("pressureevictor: kubelet source: no token file (--kubelet-token-file): %w", ErrInvalidConfig)
	case cfg.InsecureSkipTLSVerify && cfg.CAFile != "":
		return fmt.Errorf("pressureevictor: kubelet source: both a CA file (--kubelet-certificate-authority) and no TLS verification (--kubelet-insecure-skip-tls-verify): %w", ErrInvalidConfig)
	case !cfg.InsecureSkipTLSVerify && cfg.CAFile == "":
		return fmt.Errorf("pressureevictor: kubelet source: no CA file to verify the kubelet with (--kubelet-certificate-authority): %w", ErrInvalidConfig)
	}
	return nil
}

// NewKubeletSource returns the KubeletSource of cfg. It reads CAFile once;
// the error wraps ErrInvalidConfig for a missing or contradictory field
// (Validate's, and no Client when Port is zero), and names the CA file it
// cannot use.
func NewKubeletSource(cfg KubeletConfig) (*KubeletSource, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Port == 0 && cfg.Client == nil {
		return nil, fmt.Errorf("pressureevictor: kubelet source: no Client to read the kubelet port from the Node: %w", ErrInvalidConfig)
	}
	tlsConfig := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.InsecureSkipTLSVerify}
	if !cfg.InsecureSkipTLSVerify {
		pem, err := os.ReadFile(cfg.CAFile)
		if err != nil {
			return nil, fmt.Errorf("pressureevictor: kubelet CA file (--kubelet-certificate-authority): %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("pressureevictor: kubelet CA file %s (--kubelet-certificate-authority) holds no PEM certificate: %w", cfg.CAFile, ErrInvalidConfig)
		}
		tlsConfig.RootCAs = pool
	}
	transport := &http.Transport{
		// Never through an HTTP proxy of the environment: the token goes
		// to the kubelet only.
		Proxy:               nil,
		TLSClientConfig:     tlsConfig,
		TLSHandshakeTimeout: 10 * time.Second,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost: 1,
		IdleConnTimeout:     time.Minute,
		ForceAttemptHTTP2:   true,
	}
	client := &http.Client{
		Transport: transport,
		// A redirect is answered as it is, an unexpected status: the token
		// follows no redirect.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return &KubeletSource{cfg: cfg, http: client}, nil
}

// Summary reads the summary; the read ends with ctx. A 401 or 403 of the
// kubelet is an error wrapping ErrKubeletRefused that names the right
// needed, get on nodes/stats of the node.
func (k *KubeletSource) Summary(ctx context.Context) ([]byte, error) {
	port, err := k.kubeletPort(ctx)
	if err != nil {
		return nil, err
	}
	url := "https://" + net.JoinHostPort(k.cfg.Address, strconv.Itoa(port)) + "/stats/summary"
	token, err := k.token()
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("pressureevictor: stats summary of node %q: %w", k.cfg.Node, err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", Name)
	resp, err := k.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("pressureevictor: stats summary of node %q from its kubelet: %w", k.cfg.Node, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		return readSummary(k.cfg.Node, resp.Body, k.cfg.MaxBytes)
	case http.StatusUnauthorized:
		return nil, fmt.Errorf("pressureevictor: stats summary of node %q: the kubelet at %s did not authenticate the token of %s (401 Unauthorized%s): %w",
			k.cfg.Node, url, k.cfg.TokenFile, excerpt(resp.Body), ErrKubeletRefused)
	case http.StatusForbidden:
		return nil, fmt.Errorf("pressureevictor: stats summary of node %q: the kubelet at %s refused the token of %s, which needs get on nodes/stats of node %q (403 Forbidden%s): %w",
			k.cfg.Node, url, k.cfg.TokenFile, k.cfg.Node, excerpt(resp.Body), ErrKubeletRefused)
	}
	return nil, fmt.Errorf("pressureevictor: stats summary of node %q: the kubelet at %s answered %s%s",
		k.cfg.Node, url, resp.Status, excerpt(resp.Body))
}

// kubeletPort is Config.Port, else the port the Node reports.
func (k *KubeletSource) kubeletPort(ctx context.Context) (int, error) {
	if k.cfg.Port != 0 {
		return k.cfg.Port, nil
	}
	if p := k.port.Load(); p != 0 {
		return int(p), nil
	}
	n, err := k.cfg.Client.CoreV1().Nodes().Get(ctx, k.cfg.Node, metav1.GetOptions{})
	if err != nil {
		return 0, fmt.Errorf("pressureevictor: kubelet port of node %q (its status.daemonEndpoints.kubeletEndpoint.Port; or set --kubelet-port): %w", k.cfg.Node, err)
	}
	p := n.Status.DaemonEndpoints.KubeletEndpoint.Port
	switch {
	case p == 0:
		p = DefaultKubeletPort
	case p < 0 || p > 65535:
		return 0, fmt.Errorf("pressureevictor: node %q reports kubelet port %d, not 1 to 65535 (set --kubelet-port)", k.cfg.Node, p)
	}
	k.port.Store(p)
	return int(p), nil
}

// token reads the token file: a rotated token is picked up at the next
// request.
func (k *KubeletSource) token() (string, error) {
	f, err := os.Open(k.cfg.TokenFile)
	if err != nil {
		return "", fmt.Errorf("pressureevictor: kubelet token (--kubelet-token-file): %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTokenBytes+1))
	if err != nil {
		return "", fmt.Errorf("pressureevictor: kubelet token (--kubelet-token-file): %w", err)
	}
	token := strings.TrimSpace(string(data))
	switch {
	case len(data) > maxTokenBytes:
		return "", fmt.Errorf("pressureevictor: kubelet token file %s is longer than %d bytes", k.cfg.TokenFile, maxTokenBytes)
	case token == "":
		return "", fmt.Errorf("pressureevictor: kubelet token file %s is empty", k.cfg.TokenFile)
	case strings.ContainsFunc(token, func(r rune) bool { return r < '!' || r > '~' }):
		return "", fmt.Errorf("pressureevictor: kubelet token file %s holds characters a bearer token cannot", k.cfg.TokenFile)
	}
	return token, nil
}

// excerpt is ": " and the start of an error answer's body on one line, or
// "" for an empty body.
func excerpt(body io.Reader) string {
	data, _ := io.ReadAll(io.LimitReader(body, 256))
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return ""
	}
	return ": " + strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return ' '
	}, string(data))
}
