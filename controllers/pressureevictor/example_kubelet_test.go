package pressureevictor_test

import (
	"context"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/evictkit/eviction/controllers/pressureevictor"
)

// A KubeletSource reads the summary from the node's own kubelet, here a
// stand-in on 127.0.0.1 whose port the Node reports: the bearer token comes
// from a file (read again for every request), the kubelet's certificate is
// verified against a CA file. The stand-in allows the token "allowed" only,
// as a kubelet allows a token whose user may get nodes/stats of the node.
func ExampleNewKubeletSource() {
	kubelet := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer allowed" {
			http.Error(w, "Forbidden", http.StatusForbidden)
			return
		}
		fmt.Fprint(w, `{"node":{"nodeName":"node-1"},"pods":[]}`)
	}))
	defer kubelet.Close()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	caFile, tokenFile := filepath.Join(dir, "ca.crt"), filepath.Join(dir, "token")
	_ = os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: kubelet.Certificate().Raw}), 0o600)
	_ = os.WriteFile(tokenFile, []byte("allowed"), 0o600)

	_, port, _ := net.SplitHostPort(kubelet.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}}
	n.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(p)

	src, err := pressureevictor.NewKubeletSource(pressureevictor.KubeletConfig{
		Node: "node-1", Address: "127.0.0.1", Client: fake.NewClientset(n),
		TokenFile: tokenFile, CAFile: caFile,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	data, err := src.Summary(context.Background())
	fmt.Println(string(data), err)

	// The token rotates to one the kubelet refuses.
	_ = os.WriteFile(tokenFile, []byte("refused"), 0o600)
	_, err = src.Summary(context.Background())
	fmt.Println(errors.Is(err, pressureevictor.ErrKubeletRefused))
	// Output:
	// {"node":{"nodeName":"node-1"},"pods":[]} <nil>
	// true
}
