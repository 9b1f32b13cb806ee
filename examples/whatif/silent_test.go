package main

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/taints"
)

var st0 = time.Date(2020, 1, 1, 12, 0, 0, 0, time.UTC)

func sat(d time.Duration) time.Time { return st0.Add(d) }

func TestSilentNode(t *testing.T) {
	unreachable := taints.UnreachableNoExecute()
	cases := []struct {
		name     string
		cfg      nodelifecycle.Config
		lastBeat time.Time
		want     Silence
	}{
		{"defaults: marked 55s after the observing pass", nodelifecycle.Config{}, st0,
			Silence{Observed: st0, Unknown: sat(55 * time.Second), Taint: unreachable}},
		{"heartbeat between passes is observed at the next one", nodelifecycle.Config{}, sat(2 * time.Second),
			Silence{Observed: sat(5 * time.Second), Unknown: sat(60 * time.Second), Taint: unreachable}},
		{"a 40s grace period: marked 45s after", nodelifecycle.Config{MonitorGracePeriod: 40 * time.Second}, st0,
			Silence{Observed: st0, Unknown: sat(45 * time.Second), Taint: unreachable}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := SilentNode(tc.lastBeat, scheduleOf(tc.cfg, st0), tc.cfg); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	if got := SilentNode(sat(time.Second), Schedule{Start: st0}, nodelifecycle.Config{}); got.Unknown != sat(51*time.Second+1) {
		t.Errorf("continuous monitoring: Unknown at %v, want 1ns after the grace period", got.Unknown)
	}
	if got := SilentNode(st0, scheduleOf(nodelifecycle.Config{}, st0), nodelifecycle.Config{}); got.Taint.Effect != corev1.TaintEffectNoExecute {
		t.Errorf("taint %v", got.Taint)
	}
}

func TestSchedule(t *testing.T) {
	s := Schedule{Start: st0, Period: 5 * time.Second}
	cases := []struct {
		t              time.Time
		atOrAfter, aft time.Time
	}{
		{sat(-time.Hour), st0, st0},
		{st0, st0, sat(5 * time.Second)},
		{sat(1), sat(5 * time.Second), sat(5 * time.Second)},
		{sat(5 * time.Second), sat(5 * time.Second), sat(10 * time.Second)},
		{sat(5*time.Second - 1), sat(5 * time.Second), sat(5 * time.Second)},
	}
	for _, tc := range cases {
		if got := s.AtOrAfter(tc.t); got != tc.atOrAfter {
			t.Errorf("AtOrAfter(%v) = %v, want %v", tc.t, got, tc.atOrAfter)
		}
		if got := s.After(tc.t); got != tc.aft {
			t.Errorf("After(%v) = %v, want %v", tc.t, got, tc.aft)
		}
	}
	c := Schedule{Start: st0}
	if c.AtOrAfter(sat(time.Second)) != sat(time.Second) || c.After(sat(time.Second)) != sat(time.Second+1) || c.After(sat(-time.Second)) != st0 {
		t.Error("continuous schedule")
	}
}
