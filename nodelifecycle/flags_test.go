package nodelifecycle

import (
	"errors"
	"flag"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseFlags registers Flags on a fresh FlagSet and parses args.
func parseFlags(t *testing.T, args ...string) (Flags, *flag.FlagSet) {
	t.Helper()
	var f Flags
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.Register(fs)
	require.NoError(t, fs.Parse(args))
	return f, fs
}

// The defaults are kube-controller-manager's, and they make the settings the zero Config
// stands for.
func TestFlagsDefaults(t *testing.T) {
	f, fs := parseFlags(t)
	c, err := f.Config()
	require.NoError(t, err)
	assert.Equal(t, Config{}.Effective(), c.Effective())
	for name, want := range map[string]string{
		FlagMonitorPeriod:          "5s",
		FlagMonitorGracePeriod:     "50s",
		FlagStartupGracePeriod:     "1m0s",
		FlagEvictionRate:           "0.1",
		FlagSecondaryEvictionRate:  "0.01",
		FlagLargeClusterThreshold:  "50",
		FlagUnhealthyZoneThreshold: "0.55",
	} {
		fl := fs.Lookup(name)
		require.NotNil(t, fl, name)
		assert.Equal(t, want, fl.DefValue, "the default %s prints", name)
		assert.NotEmpty(t, fl.Usage, name)
	}
}

func TestFlagsConfig(t *testing.T) {
	tests := []struct {
		args []string
		want Config
	}{
		{[]string{"--node-monitor-period=1s", "--node-monitor-grace-period=4s", "--node-startup-grace-period=9s"},
			Config{MonitorPeriod: time.Second, MonitorGracePeriod: 4 * time.Second, StartupGracePeriod: 9 * time.Second,
				EvictionRate: 0.1, SecondaryEvictionRate: 0.01, LargeClusterThreshold: 50, UnhealthyZoneThreshold: 0.55}},
		{[]string{"--node-eviction-rate=0", "--secondary-node-eviction-rate=0", "--large-cluster-size-threshold=1", "--unhealthy-zone-threshold=1"},
			Config{MonitorPeriod: 5 * time.Second, MonitorGracePeriod: 50 * time.Second, StartupGracePeriod: time.Minute,
				StopEviction: true, StopSecondaryEviction: true, LargeClusterThreshold: 1, UnhealthyZoneThreshold: 1}},
		{[]string{"--node-eviction-rate=3.5", "--secondary-node-eviction-rate=1e-3", "--large-cluster-size-threshold=2147483647"},
			Config{MonitorPeriod: 5 * time.Second, MonitorGracePeriod: 50 * time.Second, StartupGracePeriod: time.Minute,
				EvictionRate: 3.5, SecondaryEvictionRate: 1e-3, LargeClusterThreshold: math.MaxInt32, UnhealthyZoneThreshold: 0.55}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			f, _ := parseFlags(t, tc.args...)
			got, err := f.Config()
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// Every refused value is a FlagError naming the flag and the value, in one line.
func TestFlagsConfigRefuses(t *testing.T) {
	tests := []struct {
		args []string
		flag string
		msg  string
	}{
		{[]string{"--node-monitor-period=0s"}, FlagMonitorPeriod, "--node-monitor-period 0s is not positive"},
		{[]string{"--node-monitor-grace-period=-5s"}, FlagMonitorGracePeriod, "--node-monitor-grace-period -5s is not positive"},
		{[]string{"--node-startup-grace-period=-1ns"}, FlagStartupGracePeriod, "--node-startup-grace-period -1ns is not positive"},
		{[]string{"--node-eviction-rate=NaN"}, FlagEvictionRate, "--node-eviction-rate NaN is not a rate (nodes per second, 0 or more)"},
		{[]string{"--node-eviction-rate=-0.1"}, FlagEvictionRate, "--node-eviction-rate -0.1 is not a rate (nodes per second, 0 or more)"},
		{[]string{"--node-eviction-rate=1e39"}, FlagEvictionRate, "--node-eviction-rate 1e+39 is not a rate (nodes per second, 0 or more)"},
		{[]string{"--secondary-node-eviction-rate=+Inf"}, FlagSecondaryEvictionRate, "--secondary-node-eviction-rate +Inf is not a rate (nodes per second, 0 or more)"},
		{[]string{"--large-cluster-size-threshold=0"}, FlagLargeClusterThreshold, "--large-cluster-size-threshold 0 is not a number of nodes (1 or more)"},
		{[]string{"--large-cluster-size-threshold=2147483648"}, FlagLargeClusterThreshold, "--large-cluster-size-threshold 2147483648 is not a number of nodes (1 or more)"},
		{[]string{"--unhealthy-zone-threshold=0"}, FlagUnhealthyZoneThreshold, "--unhealthy-zone-threshold 0 is not a fraction in (0, 1]"},
		{[]string{"--unhealthy-zone-threshold=1.5"}, FlagUnhealthyZoneThreshold, "--unhealthy-zone-threshold 1.5 is not a fraction in (0, 1]"},
		{[]string{"--unhealthy-zone-threshold=NaN"}, FlagUnhealthyZoneThreshold, "--unhealthy-zone-threshold NaN is not a fraction in (0, 1]"},
		// The first bad flag in field order is the one named.
		{[]string{"--unhealthy-zone-threshold=2", "--node-monitor-period=0s"}, FlagMonitorPeriod, "--node-monitor-period 0s is not positive"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			f, _ := parseFlags(t, tc.args...)
			c, err := f.Config()
			require.Error(t, err)
			assert.Zero(t, c)
			assert.ErrorIs(t, err, ErrInvalidFlag)
			var fe *FlagError
			require.ErrorAs(t, err, &fe)
			assert.Equal(t, tc.flag, fe.Flag)
			assert.Equal(t, tc.msg, err.Error())
		})
	}
}

// A program that takes only some of the flags copies them from a FlagSet of its own.
func TestFlagsSubset(t *testing.T) {
	var f Flags
	all := flag.NewFlagSet("all", flag.ContinueOnError)
	f.Register(all)
	fs := flag.NewFlagSet("some", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fl := all.Lookup(FlagEvictionRate)
	fs.Var(fl.Value, fl.Name, fl.Usage)
	require.NoError(t, fs.Parse([]string{"--node-eviction-rate=2"}))
	assert.Error(t, fs.Parse([]string{"--node-monitor-period=1s"}), "not copied")
	c, err := f.Config()
	require.NoError(t, err)
	assert.Equal(t, float32(2), c.EvictionRate)
	assert.Equal(t, DefaultMonitorPeriod, c.MonitorPeriod)
	assert.True(t, errors.Is(&FlagError{}, ErrInvalidFlag))
}
