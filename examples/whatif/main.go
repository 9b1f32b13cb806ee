package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/evictkit/eviction/nodelifecycle"
)

// demoNode is the node the demo (no arguments) takes down.
const demoNode = "worker-a2"

// usageText is printed by -h.
const usageText = `whatif: what would Kubernetes v1.37.2 evict? It replays the decisions of
kube-controller-manager, the kubelet and kube-scheduler on a cluster snapshot.

Usage:
  whatif [-f FILE] [-o table|json] SCENARIO ARG...
  whatif            the demo: node-down ` + demoNode + ` on the embedded snapshot

Scenarios:
  node-down NODE...
      The nodes stop heartbeating at t0: when each turns Unknown, when it is
      tainted unreachable:NoExecute (rate-limited per zone) and when each of its
      pods is evicted, or why never.
      With --pod-eviction-timeout D, also when kube-controller-manager v1.26
      with --enable-taint-manager=false would have deleted each of its pods
      (no taints: the pods of a node not ready for longer than D go, but for
      DaemonSet pods), beside today's evictions.
  taint NODE KEY[=VALUE]:EFFECT
      The taint is applied at t0, as kubectl taint would (no --overwrite).
  pressure NODE --signal SIGNAL=AMOUNT... [--usage FILE]
  pressure NODE --summary FILE
      The kubelet's default hard thresholds against the observed amounts: which
      are met, and the order in which the kubelet evicts the node's pods, with
      each pod's oom_score_adj.
  preempt POD.yaml [--config FILE] [--strict-pdb] [--eviction-api]
          [--min-candidate-nodes-percentage N] [--min-candidate-nodes-absolute N]
      The node and the victims kube-scheduler would preempt for the pending pod
      (a Pod in YAML or JSON; "-" reads standard input), and the criterion
      that decided. The flags configure the scheduler as the
      EvictkitPreemption plugin's args do; --config reads them from a
      KubeSchedulerConfiguration instead: the profile whose schedulerName is
      the pod's, its preemption plugin (EvictkitPreemption if enabled, else
      DefaultPreemption) and that plugin's pluginConfig args. Flags given
      beside --config override the file.
  device-taint --driver DRIVER [--pool POOL [--device NAME]...]
               [KEY[=VALUE][:EFFECT]]
      A DeviceTaintRule created at t0 taints the pool's devices (or the named
      ones, a rule each; without --pool, every pool of the driver) with the
      taint (default ` + defaultDeviceTaintKey + `:NoExecute): which pods
      kube-controller-manager evicts, at once or when their tolerationSeconds
      (from the taint's timeAdded) run out, which stay and why, with the claim,
      device and taint that decide; and the rule's status as it writes it.
      Effect None evicts nothing: the status says what NoExecute would do.

Flags (before or after the scenario):
  -f FILE       what "kubectl get nodes,pods,pdb -A -o yaml" (or -o json) prints
                (a v1 List), or YAML or JSON documents of Nodes, Pods and
                PodDisruptionBudgets; "-" reads standard input. Read as a stream:
                a snapshot of 10,000 nodes is fine. Default: the embedded snapshot
                (12 nodes in 3 zones, 97 pods, 6 PodDisruptionBudgets).
                device-taint also reads the resource.k8s.io objects of
                    kubectl get ` + draKubectlKinds + ` -A -o yaml
                and without -f an embedded DRA cluster (3 nodes, 12 pods, 3
                ResourceSlices, 9 ResourceClaims); the other scenarios skip
                them.
  -o FORMAT     table (default) or json.
  --node-monitor-period D, --node-monitor-grace-period D,
  --node-startup-grace-period D, --node-eviction-rate R
                (node-down, taint) kube-controller-manager's flags of the same
                names, for a cluster that does not run their defaults (5s,
                50s, 60s and 0.1 nodes/s).
  --driver D, --pool P, --device NAME (repeatable)
                (device-taint) the devices to taint.
  --effect E    (device-taint) NoExecute (default), NoSchedule or None, when
                the taint does not give it.
  --signal S=A  (pressure, repeatable) the amount available for signal S: a
                quantity (memory.available=200Mi) or a percentage of the
                node's capacity (nodefs.available=8%); A/CAPACITY gives the
                capacity where the node has none (nodefs.inodesFree=2k/6M).
                Signals: memory.available, allocatableMemory.available,
                nodefs.available, nodefs.inodesFree, imagefs.available,
                imagefs.inodesFree, containerfs.available,
                containerfs.inodesFree, pid.available.
  --config FILE (preempt) a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1).
  --strict-pdb, --eviction-api, --min-candidate-nodes-percentage N,
  --min-candidate-nodes-absolute N
                (preempt) EvictkitPreemption's args strictPDB, evictionAPI,
                minCandidateNodesPercentage (default 10) and
                minCandidateNodesAbsolute (default 100). strictPDB never
                preempts where a victim would violate a PodDisruptionBudget;
                evictionAPI does not change the choice: the output says which
                evictions the API server would refuse.
  --usage FILE  (pressure) the pods' usage, a YAML or JSON map from
                namespace/name to amounts, for example
                    shop/search-5d8f8745e-z6jzw: {memory: 1500Mi, ephemeral-storage: 2Gi}
                    batch/nightly-report-29391840-9dh8m: {memory: 300Mi}
                Keys: memory (working set), ephemeral-storage, inodes, pids.
                Without it, or for a pod it does not list, usage is the pod's
                requests (no processes, no inodes); the output says which.
  --summary FILE (pressure) the kubelet's stats summary, what
                    kubectl get --raw /api/v1/nodes/NODE/proxy/stats/summary
                prints: the signals from its node figures and the usage of
                each pod it lists; pods it does not list fall back to their
                requests. Replaces --signal and --usage.

t0 is the latest node heartbeat in the snapshot. Times in tables are offsets
from t0; -o json also gives them in RFC 3339.

Exit status: 0 on success, 2 on bad input (one line on standard error), 1 on
any other failure.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run runs the command with the given arguments and streams and returns its
// exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintln(stderr, oneLine(fmt.Sprintf("whatif: internal error: %v", r)))
			code = 1
		}
	}()
	var out bytes.Buffer
	err := dispatch(args, stdin, &out)
	switch {
	case errors.Is(err, flag.ErrHelp):
		_, err = io.WriteString(stdout, usageText)
	case err == nil:
		_, err = out.WriteTo(stdout)
	}
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "whatif: "+oneLine(err.Error()))
	if errors.Is(err, errInput) {
		return 2
	}
	return 1
}

// cli holds the parsed flags.
type cli struct {
	file    string
	output  string
	signals []string
	usage   string
	summary string
	kcm     settings // node-down and taint
	// podEvictionTimeout is node-down's --pod-eviction-timeout: v1.26's
	// legacy mode beside today's (0: not asked).
	podEvictionTimeout time.Duration
	dt                 deviceTaintFlags
	preempt            preemptFlags
	set                map[string]bool
}

// report is a scenario's result, printable both ways.
type report interface {
	writeTable(w io.Writer) error
	jsonValue() any
}

// parseArgs parses flags wherever they appear and returns the positional
// arguments.
func parseArgs(args []string) (*cli, []string, error) {
	c := &cli{set: map[string]bool{}}
	fs := flag.NewFlagSet("whatif", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.file, "f", "", "")
	fs.StringVar(&c.output, "o", "table", "")
	fs.Func("signal", "", func(s string) error { c.signals = append(c.signals, s); return nil })
	fs.StringVar(&c.usage, "usage", "", "")
	fs.StringVar(&c.summary, "summary", "", "")
	c.kcm.register(fs)
	fs.Func("pod-eviction-timeout", "", func(s string) error {
		d, err := time.ParseDuration(s)
		switch {
		case err != nil:
			return fmt.Errorf("want a duration such as 5m")
		case d <= 0 || d > horizon:
			return fmt.Errorf("want a positive duration of at most %v", horizon)
		}
		c.podEvictionTimeout = d
		return nil
	})
	c.dt.register(fs)
	c.preempt.register(fs)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, nil, err
			}
			return nil, nil, badInput("%v (whatif -h for help)", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	fs.Visit(func(f *flag.Flag) { c.set[f.Name] = true })
	if err := c.kcm.record(fs); err != nil {
		return nil, nil, err
	}
	if c.output != "table" && c.output != "json" {
		return nil, nil, badInput("-o %q: want table or json", c.output)
	}
	return c, pos, nil
}

// dispatch parses the arguments and runs the scenario.
func dispatch(args []string, stdin io.Reader, stdout io.Writer) error {
	c, pos, err := parseArgs(args)
	if err != nil {
		return err
	}
	demo := len(pos) == 0
	if demo {
		if c.file != "" {
			return badInput("no scenario given (want node-down, taint, pressure, preempt or device-taint; whatif -h for help)")
		}
		pos = []string{"node-down", demoNode}
	}
	scenario, rest := pos[0], pos[1:]
	for _, f := range []string{"signal", "usage", "summary"} {
		if c.set[f] && scenario != "pressure" {
			return badInput("--%s only applies to pressure", f)
		}
	}
	if c.set["pod-eviction-timeout"] && scenario != "node-down" {
		return badInput("--pod-eviction-timeout only applies to node-down")
	}
	for _, f := range settingFlags {
		if c.set[f] && scenario != "node-down" && scenario != "taint" {
			return badInput("--%s only applies to node-down and taint", f)
		}
	}
	for _, f := range deviceTaintFlagNames {
		if c.set[f] && scenario != "device-taint" {
			return badInput("--%s only applies to device-taint", f)
		}
	}
	for _, f := range preemptFlagNames {
		if c.set[f] && scenario != "preempt" {
			return badInput("--%s only applies to preempt", f)
		}
	}
	switch scenario {
	case "node-down":
		if len(rest) == 0 {
			return badInput("node-down: name at least one node")
		}
	case "taint":
		if len(rest) != 2 {
			return badInput("taint: want NODE KEY[=VALUE]:EFFECT, got %d arguments", len(rest))
		}
	case "pressure":
		if len(rest) != 1 {
			return badInput("pressure: want one NODE, got %d arguments", len(rest))
		}
		switch {
		case c.summary != "" && (len(c.signals) > 0 || c.usage != ""):
			return badInput("pressure: --summary gives the signals and the usage; leave out --signal and --usage")
		case c.summary == "" && len(c.signals) == 0:
			return badInput("pressure: give at least one --signal SIGNAL=AMOUNT, e.g. --signal memory.available=200Mi, or --summary FILE")
		}
	case "preempt":
		if len(rest) != 1 {
			return badInput("preempt: want one POD.yaml, got %d arguments", len(rest))
		}
	case "device-taint":
		switch {
		case len(rest) > 1:
			return badInput("device-taint: want at most one KEY[=VALUE][:EFFECT], got %d arguments", len(rest))
		case c.dt.driver == "":
			return badInput("device-taint: give the driver, --driver DRIVER")
		case len(c.dt.devices) > 0 && c.dt.pool == "":
			return badInput("device-taint: --device needs --pool")
		}
	default:
		return badInput("unknown scenario %q (want node-down, taint, pressure, preempt or device-taint)", scenario)
	}

	load := loadSnapshot
	if scenario == "device-taint" {
		load = loadDRASnapshot
	}
	s, source, err := load(c.file, stdin)
	if err != nil {
		return err
	}
	var r report
	switch scenario {
	case "node-down":
		if c.podEvictionTimeout > 0 {
			r, err = legacyNodeDown(s, source, c.kcm, c.podEvictionTimeout, rest, demo)
			break
		}
		r, err = nodeDown(s, source, c.kcm, rest, demo)
	case "taint":
		r, err = taintNode(s, source, c.kcm, rest[0], rest[1])
	case "pressure":
		r, err = pressure(s, source, rest[0], pressureInput{signals: c.signals, usageFile: c.usage, summaryFile: c.summary}, stdin, c.file == "-")
	case "preempt":
		r, err = preempt(s, source, rest[0], stdin, c.file == "-", &c.preempt)
	case "device-taint":
		r, err = deviceTaint(s, source, c.dt, rest)
	}
	if err != nil {
		return err
	}
	if c.output == "json" {
		return writeJSON(stdout, r.jsonValue())
	}
	return r.writeTable(stdout)
}

// loadSnapshot reads the snapshot named by -f: a file, "-" for stdin, or the
// embedded one. It returns a description of the source for the output.
func loadSnapshot(file string, stdin io.Reader) (*snapshot, string, error) {
	if file == "" {
		s, err := parseEmbedded()
		if err != nil {
			return nil, "", err
		}
		return s.clone(), "the embedded snapshot", nil
	}
	return readNamed(file, stdin, readSnapshot)
}

// readNamed reads with read the snapshot that -f names: "-" for stdin, or a
// file, streamed (a snapshot may be large), whose size bounds the memory
// whatif lets itself use.
func readNamed(file string, stdin io.Reader, read func(io.Reader, string) (*snapshot, error)) (*snapshot, string, error) {
	if file == "-" {
		s, err := read(stdin, "standard input")
		return s, "standard input", err
	}
	f, err := openFile(file)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		limitMemory(st.Size())
	}
	s, err := read(f, file)
	return s, file, err
}

// openFile opens a file the user named for reading; failures are bad input.
func openFile(name string) (*os.File, error) {
	f, err := os.Open(name)
	if err == nil {
		var st os.FileInfo
		if st, err = f.Stat(); err == nil && st.IsDir() {
			err = errors.New("is a directory")
		}
		if err != nil {
			f.Close()
		}
	}
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err
		}
		return nil, badInput("cannot read %s: %v", name, err)
	}
	return f, nil
}

// readFile reads a file the user named; failures are bad input.
func readFile(name string) ([]byte, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			err = pe.Err
		}
		return nil, badInput("cannot read %s: %v", name, err)
	}
	return data, nil
}

// readInput reads a file argument, "-" meaning stdin unless -f took it. It
// also returns the name to give the input in messages: the file's, or
// "standard input".
func readInput(file string, stdin io.Reader, stdinTaken bool) (data []byte, name string, err error) {
	if file != "-" {
		data, err = readFile(file)
		return data, file, err
	}
	if stdinTaken {
		return nil, "", badInput(`"-" names standard input, which -f - already reads`)
	}
	data, err = io.ReadAll(stdin)
	if err != nil {
		return nil, "", badInput("cannot read standard input: %v", err)
	}
	return data, "standard input", nil
}

// describe summarises a snapshot for headers: "12 nodes in 3 zones, 97 pods".
func (s *snapshot) describe() string {
	zones := map[string]bool{}
	for _, n := range s.Nodes {
		zones[nodelifecycle.ZoneKey(n)] = true
	}
	parts := []string{plural(len(s.Nodes), "node") + " in " + plural(len(zones), "zone"), plural(len(s.Pods), "pod")}
	if len(s.PDBs) > 0 {
		parts = append(parts, plural(len(s.PDBs), "PDB"))
	}
	return strings.Join(parts, ", ")
}
