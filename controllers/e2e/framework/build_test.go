package framework

import "testing"

// The binaries are moved into place under the names go build gives them,
// which drop a major version suffix.
func TestExecName(t *testing.T) {
	for pkg, want := range map[string]string{
		"go.etcd.io/etcd/server/v3":                     "server",
		"k8s.io/kubernetes/cmd/kube-apiserver":          "kube-apiserver",
		"k8s.io/kubernetes/cmd/kube-controller-manager": "kube-controller-manager",
		"example.com/tool/v":                            "v",
		"example.com/v2":                                "example.com",
		"example.com/tool/v1":                           "v1",
		"example.com/tool/v02":                          "v02",
		"example.com/tool/v10":                          "tool",
		"example.com/tool/vx":                           "vx",
		"v2":                                            "v2",
	} {
		if got := execName(pkg); got != want {
			t.Errorf("execName(%q) = %q, want %q", pkg, got, want)
		}
	}
}
