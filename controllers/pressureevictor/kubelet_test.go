package pressureevictor

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// kubelet is a stand-in kubelet serving TLS on 127.0.0.1: it answers
// /stats/summary with handler and records the bearer tokens it was given.
type kubelet struct {
	srv    *httptest.Server
	caFile string
	port   int

	mu     sync.Mutex
	tokens []string
}

func newKubelet(t *testing.T, handler http.HandlerFunc) *kubelet {
	t.Helper()
	k := &kubelet{}
	k.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		k.tokens = append(k.tokens, strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		k.mu.Unlock()
		if r.URL.Path != "/stats/summary" || r.Method != http.MethodGet {
			http.NotFound(w, r)
			return
		}
		handler(w, r)
	}))
	t.Cleanup(k.srv.Close)
	k.caFile = writeFile(t, "ca.crt", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: k.srv.Certificate().Raw})))
	_, port, err := net.SplitHostPort(k.srv.Listener.Addr().String())
	require.NoError(t, err)
	k.port, err = strconv.Atoi(port)
	require.NoError(t, err)
	return k
}

func (k *kubelet) seen() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.tokens...)
}

// otherCA writes the certificate of a CA of its own, which signed no
// kubelet here (every httptest server serves the same certificate).
func otherCA(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "other-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return writeFile(t, "other-ca.crt", string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})))
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// config is a KubeletConfig for k, its CA trusted, the token in a file.
func (k *kubelet) config(t *testing.T, token string) KubeletConfig {
	return KubeletConfig{Node: node, Address: "127.0.0.1", Port: k.port, TokenFile: writeFile(t, "token", token+"\n"), CAFile: k.caFile}
}

const summaryOfNode1 = `{"node":{"nodeName":"node-1"},"pods":[]}`

// The source reads the summary with the token of the file, read again for
// every request: a rotated token is sent at the next read.
func TestKubeletSourceReadsWithTheCurrentToken(t *testing.T) {
	k := newKubelet(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(summaryOfNode1)) })
	cfg := k.config(t, "first")
	s, err := NewKubeletSource(cfg)
	require.NoError(t, err)
	data, err := s.Summary(context.Background())
	require.NoError(t, err)
	assert.Equal(t, summaryOfNode1, string(data))

	require.NoError(t, os.WriteFile(cfg.TokenFile, []byte("second"), 0o600))
	_, err = s.Summary(context.Background())
	require.NoError(t, err)
	assert.Equal(t, []string{"first", "second"}, k.seen())
}

// With port 0 the source reads the kubelet's port from the Node once; a
// Node that reports none means the kubelet's default port.
func TestKubeletSourcePortFromTheNode(t *testing.T) {
	k := newKubelet(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(summaryOfNode1)) })
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: node}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(k.port)
	client := fake.NewClientset(n)
	cfg := k.config(t, "t")
	cfg.Port, cfg.Client = 0, client
	s, err := NewKubeletSource(cfg)
	require.NoError(t, err)
	for range 3 {
		_, err = s.Summary(context.Background())
		require.NoError(t, err)
	}
	assert.Len(t, client.Actions(), 1, "the Node is read once")

	n.Status.DaemonEndpoints.KubeletEndpoint.Port = 0
	cfg.Client = fake.NewClientset(n)
	s, err = NewKubeletSource(cfg)
	require.NoError(t, err)
	// Nothing is meant to listen on 127.0.0.1:10250 here; the error names
	// the URL either way.
	_, err = s.Summary(context.Background())
	if err != nil {
		assert.ErrorContains(t, err, "https://127.0.0.1:10250/stats/summary")
	}

	cfg.Client = fake.NewClientset()
	s, err = NewKubeletSource(cfg)
	require.NoError(t, err)
	_, err = s.Summary(context.Background())
	assert.ErrorContains(t, err, `kubelet port of node "node-1" (its status.daemonEndpoints.kubeletEndpoint.Port; or set --kubelet-port): nodes "node-1" not found`)
}

// 401 and 403 are refusals that name what is missing: the token is not
// authenticated, or it lacks get on nodes/stats of the node. Other answers
// are errors with their status; a redirect is not followed.
func TestKubeletSourceRefusals(t *testing.T) {
	for _, tc := range []struct {
		name    string
		status  int
		body    string
		refused bool
		want    string
	}{
		{"unauthorized", http.StatusUnauthorized, "Unauthorized", true,
			`the kubelet at https://127.0.0.1:PORT/stats/summary did not authenticate the token of TOKEN (401 Unauthorized: Unauthorized): kubelet refused the request`},
		{"forbidden", http.StatusForbidden, "Forbidden (user=system:serviceaccount:kube-system:pressure-evictor, verb=get, resource=nodes, subresource(s)=[stats])\n", true,
			`refused the token of TOKEN, which needs get on nodes/stats of node "node-1" (403 Forbidden: Forbidden (user=system:serviceaccount:kube-system:pressure-evictor, verb=get, resource=nodes, subresource(s)=[stats])): kubelet refused the request`},
		{"server error", http.StatusInternalServerError, "boom\x00\nagain", false,
			`the kubelet at https://127.0.0.1:PORT/stats/summary answered 500 Internal Server Error: boom  again`},
		{"redirect", http.StatusFound, "", false, "answered 302 Found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newKubelet(t, func(w http.ResponseWriter, _ *http.Request) {
				if tc.status == http.StatusFound {
					w.Header().Set("Location", "https://127.0.0.1:1/elsewhere")
				}
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			})
			cfg := k.config(t, "t")
			s, err := NewKubeletSource(cfg)
			require.NoError(t, err)
			_, err = s.Summary(context.Background())
			require.Error(t, err)
			assert.Equal(t, tc.refused, errors.Is(err, ErrKubeletRefused), err)
			want := strings.NewReplacer("PORT", strconv.Itoa(k.port), "TOKEN", cfg.TokenFile).Replace(tc.want)
			assert.Contains(t, err.Error(), want)
			assert.NotContains(t, err.Error(), "\n")
			assert.Len(t, k.seen(), 1, "one request, no redirect followed")
		})
	}
}

// A kubelet whose certificate the CA does not sign is not sent the token;
// with InsecureSkipTLSVerify it is read.
func TestKubeletSourceVerifiesTheKubelet(t *testing.T) {
	k := newKubelet(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(summaryOfNode1)) })
	cfg := k.config(t, "secret")
	cfg.CAFile = otherCA(t)
	s, err := NewKubeletSource(cfg)
	require.NoError(t, err)
	_, err = s.Summary(context.Background())
	assert.ErrorContains(t, err, "certificate")
	assert.Empty(t, k.seen(), "no request reached the unverified kubelet")

	cfg.CAFile, cfg.InsecureSkipTLSVerify = "", true
	s, err = NewKubeletSource(cfg)
	require.NoError(t, err)
	data, err := s.Summary(context.Background())
	require.NoError(t, err)
	assert.Equal(t, summaryOfNode1, string(data))
}

// The kubelet's summary is read through the same bound as the proxy's.
func TestKubeletSourceBoundsTheRead(t *testing.T) {
	k := newKubelet(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(summaryOfNode1)) })
	cfg := k.config(t, "t")
	cfg.MaxBytes = int64(len(summaryOfNode1))
	s, err := NewKubeletSource(cfg)
	require.NoError(t, err)
	_, err = s.Summary(context.Background())
	require.NoError(t, err, "a summary of exactly the limit is read")

	cfg.MaxBytes--
	s, err = NewKubeletSource(cfg)
	require.NoError(t, err)
	_, err = s.Summary(context.Background())
	require.ErrorIs(t, err, ErrSummaryTooLarge)
	assert.ErrorContains(t, err, "limit of 39 bytes (--summary-max-bytes)")
}

// A token file that is missing, empty, enormous or not a token is an error
// naming the file; nothing is sent.
func TestKubeletSourceBadTokenFiles(t *testing.T) {
	k := newKubelet(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte(summaryOfNode1)) })
	for _, tc := range []struct {
		name, content, want string
	}{
		{"empty", " \n", "is empty"},
		{"enormous", strings.Repeat("a", maxTokenBytes+1), "is longer than 65536 bytes"},
		{"header injection", "a\r\nX-Other: b", "holds characters a bearer token cannot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := k.config(t, "")
			require.NoError(t, os.WriteFile(cfg.TokenFile, []byte(tc.content), 0o600))
			s, err := NewKubeletSource(cfg)
			require.NoError(t, err)
			_, err = s.Summary(context.Background())
			assert.ErrorContains(t, err, "kubelet token file "+cfg.TokenFile+" "+tc.want)
		})
	}
	cfg := k.config(t, "t")
	cfg.TokenFile = filepath.Join(t.TempDir(), "absent")
	s, err := NewKubeletSource(cfg)
	require.NoError(t, err)
	_, err = s.Summary(context.Background())
	assert.ErrorContains(t, err, "kubelet token (--kubelet-token-file): open "+cfg.TokenFile)
	assert.Empty(t, k.seen())
}

func TestNewKubeletSourceErrors(t *testing.T) {
	ca := newKubelet(t, func(http.ResponseWriter, *http.Request) {}).caFile
	ok := KubeletConfig{Node: node, Address: "10.0.0.1", Port: 10250, TokenFile: "/t", CAFile: ca}
	for _, tc := range []struct {
		name string
		edit func(*KubeletConfig)
		want string
	}{
		{"no node", func(c *KubeletConfig) { c.Node = "" }, "no Node"},
		{"no address", func(c *KubeletConfig) { c.Address = "" }, `node address "" is not an IP address (--node-ip)`},
		{"host name", func(c *KubeletConfig) { c.Address = "node-1.example" }, `node address "node-1.example" is not an IP address`},
		{"port", func(c *KubeletConfig) { c.Port = 65536 }, "port 65536 is not 1 to 65535, or 0 (--kubelet-port)"},
		{"port from a Node without a client", func(c *KubeletConfig) { c.Port = 0 }, "no Client to read the kubelet port from the Node"},
		{"no token file", func(c *KubeletConfig) { c.TokenFile = "" }, "no token file (--kubelet-token-file)"},
		{"no CA", func(c *KubeletConfig) { c.CAFile = "" }, "no CA file to verify the kubelet with (--kubelet-certificate-authority)"},
		{"CA and insecure", func(c *KubeletConfig) { c.InsecureSkipTLSVerify = true }, "both a CA file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ok
			tc.edit(&cfg)
			_, err := NewKubeletSource(cfg)
			require.ErrorIs(t, err, ErrInvalidConfig)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	_, err := NewKubeletSource(ok)
	require.NoError(t, err)

	for _, tc := range []struct{ name, content, want string }{
		{"not PEM", "hello", "holds no PEM certificate"},
	} {
		cfg := ok
		cfg.CAFile = writeFile(t, "ca", tc.content)
		_, err := NewKubeletSource(cfg)
		assert.ErrorContains(t, err, tc.want, tc.name)
	}
	cfg := ok
	cfg.CAFile = filepath.Join(t.TempDir(), "absent")
	_, err = NewKubeletSource(cfg)
	assert.ErrorContains(t, err, "kubelet CA file (--kubelet-certificate-authority): open ")
}

// A refusal of the kubelet skips the cycle: a Warning event on the Node that
// names nodes/stats, the cause counted, nothing evicted.
func TestRefusedSummarySkipsTheCycle(t *testing.T) {
	k := newKubelet(t, func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "Forbidden", http.StatusForbidden) })
	fx := newFixture(t, hardMemory, false, nodePods...)
	s, err := NewKubeletSource(k.config(t, "t"))
	require.NoError(t, err)
	fx.evictor.cfg.Source = s

	r := fx.cycle(0)
	assert.Equal(t, OutcomeSkipped, r.outcome)
	assert.Empty(t, fx.client.Actions(), "nothing evicted")
	events := fx.events()
	require.Len(t, events, 1)
	assert.True(t, strings.HasPrefix(events[0], "Warning "+ReasonSummaryUnavailable+" Eviction cycle skipped: "), events[0])
	assert.Contains(t, events[0], `needs get on nodes/stats of node "node-1" (403 Forbidden`)
	assert.Equal(t, 1.0, testutil.ToFloat64(fx.metrics.summaries.WithLabelValues(SummaryRefused)))
	assert.Equal(t, 1.0, fx.cycles(OutcomeSkipped))
}
