// Package commandtest runs a program's main function from its own test
// binary, so that a test of package main sees what an operator sees: the
// lines on stderr and the exit status.
//
//	func TestMain(m *testing.M) { commandtest.Main(m, main) }
//
//	out := commandtest.Run(t, "--kubeconfig="+commandtest.Nowhere(t).Refused)
//	// out.Code == 1, out.Lines() holds the one error line
//
// It also writes the kubeconfigs that point nowhere which every program is
// tested with.
package commandtest

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// envRunMain tells the test binary to run the program's main function.
const envRunMain = "EVICTKIT_COMMANDTEST_RUN_MAIN"

// Main runs main, with the arguments Run passed, when the test binary was
// started by Run; otherwise it runs the tests. Call it from TestMain.
func Main(m *testing.M, main func()) {
	if os.Getenv(envRunMain) == "1" {
		var args []string
		if err := json.Unmarshal([]byte(os.Getenv(envRunMain+"_ARGS")), &args); err != nil {
			panic(err) // a bug of Run
		}
		os.Args = append([]string{os.Args[0]}, args...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Bound is how long Run lets the program run before it kills it and fails
// the test: a program that should exit has hung.
const Bound = time.Minute

// Output is what the program printed on stderr and its exit status.
type Output struct {
	Stderr string
	Code   int
}

// Lines are the lines of Stderr.
func (o Output) Lines() []string {
	return strings.Split(strings.TrimSuffix(o.Stderr, "\n"), "\n")
}

// Run runs the program with args, outside any cluster (no
// KUBERNETES_SERVICE_HOST, no KUBECONFIG), and returns its stderr and exit
// status; it fails the test if the program is still running after Bound.
func Run(t *testing.T, args ...string) Output {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBERNETES_SERVICE_") && !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "HOME=") {
			env = append(env, kv)
		}
	}
	encoded, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(env, envRunMain+"=1", envRunMain+"_ARGS="+string(encoded), "HOME="+t.TempDir())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v: still running after %v, killed; stderr:\n%s", args, Bound, stderr.String())
	}
	out := Output{Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		out.Code = exit.ExitCode()
	case err != nil:
		t.Fatalf("%v: %v", args, err)
	}
	return out
}

// Kubeconfigs are kubeconfig files that point nowhere useful, each with
// what the program's error line must say about it.
type Kubeconfigs []struct {
	Name, Path, Want string
}

// Nowhere writes the kubeconfigs every program must reject with one line
// and a nonzero status, without hanging: a file that does not exist, one
// that is not a kubeconfig, a server that refuses connections, one that
// accepts them and never answers, and one that refuses the credentials.
// The programs are to run with --kube-api-startup-timeout=2s.
func Nowhere(t *testing.T) Kubeconfigs {
	t.Helper()
	dir := t.TempDir()
	write := func(name, server string) string {
		cfg := clientcmdapi.NewConfig()
		cfg.Clusters["c"] = &clientcmdapi.Cluster{Server: server, InsecureSkipTLSVerify: true}
		cfg.AuthInfos["u"] = &clientcmdapi.AuthInfo{Token: "not-a-token"}
		cfg.Contexts["c"] = &clientcmdapi.Context{Cluster: "c", AuthInfo: "u"}
		cfg.CurrentContext = "c"
		path := filepath.Join(dir, name)
		if err := clientcmd.WriteToFile(*cfg, path); err != nil {
			t.Fatal(err)
		}
		return path
	}

	// A port nothing listens on: taken, then closed.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "https://" + l.Addr().String()
	l.Close()

	// A server that accepts connections and never answers.
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); silent.Close() })
	go func() {
		var conns []net.Conn
		defer func() {
			for _, c := range conns {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
			select {
			case <-done:
				return
			default:
			}
		}
	}()

	// A server that refuses every token.
	unauthorized := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`))
	}))
	t.Cleanup(unauthorized.Close)

	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, []byte("\x00\x01 not: [a kubeconfig"), 0o600); err != nil {
		t.Fatal(err)
	}
	absent := filepath.Join(dir, "absent")
	return Kubeconfigs{
		{"absent file", absent, "client configuration: stat " + absent + ": no such file or directory"},
		{"not a kubeconfig", garbage, "client configuration: "},
		{"connection refused", write("refused", refused), "the API server at " + refused + " did not answer within 2s (--kube-api-startup-timeout): "},
		{"never answers", write("silent", "https://"+silent.Addr().String()), "the API server at https://" + silent.Addr().String() + " did not answer within 2s"},
		{"credentials refused", write("unauthorized", unauthorized.URL), "the API server at " + unauthorized.URL + " did not accept the credentials: Unauthorized"},
	}
}

// Check runs the program with each kubeconfig of Nowhere and the extra
// args: each run must exit with status 1 and print exactly one line, which
// names the program and says what is wrong. Without --kubeconfig, outside a
// cluster, it says that too.
func Check(t *testing.T, program string, args ...string) {
	t.Helper()
	cases := append(Nowhere(t), struct{ Name, Path, Want string }{"no kubeconfig outside a cluster", "",
		"client configuration: no --kubeconfig and not in a cluster: unable to load in-cluster configuration"})
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			a := append([]string{"--metrics-bind-address=0", "--kube-api-startup-timeout=2s"}, args...)
			if tc.Path != "" {
				a = append(a, "--kubeconfig="+tc.Path)
			}
			out := Run(t, a...)
			if out.Code != 1 {
				t.Errorf("exit status %d, want 1; stderr:\n%s", out.Code, out.Stderr)
			}
			lines := out.Lines()
			if len(lines) != 1 {
				t.Fatalf("%d lines on stderr, want 1:\n%s", len(lines), out.Stderr)
			}
			if !strings.Contains(lines[0], program+": "+tc.Want) {
				t.Errorf("stderr %q, want it to say %q", lines[0], program+": "+tc.Want)
			}
		})
	}
}
