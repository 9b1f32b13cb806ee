package framework

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process is one child program whose output goes to a log file.
type process struct {
	name string
	path string
	args []string
	log  string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// start runs the program; its standard output and error are appended to the
// log file, so a restarted process keeps one log.
func (p *process) start() error {
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("framework: %s log: %w", p.name, err)
	}
	fmt.Fprintf(f, "==== %s %s\n", p.path, strings.Join(p.args, " "))
	cmd := exec.Command(p.path, p.args...)
	cmd.Stdout = f
	cmd.Stderr = f
	// The child dies with the test binary, even when the test is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("framework: start %s: %w", p.name, err)
	}
	p.cmd = cmd
	p.done = make(chan struct{})
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return nil
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	if p.done == nil {
		return true
	}
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM, and SIGKILL if the process is still there after grace.
func (p *process) stop(grace time.Duration) {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
}

// kill ends the process at once, as a crash would.
func (p *process) kill() {
	if p.exited() {
		return
	}
	_ = p.cmd.Process.Kill()
	<-p.done
}

// tail returns the last n bytes of the log.
func (p *process) tail(n int64) string {
	f, err := os.Open(p.log)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err.Error()
	}
	off := max(st.Size()-n, 0)
	b := make([]byte, st.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil {
		return err.Error()
	}
	return string(b)
}

// FreePort returns a TCP port on 127.0.0.1 that nothing listens on now.
func FreePort() (int, error) { return freePort() }

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("framework: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// errExited says that a process ended while the framework waited for it.
var errExited = errors.New("process exited")

func newProcess(dir, name, path string, args ...string) *process {
	return &process{name: name, path: path, args: args, log: filepath.Join(dir, name+".log")}
}

// Usage is what a running process has cost so far, read from /proc.
type Usage struct {
	// CPU is the processor time it has used, in user and system mode.
	CPU time.Duration
	// PeakRSS is the most resident memory it has held, in bytes (VmHWM).
	PeakRSS int64
}

// clockTick is the unit of /proc/PID/stat's times: USER_HZ, which Linux
// fixes at 100 per second on every architecture Go supports.
const clockTick = 10 * time.Millisecond

// usage reads /proc/PID/stat and /proc/PID/status of a running process.
func usage(pid int) (Usage, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Usage{}, fmt.Errorf("framework: usage of process %d: %w", pid, err)
	}
	// The command name (field 2) may hold spaces; the fields after its
	// closing parenthesis are plain. utime and stime are fields 14 and 15.
	i := strings.LastIndexByte(string(stat), ')')
	var fields []string
	if i >= 0 {
		fields = strings.Fields(string(stat[i+1:]))
	}
	if len(fields) < 13 {
		return Usage{}, fmt.Errorf("framework: usage of process %d: unexpected /proc/%d/stat %q", pid, pid, stat)
	}
	var u Usage
	for _, f := range fields[11:13] {
		ticks, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return Usage{}, fmt.Errorf("framework: usage of process %d: CPU time %q: %w", pid, f, err)
		}
		u.CPU += time.Duration(ticks) * clockTick
	}
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Usage{}, fmt.Errorf("framework: usage of process %d: %w", pid, err)
	}
	for line := range strings.Lines(string(status)) {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return Usage{}, fmt.Errorf("framework: usage of process %d: VmHWM %q: %w", pid, strings.TrimSpace(v), err)
			}
			u.PeakRSS = kb << 10
		}
	}
	return u, nil
}
