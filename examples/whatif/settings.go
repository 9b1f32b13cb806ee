package main

import (
	"flag"
	"strings"
	"time"

	"github.com/evictkit/eviction/nodelifecycle"
)

// minMonitorPeriod is the shortest --node-monitor-period whatif accepts: the
// node lifecycle controller's tainting pass runs every 100 ms, so a monitor
// pass more often than that is no cluster anyone runs.
const minMonitorPeriod = nodelifecycle.DrainPeriod

// settingFlags are the kube-controller-manager flags whatif takes, in the
// order the model names them.
var settingFlags = []string{nodelifecycle.FlagMonitorPeriod, nodelifecycle.FlagMonitorGracePeriod,
	nodelifecycle.FlagStartupGracePeriod, nodelifecycle.FlagEvictionRate}

// settings are the node lifecycle controller's settings for node-down and
// taint: kube-controller-manager's flags of the same names, for a cluster
// that does not run its defaults.
type settings struct {
	flags nodelifecycle.Flags // as parsed
	cfg   nodelifecycle.Config
	given []string // "--flag=value" of each flag given, in settingFlags order
}

// register adds the flags of settingFlags to fs: the library's
// (nodelifecycle.Flags), with their names, defaults and parsers.
func (st *settings) register(fs *flag.FlagSet) {
	all := flag.NewFlagSet("kube-controller-manager", flag.ContinueOnError)
	st.flags.Register(all)
	for _, name := range settingFlags {
		f := all.Lookup(name)
		fs.Var(f.Value, f.Name, f.Usage)
	}
}

// record checks the flags once parsing is over, sets cfg from them and
// notes which were given. A bad value is bad input naming the flag: one
// the node lifecycle controller refuses (nodelifecycle.Flags.Config), a
// period longer than whatif simulates, or a monitor period shorter than
// the tainting pass.
func (st *settings) record(fs *flag.FlagSet) error {
	cfg, err := st.flags.Config()
	if err != nil {
		return badInput("%v (whatif -h for help)", err)
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{nodelifecycle.FlagMonitorPeriod, cfg.MonitorPeriod},
		{nodelifecycle.FlagMonitorGracePeriod, cfg.MonitorGracePeriod},
		{nodelifecycle.FlagStartupGracePeriod, cfg.StartupGracePeriod},
	} {
		if d.v > horizon {
			return badInput("--%s %v is longer than the %v whatif simulates (whatif -h for help)", d.name, d.v, horizon)
		}
	}
	if cfg.MonitorPeriod < minMonitorPeriod {
		return badInput("--%s %v is shorter than the %v tainting pass (whatif -h for help)", nodelifecycle.FlagMonitorPeriod, cfg.MonitorPeriod, minMonitorPeriod)
	}
	// cfg holds the flags given; a zero field is one not given (the
	// default, but for the legacy mode's grace period: see legacyNodeDown).
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, name := range settingFlags {
		if !set[name] {
			continue
		}
		switch name {
		case nodelifecycle.FlagMonitorPeriod:
			st.cfg.MonitorPeriod = cfg.MonitorPeriod
		case nodelifecycle.FlagMonitorGracePeriod:
			st.cfg.MonitorGracePeriod = cfg.MonitorGracePeriod
		case nodelifecycle.FlagStartupGracePeriod:
			st.cfg.StartupGracePeriod = cfg.StartupGracePeriod
		case nodelifecycle.FlagEvictionRate:
			st.cfg.EvictionRate, st.cfg.StopEviction = cfg.EvictionRate, cfg.StopEviction
		}
		st.given = append(st.given, "--"+name+"="+st.value(name))
	}
	return nil
}

// value prints the setting a flag gave, in the flag's syntax.
func (st *settings) value(name string) string {
	switch name {
	case nodelifecycle.FlagMonitorPeriod:
		return st.cfg.MonitorPeriod.String()
	case nodelifecycle.FlagMonitorGracePeriod:
		return st.cfg.MonitorGracePeriod.String()
	case nodelifecycle.FlagStartupGracePeriod:
		return st.cfg.StartupGracePeriod.String()
	}
	return formatRate(st.cfg.EvictionRate)
}

// describe names the settings for the model: "defaults" when no flag was
// given, else "with --node-monitor-period=1s ...".
func (st settings) describe() string {
	if len(st.given) == 0 {
		return "defaults"
	}
	return "with " + strings.Join(st.given, " ")
}
