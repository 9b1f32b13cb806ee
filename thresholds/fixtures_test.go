package thresholds

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"k8s.io/apimachinery/pkg/api/resource"
)

// q parses a quantity for a test table.
func q(s string) *resource.Quantity {
	v := resource.MustParse(s)
	return &v
}

// qv is a quantity Value.
func qv(s string) Value { return Value{Quantity: q(s)} }

// pv is a percentage Value.
func pv(p float32) Value { return Value{Percentage: p} }

// mr is a MinReclaim pointer.
func mr(v Value) *Value { return &v }

// describe renders a threshold so that table diffs are readable: signal,
// value, grace period and minimum reclaim.
func describe(t Threshold) string {
	s := t.String()
	if t.Value.Quantity == nil {
		s += fmt.Sprintf("(%v)", t.Value.Percentage)
	}
	if t.GracePeriod != 0 {
		s += " grace=" + t.GracePeriod.String()
	}
	if t.MinReclaim != nil {
		s += " minReclaim=" + t.MinReclaim.String()
		if t.MinReclaim.Quantity == nil {
			s += fmt.Sprintf("(%v)", t.MinReclaim.Percentage)
		}
	}
	return s
}

func describeAll(ts []Threshold) []string {
	out := make([]string, 0, len(ts))
	for _, t := range ts {
		out = append(out, describe(t))
	}
	return out
}

// assertThresholds compares threshold lists by [Threshold.Equal] and shows a
// readable diff when they differ.
func assertThresholds(t *testing.T, want, got []Threshold) {
	t.Helper()
	if len(want) == len(got) {
		same := true
		for i := range want {
			same = same && want[i].Equal(got[i])
		}
		if same {
			return
		}
	}
	assert.Equal(t, describeAll(want), describeAll(got), "thresholds differ (-want +got)")
}

// obs builds an observation of available out of capacity at time at.
func obs(available, capacity string, at time.Time) Observation {
	o := Observation{Available: q(available), Time: at}
	if capacity != "" {
		o.Capacity = q(capacity)
	}
	return o
}

// noAvailable builds an observation without an available amount, which
// counts as absent, with a capacity (unless "") and a time that must play no
// part.
func noAvailable(capacity string, at time.Time) Observation {
	o := Observation{Time: at}
	if capacity != "" {
		o.Capacity = q(capacity)
	}
	return o
}

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
