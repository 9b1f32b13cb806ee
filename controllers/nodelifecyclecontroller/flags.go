package nodelifecyclecontroller

import (
	"flag"
	"fmt"
	"math"
	"time"

	"github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/nodelifecycle/legacy"
)

// Flags are kube-controller-manager's flags of the node lifecycle
// controller, with its names, defaults and help texts: register them on a
// flag set, parse it, then ask [Flags.Settings] for what they say.
//
//	var f nodelifecyclecontroller.Flags
//	f.Register(fs)
//	err := fs.Parse(args)
//	s, err := f.Settings(fs)
type Flags struct {
	settings     nodelifecycle.Config
	rate         float64
	secondary    float64
	large        int
	unhealthy    float64
	taintManager bool
	timeout      time.Duration
}

// Register adds the flags to fs: --node-monitor-period,
// --node-monitor-grace-period, --node-startup-grace-period,
// --node-eviction-rate, --secondary-node-eviction-rate,
// --large-cluster-size-threshold, --unhealthy-zone-threshold, and v1.26's
// --enable-taint-manager and --pod-eviction-timeout.
func (f *Flags) Register(fs *flag.FlagSet) {
	s := &f.settings
	fs.DurationVar(&s.MonitorPeriod, "node-monitor-period", 5*time.Second, "The period for syncing NodeStatus in NodeLifecycleController.")
	fs.DurationVar(&s.MonitorGracePeriod, "node-monitor-grace-period", 50*time.Second, "Amount of time which we allow running Node to be unresponsive before marking it unhealthy.")
	fs.DurationVar(&s.StartupGracePeriod, "node-startup-grace-period", 60*time.Second, "Amount of time which we allow starting Node to be unresponsive before marking it unhealthy.")
	fs.Float64Var(&f.rate, "node-eviction-rate", 0.1, "Number of nodes per second on which pods are deleted in case of node failure when a zone is healthy.")
	fs.Float64Var(&f.secondary, "secondary-node-eviction-rate", 0.01, "Number of nodes per second on which pods are deleted in case of node failure when a zone is unhealthy.")
	fs.IntVar(&f.large, "large-cluster-size-threshold", 50, "Number of nodes from which the controller treats the cluster as large for the eviction logic purposes.")
	fs.Float64Var(&f.unhealthy, "unhealthy-zone-threshold", 0.55, "Fraction of Nodes in a zone which needs to be not Ready (minimum 3) for zone to be treated as unhealthy.")
	fs.BoolVar(&f.taintManager, "enable-taint-manager", true, "If false, run kube-controller-manager v1.26's legacy mode: no NoExecute taints; the controller deletes the pods of a node not ready for longer than --pod-eviction-timeout itself.")
	fs.DurationVar(&f.timeout, "pod-eviction-timeout", legacy.DefaultPodEvictionTimeout, "The grace period for deleting pods on failed nodes (only with --enable-taint-manager=false).")
}

// Settings are what the node lifecycle flags say.
type Settings struct {
	// Config is the node lifecycle controller's configuration.
	Config nodelifecycle.Config
	// Legacy is the legacy pod eviction mode's configuration, nil when the
	// taint manager is on (the default).
	Legacy *legacy.Config
	// TimeoutIgnored says that --pod-eviction-timeout was given with the
	// taint manager on, where it means nothing (kube-controller-manager
	// v1.26 ignored it; a program should warn).
	TimeoutIgnored bool
}

// Settings checks the flags, once fs (on which they were registered) is
// parsed, and returns what they say. The error is one line that names the
// first bad flag and its value.
func (f *Flags) Settings(fs *flag.FlagSet) (Settings, error) {
	s := f.settings
	var out Settings
	if f.timeout <= 0 {
		return out, fmt.Errorf("--pod-eviction-timeout %v is not positive", f.timeout)
	}
	if f.taintManager {
		fs.Visit(func(fl *flag.Flag) { out.TimeoutIgnored = out.TimeoutIgnored || fl.Name == "pod-eviction-timeout" })
	} else {
		out.Legacy = &legacy.Config{PodEvictionTimeout: f.timeout}
	}
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{
		{"node-monitor-period", s.MonitorPeriod},
		{"node-monitor-grace-period", s.MonitorGracePeriod},
		{"node-startup-grace-period", s.StartupGracePeriod},
	} {
		if d.v <= 0 {
			return out, fmt.Errorf("--%s %v is not positive", d.flag, d.v)
		}
	}
	// A rate of 0 stops evictions, as upstream's; a rate must fit a
	// float32 (the library's type) as a finite number.
	for _, r := range []struct {
		flag string
		v    float64
	}{
		{"node-eviction-rate", f.rate},
		{"secondary-node-eviction-rate", f.secondary},
	} {
		if math.IsNaN(r.v) || r.v < 0 || r.v > math.MaxFloat32 {
			return out, fmt.Errorf("--%s %v is not a rate (nodes per second, 0 or more)", r.flag, r.v)
		}
	}
	// 0 would be read as the default by package nodelifecycle.
	if f.large <= 0 || f.large > math.MaxInt32 {
		return out, fmt.Errorf("--large-cluster-size-threshold %d is not a number of nodes (1 or more)", f.large)
	}
	if math.IsNaN(f.unhealthy) || f.unhealthy <= 0 || f.unhealthy > 1 {
		return out, fmt.Errorf("--unhealthy-zone-threshold %v is not a fraction in (0, 1]", f.unhealthy)
	}
	s.EvictionRate, s.StopEviction = float32(f.rate), f.rate == 0
	s.SecondaryEvictionRate, s.StopSecondaryEviction = float32(f.secondary), f.secondary == 0
	s.LargeClusterThreshold = int32(f.large)
	s.UnhealthyZoneThreshold = float32(f.unhealthy)
	out.Config = s
	return out, nil
}
