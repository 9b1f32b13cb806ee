package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"
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
var settingFlags = []string{"node-monitor-period", "node-monitor-grace-period", "node-startup-grace-period", "node-eviction-rate"}

// settings are the node lifecycle controller's settings for node-down and
// taint: kube-controller-manager's flags of the same names, for a cluster
// that does not run its defaults.
type settings struct {
	cfg   nodelifecycle.Config
	given []string // "--flag=value" of each flag given, in settingFlags order
}

// register adds the flags to fs. The values are checked as they are parsed;
// a bad one is bad input naming the flag.
func (st *settings) register(fs *flag.FlagSet) {
	durations := map[string]*time.Duration{
		"node-monitor-period":       &st.cfg.MonitorPeriod,
		"node-monitor-grace-period": &st.cfg.MonitorGracePeriod,
		"node-startup-grace-period": &st.cfg.StartupGracePeriod,
	}
	for name, field := range durations {
		fs.Func(name, "", func(s string) error {
			d, err := time.ParseDuration(s)
			switch {
			case err != nil:
				return fmt.Errorf("want a duration such as 40s")
			case d > horizon:
				return fmt.Errorf("%v is longer than the %v whatif simulates", d, horizon)
			case name == "node-monitor-period" && d < minMonitorPeriod:
				return fmt.Errorf("want at least %v", minMonitorPeriod)
			case d <= 0:
				return fmt.Errorf("want a positive duration")
			}
			*field = d
			return nil
		})
	}
	fs.Func("node-eviction-rate", "", func(s string) error {
		r, err := strconv.ParseFloat(s, 32)
		if err != nil || r < 0 || math.IsInf(r, 0) || math.IsNaN(r) {
			return fmt.Errorf("want a number of nodes per second, 0 or more")
		}
		// Upstream's 0 is a rate of 0; the Config's zero means the default.
		st.cfg.EvictionRate, st.cfg.StopEviction = float32(r), r == 0
		return nil
	})
}

// record notes, once parsing is over, which of the flags were given.
func (st *settings) record(fs *flag.FlagSet) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	for _, name := range settingFlags {
		if set[name] {
			st.given = append(st.given, "--"+name+"="+st.value(name))
		}
	}
}

// value prints the setting a flag gave, in the flag's syntax.
func (st *settings) value(name string) string {
	switch name {
	case "node-monitor-period":
		return st.cfg.MonitorPeriod.String()
	case "node-monitor-grace-period":
		return st.cfg.MonitorGracePeriod.String()
	case "node-startup-grace-period":
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
