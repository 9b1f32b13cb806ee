package nodelifecyclecontroller

import (
	"flag"
	"fmt"
	"time"

	"github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/nodelifecycle/legacy"
)

// Flags are kube-controller-manager's flags of the node lifecycle
// controller, with its names, defaults and help texts: the library's
// [nodelifecycle.Flags] and v1.26's --enable-taint-manager and
// --pod-eviction-timeout. Register them on a flag set, parse it, then ask
// [Flags.Settings] for what they say.
//
//	var f nodelifecyclecontroller.Flags
//	f.Register(fs)
//	err := fs.Parse(args)
//	s, err := f.Settings(fs)
type Flags struct {
	lifecycle    nodelifecycle.Flags
	taintManager bool
	timeout      time.Duration
}

// Register adds the flags to fs: --node-monitor-period,
// --node-monitor-grace-period, --node-startup-grace-period,
// --node-eviction-rate, --secondary-node-eviction-rate,
// --large-cluster-size-threshold, --unhealthy-zone-threshold, and v1.26's
// --enable-taint-manager and --pod-eviction-timeout.
func (f *Flags) Register(fs *flag.FlagSet) {
	f.lifecycle.Register(fs)
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
	var out Settings
	if f.timeout <= 0 {
		return out, fmt.Errorf("--pod-eviction-timeout %v is not positive", f.timeout)
	}
	if f.taintManager {
		fs.Visit(func(fl *flag.Flag) { out.TimeoutIgnored = out.TimeoutIgnored || fl.Name == "pod-eviction-timeout" })
	} else {
		out.Legacy = &legacy.Config{PodEvictionTimeout: f.timeout}
	}
	cfg, err := f.lifecycle.Config()
	if err != nil {
		return out, err
	}
	out.Config = cfg
	return out, nil
}
