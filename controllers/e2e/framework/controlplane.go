package framework

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Options say what Start runs besides etcd and kube-apiserver.
type Options struct {
	// ControllerManager starts kube-controller-manager when non-nil.
	ControllerManager *ControllerManager
	// APIServerArgs are added to kube-apiserver's flags (later flags win).
	APIServerArgs []string
	// Users are more cluster administrators (group system:masters), each
	// with a bearer token of its own, so that an audit log or a policy can
	// tell their requests apart; [ControlPlane.KubeconfigOf] reaches the API
	// server as one of them.
	Users []string
}

// ControllerManager configures kube-controller-manager.
type ControllerManager struct {
	// Controllers is the --controllers list; empty means "*" (every
	// controller that is on by default).
	Controllers []string
	// Args are added to its flags, such as "--node-monitor-grace-period=4s".
	Args []string
}

// ControlPlane is a running etcd and kube-apiserver, and optionally
// kube-controller-manager, all children of the test process on 127.0.0.1.
type ControlPlane struct {
	// Config reaches kube-apiserver as a cluster administrator.
	Config *rest.Config
	// Client is a clientset on Config.
	Client kubernetes.Interface
	// Kubeconfig is the path of a kubeconfig file for Config.
	Kubeconfig string
	// Dir holds the control plane's files: data, certificates, logs.
	Dir string

	// kubeconfigs maps each of Options.Users to its kubeconfig file.
	kubeconfigs map[string]string

	bin       Binaries
	etcd      *process
	apiserver *process
	kcm       *process
	others    []*Process
}

// readyTimeout bounds every wait for a server to become ready: generous,
// since several control planes may start at once on a busy machine.
const readyTimeout = 3 * time.Minute

// Start builds (or reuses) the binaries and starts a control plane; it is
// stopped when the test ends, and the servers' logs are printed if the test
// failed. Start fails the test on any error.
func Start(t testing.TB, opts Options) *ControlPlane {
	t.Helper()
	bin, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "evictkit-e2e-")
	if err != nil {
		t.Fatal(err)
	}
	cp := &ControlPlane{Dir: dir, bin: bin}
	t.Cleanup(func() { cp.stop(t) })
	if err := cp.start(opts); err != nil {
		t.Fatal(err)
	}
	return cp
}

func (cp *ControlPlane) start(opts Options) error {
	ports := make([]int, 3)
	for i := range ports {
		p, err := freePort()
		if err != nil {
			return err
		}
		ports[i] = p
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	peerURL := "http://127.0.0.1:" + strconv.Itoa(ports[1])
	cp.etcd = newProcess(cp.Dir, "etcd", cp.bin.Etcd,
		"--data-dir="+filepath.Join(cp.Dir, "etcd"),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=default="+peerURL,
		"--unsafe-no-fsync", "--log-level=warn")
	if err := cp.etcd.start(); err != nil {
		return err
	}
	if err := poll(readyTimeout, cp.etcd, func() bool {
		resp, err := http.Get(etcdURL + "/health")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}); err != nil {
		return fmt.Errorf("framework: etcd not healthy: %w", err)
	}

	token, users, err := cp.writeCredentials(opts.Users)
	if err != nil {
		return err
	}
	certDir := filepath.Join(cp.Dir, "certs")
	args := []string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(ports[2]),
		"--cert-dir=" + certDir,
		"--token-auth-file=" + filepath.Join(cp.Dir, "tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-key-file=" + filepath.Join(cp.Dir, "sa.pub"),
		"--service-account-signing-key-file=" + filepath.Join(cp.Dir, "sa.key"),
		"--service-account-issuer=https://kubernetes.default.svc",
		"--endpoint-reconciler-type=none",
		"--service-cluster-ip-range=10.0.0.0/24",
		// No kubelet runs, so nothing would mount service-account tokens;
		// the plugin would also reject pods until the default account exists.
		"--disable-admission-plugins=ServiceAccount",
	}
	cp.apiserver = newProcess(cp.Dir, "kube-apiserver", cp.bin.APIServer, append(args, opts.APIServerArgs...)...)
	cp.Config = &rest.Config{
		Host:            "https://127.0.0.1:" + strconv.Itoa(ports[2]),
		BearerToken:     token,
		TLSClientConfig: rest.TLSClientConfig{CAFile: filepath.Join(certDir, "apiserver.crt")},
		QPS:             200,
		Burst:           400,
	}
	if err := cp.StartAPIServer(); err != nil {
		return err
	}
	cp.Client, err = kubernetes.NewForConfig(cp.Config)
	if err != nil {
		return fmt.Errorf("framework: %w", err)
	}
	if cp.Kubeconfig, err = cp.writeKubeconfig("admin", token); err != nil {
		return err
	}
	cp.kubeconfigs = map[string]string{}
	for user, token := range users {
		if cp.kubeconfigs[user], err = cp.writeKubeconfig(user, token); err != nil {
			return err
		}
	}
	// The namespace of our programs' leader Leases, as deploy/rbac.yaml
	// creates it.
	ns := &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "evictkit-system"}}
	if _, err := cp.Client.CoreV1().Namespaces().Create(context.Background(), ns, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("framework: %w", err)
	}
	if opts.ControllerManager != nil {
		return cp.startControllerManager(*opts.ControllerManager)
	}
	return nil
}

// StartAPIServer starts kube-apiserver (again, after StopAPIServer) on the
// same port, certificates and etcd, and waits until /readyz answers ok.
func (cp *ControlPlane) StartAPIServer() error {
	if !cp.apiserver.exited() {
		return nil
	}
	if err := cp.apiserver.start(); err != nil {
		return err
	}
	return cp.waitAPIServer()
}

// StopAPIServer stops kube-apiserver with SIGTERM (SIGKILL after 20 s).
func (cp *ControlPlane) StopAPIServer() { cp.apiserver.stop(20 * time.Second) }

func (cp *ControlPlane) waitAPIServer() error {
	// The serving certificate appears shortly after start; until then a
	// client cannot be built.
	var lastErr error
	err := poll(readyTimeout, cp.apiserver, func() bool {
		cfg := rest.CopyConfig(cp.Config)
		cfg.Timeout = 5 * time.Second
		c, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			lastErr = err
			return false
		}
		body, err := c.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(context.Background())
		if err != nil {
			lastErr = fmt.Errorf("%w: %s", err, body)
			return false
		}
		return string(body) == "ok"
	})
	if err != nil {
		return fmt.Errorf("framework: kube-apiserver not ready: %w (last answer: %v)", err, lastErr)
	}
	return nil
}

func (cp *ControlPlane) startControllerManager(o ControllerManager) error {
	controllers := "*"
	if len(o.Controllers) > 0 {
		controllers = strings.Join(o.Controllers, ",")
	}
	args := []string{
		"--kubeconfig=" + cp.Kubeconfig,
		"--controllers=" + controllers,
		"--leader-elect=false",
		"--secure-port=0",
		"--service-account-private-key-file=" + filepath.Join(cp.Dir, "sa.key"),
		"--root-ca-file=" + cp.Config.TLSClientConfig.CAFile,
	}
	cp.kcm = newProcess(cp.Dir, "kube-controller-manager", cp.bin.ControllerManager, append(args, o.Args...)...)
	if err := cp.kcm.start(); err != nil {
		return err
	}
	// The service-account controller, on in every default list, creates the
	// default account of each namespace: once it exists the controllers run.
	err := poll(readyTimeout, cp.kcm, func() bool {
		_, err := cp.Client.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(context.Background(), "default", metav1.GetOptions{})
		return err == nil
	})
	if err != nil {
		return fmt.Errorf("framework: kube-controller-manager not running: %w", err)
	}
	return nil
}

// StopControllerManager stops kube-controller-manager.
func (cp *ControlPlane) StopControllerManager() {
	if cp.kcm != nil {
		cp.kcm.stop(10 * time.Second)
	}
}

// KubeconfigOf returns the path of a kubeconfig file that reaches the API
// server as user, one of [Options.Users].
func (cp *ControlPlane) KubeconfigOf(user string) (string, error) {
	path, ok := cp.kubeconfigs[user]
	if !ok {
		return "", fmt.Errorf("framework: no user %q: name it in Options.Users", user)
	}
	return path, nil
}

// writeCredentials writes the token file, with the admin and each of users
// in system:masters, and the service-account key pair; it returns the
// admin's token and each user's.
func (cp *ControlPlane) writeCredentials(users []string) (string, map[string]string, error) {
	newToken := func() (string, error) {
		b := make([]byte, 16)
		if _, err := rand.Read(b); err != nil {
			return "", fmt.Errorf("framework: token: %w", err)
		}
		return hex.EncodeToString(b), nil
	}
	token, err := newToken()
	if err != nil {
		return "", nil, err
	}
	lines := token + `,admin,admin-uid,"system:masters"` + "\n"
	tokens := map[string]string{}
	for _, user := range users {
		if user == "admin" || user == "" || strings.ContainsAny(user, ",\"\n") || tokens[user] != "" {
			return "", nil, fmt.Errorf("framework: user %q: want a new name without commas or quotes", user)
		}
		if tokens[user], err = newToken(); err != nil {
			return "", nil, err
		}
		lines += tokens[user] + "," + user + "," + user + `-uid,"system:masters"` + "\n"
	}
	if err := os.WriteFile(filepath.Join(cp.Dir, "tokens.csv"), []byte(lines), 0o600); err != nil {
		return "", nil, fmt.Errorf("framework: %w", err)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", nil, fmt.Errorf("framework: service-account key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return "", nil, fmt.Errorf("framework: service-account key: %w", err)
	}
	files := map[string]*pem.Block{
		"sa.key": {Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)},
		"sa.pub": {Type: "PUBLIC KEY", Bytes: pub},
	}
	for name, block := range files {
		if err := os.WriteFile(filepath.Join(cp.Dir, name), pem.EncodeToMemory(block), 0o600); err != nil {
			return "", nil, fmt.Errorf("framework: %w", err)
		}
	}
	return token, tokens, nil
}

// writeKubeconfig writes a kubeconfig file that reaches the API server as
// user, with token, and returns its path: "kubeconfig" for the admin,
// "kubeconfig-USER" for the others.
func (cp *ControlPlane) writeKubeconfig(user, token string) (string, error) {
	path := filepath.Join(cp.Dir, "kubeconfig")
	if user != "admin" {
		path += "-" + user
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["e2e"] = &clientcmdapi.Cluster{Server: cp.Config.Host, CertificateAuthority: cp.Config.TLSClientConfig.CAFile}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["e2e"] = &clientcmdapi.Context{Cluster: "e2e", AuthInfo: user}
	cfg.CurrentContext = "e2e"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", fmt.Errorf("framework: kubeconfig: %w", err)
	}
	return path, nil
}

func (cp *ControlPlane) stop(t testing.TB) {
	for _, p := range cp.others {
		p.p.stop(10 * time.Second)
	}
	if cp.kcm != nil {
		cp.kcm.stop(10 * time.Second)
	}
	if cp.apiserver != nil {
		cp.apiserver.stop(20 * time.Second)
	}
	if cp.etcd != nil {
		cp.etcd.stop(10 * time.Second)
	}
	if t.Failed() {
		all := []*process{cp.etcd, cp.apiserver, cp.kcm}
		for _, p := range cp.others {
			all = append(all, p.p)
		}
		for _, p := range all {
			if p != nil {
				t.Logf("---- last lines of %s's log (%s):\n%s", p.name, p.log, p.tail(8<<10))
			}
		}
		t.Logf("control plane files kept in %s", cp.Dir)
		return
	}
	os.RemoveAll(cp.Dir)
}

// Process is a program the test runs against the control plane, such as one
// of our controllers.
type Process struct{ p *process }

// Run starts the program at path with args; its output goes to name.log in
// the control plane's folder (printed if the test fails), and it is stopped
// with the control plane.
func (cp *ControlPlane) Run(name, path string, args ...string) (*Process, error) {
	p := &Process{p: newProcess(cp.Dir, name, path, args...)}
	if err := p.p.start(); err != nil {
		return nil, err
	}
	cp.others = append(cp.others, p)
	return p, nil
}

// Stop ends the process with SIGTERM, waiting up to grace before SIGKILL.
func (p *Process) Stop(grace time.Duration) { p.p.stop(grace) }

// Kill ends the process with SIGKILL, as a crash would.
func (p *Process) Kill() { p.p.kill() }

// Exited reports whether the process has ended.
func (p *Process) Exited() bool { return p.p.exited() }

// Usage returns the CPU time and peak memory the process has used so far;
// read it before the process stops.
func (p *Process) Usage() (Usage, error) {
	if p.p.exited() {
		return Usage{}, fmt.Errorf("framework: usage of %s: %w", p.p.name, errExited)
	}
	return usage(p.p.cmd.Process.Pid)
}

// Log returns the last n bytes of the process's output.
func (p *Process) Log(n int64) string { return p.p.tail(n) }

// poll calls ok every 100 ms until it reports true, p exits or timeout passes.
func poll(timeout time.Duration, p *process, ok func() bool) error {
	deadline := time.Now().Add(timeout)
	for {
		if ok() {
			return nil
		}
		if p != nil && p.exited() {
			return fmt.Errorf("%s: %w (see %s)", p.name, errExited, p.log)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not ready after %v", p.name, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
