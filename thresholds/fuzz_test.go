package thresholds

import (
	"errors"
	"strings"
	"testing"
)

func FuzzParseThresholdFlag(f *testing.F) {
	for _, s := range []string{
		"memory.available<100Mi, nodefs.available<10%,", "memory.available=100Mi", "a<1,a<2",
		"a<b<c", "", ",", " , ", "<", "imagefs.available<15%,imagefs.inodesFree<5%",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkPairParser(t, s, "<", ParseThresholdFlag, FormatThresholdFlag)
	})
}

func FuzzParseMapFlag(f *testing.F) {
	for _, s := range []string{
		"memory.available=1m30s", "memory.available<1m", "imagefs.available=2Gi,nodefs.available = 10%",
		"a=b=c", "", ",,", "=",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkPairParser(t, s, "=", ParseMapFlag, FormatMapFlag)
	})
}

func checkPairParser(t *testing.T, s, sep string, parse func(...string) (map[string]string, error), format func(map[string]string) string) {
	m, err := parse(s)
	if err != nil {
		if !errors.Is(err, ErrMalformedPair) || m != nil {
			t.Fatalf("parse(%q) = %v, %v: want nil map and ErrMalformedPair", s, m, err)
		}
		return
	}
	if m == nil {
		t.Fatalf("parse(%q) returned a nil map for a given flag", s)
	}
	for k, v := range m {
		if strings.Contains(k, ",") || strings.Contains(k, sep) || strings.Contains(v, ",") ||
			k != strings.TrimSpace(k) || v != strings.TrimSpace(v) {
			t.Fatalf("parse(%q) produced unclean pair %q %q", s, k, v)
		}
	}
	back, err := parse(format(m))
	if err != nil || len(back) != len(m) {
		t.Fatalf("round trip of %v: %v, %v", m, back, err)
	}
	for k, v := range m {
		if back[k] != v {
			t.Fatalf("round trip of %v: %v", m, back)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	// Seeds from the parse table tests: flag text for hard, soft, grace periods and
	// minimum reclaims, and whether pods allocatable is enforced.
	seeds := []struct {
		hard, soft, grace, reclaim string
		pods, merge                bool
	}{
		{"", "", "", "", false, false},
		{"memory.available<150Mi", "memory.available<300Mi", "memory.available=30s", "memory.available=0", true, false},
		{"memory.available<10%", "memory.available<30%", "memory.available=30s", "memory.available=5%", false, false},
		{"imagefs.available<15%,nodefs.available<10.5%", "", "", "", false, true},
		{"memory.available<0%", "memory.available<100%", "", "", false, false},
		{"memory.available<0.0%", "", "", "", false, false},
		{"mem.available<150Mi", "", "", "", false, false},
		{"memory.available<-150Mi", "", "", "", false, false},
		{"memory.available<10..5%", "", "", "", false, false},
		{"memory.available<NaN%", "", "", "", false, false},
		{"", "memory.available<150Mi", "", "", false, false},
		{"", "", "memory.available=-30s", "", false, false},
		{"", "", "memory.available=30mins", "", false, false},
		{"", "", "", "memory.available=-15%", false, false},
		{"", "", "", "memory.available=150%", false, false},
		{"", "memory.available<300Mi", "memory.available=0s", "", true, false},
		{"", "", "nodefs.available=30s", "", false, false},
		{"pid.available<1e3,nodefs.inodesFree<10%%", "", "", "", false, true},
	}
	for _, s := range seeds {
		f.Add(s.hard, s.soft, s.grace, s.reclaim, s.pods, s.merge)
	}
	f.Fuzz(func(t *testing.T, hard, soft, grace, reclaim string, pods, merge bool) {
		c, err := Flags{Hard: []string{hard}, Soft: []string{soft}, SoftGracePeriod: []string{grace}, MinimumReclaim: []string{reclaim}}.Apply(Config{})
		if err != nil {
			if !errors.Is(err, ErrMalformedPair) {
				t.Fatalf("flag error %v does not wrap ErrMalformedPair", err)
			}
			return
		}
		c.MergeDefaults = merge
		c.EnforceNodeAllocatable = []string{}
		if pods {
			c.EnforceNodeAllocatable = []string{NodeAllocatablePods}
		}
		ts, err := ParseConfig(c)
		if pods {
			// A nil enforcement list is the kubelet's default, ["pods"].
			byDefault := c
			byDefault.EnforceNodeAllocatable = nil
			if again, againErr := ParseConfig(byDefault); (againErr == nil) != (err == nil) || !equalLists(again, ts) {
				t.Fatalf("nil EnforceNodeAllocatable parses to %v (%v), [pods] to %v (%v)", describeAll(again), againErr, describeAll(ts), err)
			}
		}
		if err != nil {
			if ts != nil || countSentinels(err) != 1 || !strings.HasPrefix(err.Error(), "thresholds: ") {
				t.Fatalf("ParseConfig error %q: want nil result and exactly one sentinel", err)
			}
			return
		}
		// Every threshold prints in flag syntax that parses back to it.
		for _, th := range ts {
			text := th.String()
			v := text[len(th.Signal)+1:]
			again, err := ParseConfig(Config{Hard: map[string]string{string(th.Signal): v}, EnforceNodeAllocatable: []string{}})
			if err != nil || len(again) != 1 || !again[0].Value.Equal(th.Value) {
				t.Fatalf("%q does not round-trip: %v %v", text, describeAll(again), err)
			}
			if th.Value.Quantity == nil && (th.Value.Percentage < 0 || th.Value.Percentage > 1 || th.Value.Percentage != th.Value.Percentage) {
				t.Fatalf("percentage out of range: %v", th.Value.Percentage)
			}
		}
		// A fresh evaluator's first cycle on parsed thresholds: every met hard
		// threshold is eligible and fresh at once and drives reclaim; soft
		// ones wait for their grace period.
		e, err := NewEvaluator(ts, Options{})
		if err != nil {
			// Only possible with a user allocatableMemory.available threshold
			// equal to a copied memory.available one but for min-reclaim.
			if !errors.Is(err, ErrConflictingThresholds) {
				t.Fatalf("parsed thresholds rejected by NewEvaluator: %v", err)
			}
			return
		}
		o := Observations{}
		for _, s := range Signals() {
			o[s] = obs("1", "1Ti", t0)
		}
		var metHard []Threshold
		for _, th := range Met(ts, o, false) {
			if th.IsHard() {
				metHard = append(metHard, th)
			}
		}
		if r := e.Observe(t0, o); !equalLists(r.Eligible, metHard) || !equalLists(r.Fresh, metHard) || r.Reclaim != (len(metHard) > 0) {
			t.Fatalf("first cycle: eligible %v, fresh %v, reclaim %v; want the met hard thresholds %v",
				describeAll(r.Eligible), describeAll(r.Fresh), r.Reclaim, describeAll(metHard))
		}
	})
}
