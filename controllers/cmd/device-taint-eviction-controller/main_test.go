package main

import (
	"io"
	"strings"
	"testing"
)

func TestParseFlags(t *testing.T) {
	o, err := parse(nil, io.Discard)
	if err != nil || o.workers != 8 || o.client.LeaseNS != "evictkit-system" || o.client.LeaseName != "device-taint-eviction-controller" {
		t.Fatalf("defaults: %v, %d workers, lease %s/%s; want 8 workers, lease evictkit-system/device-taint-eviction-controller",
			err, o.workers, o.client.LeaseNS, o.client.LeaseName)
	}
	o, err = parse([]string{"--concurrent-device-taint-eviction-syncs=3", "--leader-elect=false"}, io.Discard)
	if err != nil || o.workers != 3 || o.client.LeaderElect {
		t.Errorf("got %v, %+v", err, o)
	}
}

// The flags are checked before the program starts: one line that names
// the flag and the value.
func TestBadFlagsGiveOneLine(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"stray"}, `unexpected argument "stray"`},
		{[]string{"--concurrent-device-taint-eviction-syncs=0"}, "--concurrent-device-taint-eviction-syncs 0 is not a number of workers"},
		{[]string{"--concurrent-device-taint-eviction-syncs=-2"}, "--concurrent-device-taint-eviction-syncs -2 is not a number of workers"},
		{[]string{"--concurrent-device-taint-eviction-syncs=many"}, `invalid value "many" for flag -concurrent-device-taint-eviction-syncs`},
		{[]string{"--kube-api-qps=NaN"}, "--kube-api-qps NaN"},
		{[]string{"--kube-api-burst=-1"}, "--kube-api-burst -1 is negative"},
		{[]string{"--leader-elect-renew-deadline=0s"}, "--leader-elect-renew-deadline 0s is not positive"},
		{[]string{"--leader-elect-resource-namespace="}, "--leader-elect-resource-namespace is empty"},
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
	for _, f := range []string{"-concurrent-device-taint-eviction-syncs", "-kubeconfig", "-leader-elect", "-metrics-bind-address"} {
		if !strings.Contains(b.String(), f) {
			t.Errorf("help lacks %s: %s", f, b.String())
		}
	}
}
