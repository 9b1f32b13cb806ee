package main

import (
	"io"
	"strings"
	"testing"
)

// The client and leader-election flags are checked before the program
// starts: one line that names the flag and the value.
func TestBadFlagsGiveOneLine(t *testing.T) {
	o, err := parse(nil, io.Discard)
	if err != nil || o.LeaseNS != "evictkit-system" {
		t.Fatalf("defaults: %v, lease namespace %q, want evictkit-system", err, o.LeaseNS)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"stray"}, `unexpected argument "stray"`},
		{[]string{"--kube-api-qps=-1"}, "--kube-api-qps -1"},
		{[]string{"--kube-api-qps=NaN"}, "--kube-api-qps NaN"},
		{[]string{"--kube-api-burst=-1"}, "--kube-api-burst -1 is negative"},
		{[]string{"--leader-elect-lease-duration=-15s"}, "--leader-elect-lease-duration -15s is not positive"},
		{[]string{"--leader-elect-renew-deadline=0s"}, "--leader-elect-renew-deadline 0s is not positive"},
		{[]string{"--leader-elect-retry-period=-2s"}, "--leader-elect-retry-period -2s is not positive"},
		{[]string{"--leader-elect-lease-duration=5s"}, "--leader-elect-lease-duration 5s is not longer than --leader-elect-renew-deadline 10s"},
		{[]string{"--leader-elect-resource-namespace="}, "--leader-elect-resource-namespace is empty"},
	} {
		_, err := parse(tc.args, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: got %v, want one line with %q", tc.args, err, tc.want)
		}
	}
}
