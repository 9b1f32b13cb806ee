package nodelifecycle

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"time"
)

// The names of kube-controller-manager's node lifecycle flags, without their dashes.
const (
	FlagMonitorPeriod          = "node-monitor-period"
	FlagMonitorGracePeriod     = "node-monitor-grace-period"
	FlagStartupGracePeriod     = "node-startup-grace-period"
	FlagEvictionRate           = "node-eviction-rate"
	FlagSecondaryEvictionRate  = "secondary-node-eviction-rate"
	FlagLargeClusterThreshold  = "large-cluster-size-threshold"
	FlagUnhealthyZoneThreshold = "unhealthy-zone-threshold"
)

// ErrInvalidFlag is wrapped by every error of [Flags.Config]: a flag value that is not one
// of the flag's settings.
var ErrInvalidFlag = errors.New("invalid flag value")

// Flags holds kube-controller-manager's node lifecycle flags as a command line gives them,
// before [Flags.Config] checks them and turns them into a [Config]. Each field has the flag's
// type in the standard library's flag package, so that a value too large for the Config (a
// rate beyond float32, a threshold beyond int32) is still seen, and refused, as given.
type Flags struct {
	// MonitorPeriod is --node-monitor-period.
	MonitorPeriod time.Duration
	// MonitorGracePeriod is --node-monitor-grace-period.
	MonitorGracePeriod time.Duration
	// StartupGracePeriod is --node-startup-grace-period.
	StartupGracePeriod time.Duration
	// EvictionRate is --node-eviction-rate, in nodes per second.
	EvictionRate float64
	// SecondaryEvictionRate is --secondary-node-eviction-rate, in nodes per second.
	SecondaryEvictionRate float64
	// LargeClusterThreshold is --large-cluster-size-threshold, in nodes.
	LargeClusterThreshold int
	// UnhealthyZoneThreshold is --unhealthy-zone-threshold, a fraction of a zone's nodes.
	UnhealthyZoneThreshold float64
}

// Register adds the seven flags to fs, bound to f's fields, with kube-controller-manager's
// names ([FlagMonitorPeriod] …) and defaults (the Default constants) and a help text each; it
// sets f's fields to the defaults. A program that takes only some of the flags registers them
// all on a FlagSet of its own and copies the ones it wants ([flag.FlagSet.Lookup],
// [flag.FlagSet.Var]). Registering twice on one FlagSet panics, as the flag package does.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.DurationVar(&f.MonitorPeriod, FlagMonitorPeriod, DefaultMonitorPeriod,
		"The period for syncing NodeStatus in NodeLifecycleController.")
	fs.DurationVar(&f.MonitorGracePeriod, FlagMonitorGracePeriod, DefaultMonitorGracePeriod,
		"Amount of time which we allow running Node to be unresponsive before marking it unhealthy.")
	fs.DurationVar(&f.StartupGracePeriod, FlagStartupGracePeriod, DefaultStartupGracePeriod,
		"Amount of time which we allow starting Node to be unresponsive before marking it unhealthy.")
	fs.Float64Var(&f.EvictionRate, FlagEvictionRate, decimal(DefaultEvictionRate),
		"Number of nodes per second on which pods are deleted in case of node failure when a zone is healthy.")
	fs.Float64Var(&f.SecondaryEvictionRate, FlagSecondaryEvictionRate, decimal(DefaultSecondaryEvictionRate),
		"Number of nodes per second on which pods are deleted in case of node failure when a zone is unhealthy.")
	fs.IntVar(&f.LargeClusterThreshold, FlagLargeClusterThreshold, int(DefaultLargeClusterThreshold),
		"Number of nodes from which the controller treats the cluster as large for the eviction logic purposes.")
	fs.Float64Var(&f.UnhealthyZoneThreshold, FlagUnhealthyZoneThreshold, decimal(DefaultUnhealthyZoneThreshold),
		"Fraction of Nodes in a zone which needs to be not Ready (minimum 3) for zone to be treated as unhealthy.")
}

// decimal returns the float64 nearest to the shortest decimal that reads back as x: 0.1 for
// float32(0.1), where float64(x) is 0.10000000149011612. The flags' defaults are printed in
// help texts, and kube-controller-manager's are the decimals.
func decimal(x float32) float64 {
	d, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
	return d
}

// Config checks the flags and returns the [Config] they set: every period positive; each
// rate a number of nodes per second, 0 or more, that a float32 holds (0 stops tainting, as
// upstream's 0 does: StopEviction, StopSecondaryEviction); the threshold a number of nodes,
// 1 or more, that an int32 holds (0 would read as the default); the zone fraction in (0, 1].
// Upstream checks none of these; its values outside them make no sense (a negative period,
// a NaN rate). The checks run in the order of the fields; the first failure is returned, a
// [*FlagError] wrapping [ErrInvalidFlag].
func (f Flags) Config() (Config, error) {
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{
		{FlagMonitorPeriod, f.MonitorPeriod},
		{FlagMonitorGracePeriod, f.MonitorGracePeriod},
		{FlagStartupGracePeriod, f.StartupGracePeriod},
	} {
		if d.v <= 0 {
			return Config{}, &FlagError{Flag: d.flag, Value: d.v.String(), Want: "positive"}
		}
	}
	for _, r := range []struct {
		flag string
		v    float64
	}{
		{FlagEvictionRate, f.EvictionRate},
		{FlagSecondaryEvictionRate, f.SecondaryEvictionRate},
	} {
		if math.IsNaN(r.v) || r.v < 0 || r.v > math.MaxFloat32 {
			return Config{}, &FlagError{Flag: r.flag, Value: fmt.Sprint(r.v), Want: "a rate (nodes per second, 0 or more)"}
		}
	}
	if f.LargeClusterThreshold <= 0 || f.LargeClusterThreshold > math.MaxInt32 {
		return Config{}, &FlagError{Flag: FlagLargeClusterThreshold, Value: fmt.Sprint(f.LargeClusterThreshold), Want: "a number of nodes (1 or more)"}
	}
	if u := f.UnhealthyZoneThreshold; math.IsNaN(u) || u <= 0 || u > 1 {
		return Config{}, &FlagError{Flag: FlagUnhealthyZoneThreshold, Value: fmt.Sprint(u), Want: "a fraction in (0, 1]"}
	}
	return Config{
		MonitorPeriod:          f.MonitorPeriod,
		MonitorGracePeriod:     f.MonitorGracePeriod,
		StartupGracePeriod:     f.StartupGracePeriod,
		EvictionRate:           float32(f.EvictionRate),
		StopEviction:           f.EvictionRate == 0,
		SecondaryEvictionRate:  float32(f.SecondaryEvictionRate),
		StopSecondaryEviction:  f.SecondaryEvictionRate == 0,
		LargeClusterThreshold:  int32(f.LargeClusterThreshold),
		UnhealthyZoneThreshold: float32(f.UnhealthyZoneThreshold),
	}, nil
}

// FlagError is a flag value [Flags.Config] refuses. Its message names the flag as a command
// line spells it, the value, and what the flag takes: "--node-monitor-period -1s is not
// positive". Unlike this package's other errors it has no "nodelifecycle: " prefix: a program
// prints it as an error in its own command line, as it prints the flag package's.
type FlagError struct {
	// Flag is the flag's name, without dashes ([FlagMonitorPeriod] …).
	Flag string
	// Value is the value given, as the flag prints it.
	Value string
	// Want says what the flag takes: "positive", "a rate (nodes per second, 0 or more)" …
	Want string
}

// Error returns "--<Flag> <Value> is not <Want>".
func (e *FlagError) Error() string { return "--" + e.Flag + " " + e.Value + " is not " + e.Want }

// Unwrap returns [ErrInvalidFlag].
func (e *FlagError) Unwrap() error { return ErrInvalidFlag }
