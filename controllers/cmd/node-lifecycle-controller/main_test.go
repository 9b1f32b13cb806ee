package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

func TestParseFlags(t *testing.T) {
	o, err := parse([]string{"--node-monitor-period=1s", "--node-eviction-rate=0", "--unhealthy-zone-threshold=1"}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if s := o.settings; s.MonitorPeriod != time.Second || !s.StopEviction || s.UnhealthyZoneThreshold != 1 || s.LargeClusterThreshold != 50 {
		t.Errorf("settings %+v", s)
	}
	if o.client.LeaseNS != "evictkit-system" {
		t.Errorf("lease namespace %q, want evictkit-system", o.client.LeaseNS)
	}
}

// Every numeric flag is checked before the program starts: one line that
// names the flag and the value.
func TestBadFlagsGiveOneLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"stray"}, `unexpected argument "stray"`},
		{[]string{"--node-monitor-period=-1s"}, "--node-monitor-period -1s is not positive"},
		{[]string{"--node-monitor-period=0s"}, "--node-monitor-period 0s is not positive"},
		{[]string{"--node-monitor-grace-period=-5s"}, "--node-monitor-grace-period -5s is not positive"},
		{[]string{"--node-startup-grace-period=0s"}, "--node-startup-grace-period 0s is not positive"},
		{[]string{"--node-eviction-rate=NaN"}, "--node-eviction-rate NaN is not a rate"},
		{[]string{"--node-eviction-rate=-0.1"}, "--node-eviction-rate -0.1 is not a rate"},
		{[]string{"--node-eviction-rate=1e39"}, "--node-eviction-rate 1e+39 is not a rate"},
		{[]string{"--secondary-node-eviction-rate=-1"}, "--secondary-node-eviction-rate -1 is not a rate"},
		{[]string{"--secondary-node-eviction-rate=NaN"}, "--secondary-node-eviction-rate NaN is not a rate"},
		{[]string{"--large-cluster-size-threshold=-3"}, "--large-cluster-size-threshold -3 is not a number of nodes"},
		{[]string{"--large-cluster-size-threshold=0"}, "--large-cluster-size-threshold 0 is not a number of nodes"},
		{[]string{"--large-cluster-size-threshold=4294967296"}, "--large-cluster-size-threshold 4294967296 is not a number of nodes"},
		{[]string{"--unhealthy-zone-threshold=1.5"}, "--unhealthy-zone-threshold 1.5 is not a fraction"},
		{[]string{"--unhealthy-zone-threshold=-0.5"}, "--unhealthy-zone-threshold -0.5 is not a fraction"},
		{[]string{"--unhealthy-zone-threshold=NaN"}, "--unhealthy-zone-threshold NaN is not a fraction"},
		{[]string{"--kube-api-qps=NaN"}, "--kube-api-qps NaN"},
		{[]string{"--kube-api-burst=-1"}, "--kube-api-burst -1 is negative"},
		{[]string{"--leader-elect-lease-duration=-1s"}, "--leader-elect-lease-duration -1s is not positive"},
		{[]string{"--leader-elect-retry-period=0s"}, "--leader-elect-retry-period 0s is not positive"},
		{[]string{"--node-monitor-period=often"}, `invalid value "often" for flag -node-monitor-period`},
	} {
		_, err := parse(tc.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: got %v, want one line with %q", tc.args, err, tc.want)
		}
	}
}

// The legacy mode is off by default; --enable-taint-manager=false turns it
// on with --pod-eviction-timeout (5m0s by default), which means nothing
// with the taint manager on.
func TestParseLegacyFlags(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		want    time.Duration // 0: legacy mode off
		ignored bool
	}{
		{nil, 0, false},
		{[]string{"--enable-taint-manager=true"}, 0, false},
		{[]string{"--pod-eviction-timeout=1m"}, 0, true},
		{[]string{"--enable-taint-manager=false"}, 5 * time.Minute, false},
		{[]string{"--enable-taint-manager=false", "--pod-eviction-timeout=5s"}, 5 * time.Second, false},
		{[]string{"--pod-eviction-timeout=90s", "--enable-taint-manager=false"}, 90 * time.Second, false},
	} {
		o, err := parse(tc.args, io.Discard)
		if err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		switch {
		case tc.want == 0 && o.legacy != nil:
			t.Errorf("%v: legacy mode %+v, want off", tc.args, *o.legacy)
		case tc.want != 0 && (o.legacy == nil || o.legacy.PodEvictionTimeout != tc.want):
			t.Errorf("%v: legacy mode %+v, want timeout %v", tc.args, o.legacy, tc.want)
		}
		if o.timeoutIgnored != tc.ignored {
			t.Errorf("%v: timeout ignored %v, want %v", tc.args, o.timeoutIgnored, tc.ignored)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--enable-taint-manager=false", "--pod-eviction-timeout=0s"}, "--pod-eviction-timeout 0s is not positive"},
		{[]string{"--pod-eviction-timeout=-1m"}, "--pod-eviction-timeout -1m0s is not positive"},
		{[]string{"--pod-eviction-timeout=soon"}, `invalid value "soon" for flag -pod-eviction-timeout`},
		{[]string{"--enable-taint-manager=maybe"}, `invalid boolean value "maybe" for -enable-taint-manager`},
	} {
		_, err := parse(tc.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: got %v, want one line with %q", tc.args, err, tc.want)
		}
	}
}

func TestHelpPrintsTheFlags(t *testing.T) {
	var b strings.Builder
	if _, err := parse([]string{"-h"}, &b); err == nil {
		t.Fatal("-h: no error")
	}
	if !strings.Contains(b.String(), "-node-monitor-period") || !strings.Contains(b.String(), "-enable-taint-manager") ||
		!strings.Contains(b.String(), "-pod-eviction-timeout duration") || !strings.Contains(b.String(), "(default 5m0s)") {
		t.Errorf("help: %s", b.String())
	}
}
