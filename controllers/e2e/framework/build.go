package framework

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Version is the Kubernetes release the control plane is built from; the
// tools module pins it and the build stamps it into the binaries.
const Version = "v1.37.2"

// ldflags stamp the version that the servers report (v0.0.0 otherwise),
// and leave out the symbol table and the DWARF debugging information, which
// no test reads (stack traces and profiles keep their function names) and
// which take a third of the time of linking a Kubernetes program.
const ldflags = "-s -w -X k8s.io/component-base/version.gitVersion=" + Version +
	" -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37"

// Binaries are the paths of the control-plane programs.
type Binaries struct {
	Etcd              string
	APIServer         string
	ControllerManager string
}

// tools maps each binary's file name to the package the tools module builds
// it from.
var tools = []struct{ name, pkg string }{
	{"etcd", "go.etcd.io/etcd/server/v3"},
	{"kube-apiserver", "k8s.io/kubernetes/cmd/kube-apiserver"},
	{"kube-controller-manager", "k8s.io/kubernetes/cmd/kube-controller-manager"},
}

// EnvBinDir names a folder that already holds etcd, kube-apiserver and
// kube-controller-manager; when set, nothing is built.
const EnvBinDir = "EVICTKIT_E2E_BIN_DIR"

var (
	buildOnce sync.Once
	built     Binaries
	buildErr  error
)

// Build returns the control-plane binaries, building them on first use from
// the tools module (controllers/e2e/tools) into a cache folder keyed by the
// module's go.mod, go.sum, the Go version and the build flags. A file lock
// makes concurrent test processes wait for one build instead of repeating it;
// a later run with the same inputs reuses the binaries at once.
func Build() (Binaries, error) {
	buildOnce.Do(func() { built, buildErr = build() })
	return built, buildErr
}

func binaries(dir string) Binaries {
	return Binaries{
		Etcd:              filepath.Join(dir, "etcd"),
		APIServer:         filepath.Join(dir, "kube-apiserver"),
		ControllerManager: filepath.Join(dir, "kube-controller-manager"),
	}
}

func build() (Binaries, error) {
	if dir := os.Getenv(EnvBinDir); dir != "" {
		return binaries(dir), nil
	}
	toolsDir, err := toolsModule()
	if err != nil {
		return Binaries{}, err
	}
	goVersion, err := goOutput(toolsDir, "env", "GOVERSION")
	if err != nil {
		return Binaries{}, err
	}
	h := sha256.New()
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(toolsDir, f))
		if err != nil {
			return Binaries{}, fmt.Errorf("framework: tools module: %w", err)
		}
		h.Write(b)
	}
	fmt.Fprintf(h, "%s\n%s\n", goVersion, ldflags)
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "evictkit-e2e", hex.EncodeToString(h.Sum(nil))[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Binaries{}, fmt.Errorf("framework: cache folder: %w", err)
	}
	unlock, err := lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return Binaries{}, err
	}
	defer unlock()
	// The missing binaries are built by one go command, which compiles
	// the packages they share once and links them side by side, into a
	// temporary folder, then moved into place one by one.
	var missing []string
	for _, tool := range tools {
		if _, err := os.Stat(filepath.Join(dir, tool.name)); err != nil {
			missing = append(missing, tool.pkg)
		}
	}
	if len(missing) == 0 {
		return binaries(dir), nil
	}
	tmp, err := os.MkdirTemp(dir, ".build-")
	if err != nil {
		return Binaries{}, fmt.Errorf("framework: cache folder: %w", err)
	}
	defer os.RemoveAll(tmp)
	args := append([]string{"build", "-trimpath", "-ldflags", ldflags, "-o", tmp + string(filepath.Separator)}, missing...)
	if _, err := goOutput(toolsDir, args...); err != nil {
		return Binaries{}, err
	}
	for _, tool := range tools {
		if !slices.Contains(missing, tool.pkg) {
			continue
		}
		if err := os.Rename(filepath.Join(tmp, execName(tool.pkg)), filepath.Join(dir, tool.name)); err != nil {
			return Binaries{}, fmt.Errorf("framework: %s: %w", tool.name, err)
		}
	}
	return binaries(dir), nil
}

// execName is the file name go build -o DIR/ gives the program of package
// pkg: the last element of its path, or the one before a major version
// suffix (/v2, /v3, ...).
func execName(pkg string) string {
	elems := strings.Split(pkg, "/")
	name := elems[len(elems)-1]
	if len(elems) > 1 && majorSuffix(name) {
		name = elems[len(elems)-2]
	}
	return name
}

// majorSuffix reports whether s is a major version path element: v and a
// number of 2 or more, without leading zeros.
func majorSuffix(s string) bool {
	if len(s) < 2 || s[0] != 'v' || s[1] == '0' || s == "v1" {
		return false
	}
	return strings.Trim(s[1:], "0123456789") == ""
}

// toolsModule finds controllers/e2e/tools: in the controllers module itself,
// or through the module graph of a module that requires it (with a replace
// to the checkout), such as the scheduler module's e2e suite.
func toolsModule() (string, error) {
	gomod, err := goOutput("", "env", "GOMOD")
	if err != nil {
		return "", err
	}
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("framework: not inside a Go module; run the e2e tests from the controllers module")
	}
	dir, err := goOutput("", "list", "-m", "-f", "{{.Dir}}", controllersModule)
	if err != nil {
		return "", err
	}
	dir = filepath.Join(dir, "e2e", "tools")
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("framework: tools module not found at %s: %w", dir, err)
	}
	return dir, nil
}

// controllersModule is the module this package belongs to.
const controllersModule = "github.com/evictkit/eviction/controllers"

var (
	programsMu sync.Mutex
	programs   = map[string]string{}
)

// BuildProgram builds the main package pkg of the Go module in moduleDir into
// a binary named name, with the flags the control plane is built with (the
// version stamp included), and returns its path. The binary lives in a cache
// folder keyed by moduleDir and pkg; the go command relinks it only when a
// source file or a dependency changed, and reuses the packages the control
// plane's build compiled. A file lock serializes concurrent test processes;
// within one process the first build is reused.
func BuildProgram(moduleDir, pkg, name string) (string, error) {
	abs, err := filepath.Abs(moduleDir)
	if err != nil {
		return "", fmt.Errorf("framework: %w", err)
	}
	key := abs + "\n" + pkg + "\n" + name
	programsMu.Lock()
	defer programsMu.Unlock()
	if path, ok := programs[key]; ok {
		return path, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256([]byte(key))
	dir := filepath.Join(cache, "evictkit-e2e", "programs", hex.EncodeToString(sum[:])[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("framework: cache folder: %w", err)
	}
	unlock, err := lock(filepath.Join(dir, ".lock"))
	if err != nil {
		return "", err
	}
	defer unlock()
	out := filepath.Join(dir, name)
	if _, err := goOutput(abs, "build", "-trimpath", "-ldflags", ldflags, "-o", out, pkg); err != nil {
		return "", err
	}
	programs[key] = out
	return out, nil
}

func goOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("framework: go %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}

// lock takes an exclusive lock on path, waiting for other holders.
func lock(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("framework: lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("framework: lock %s: %w", path, err)
	}
	return func() {
		_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
