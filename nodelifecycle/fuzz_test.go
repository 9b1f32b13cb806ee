package nodelifecycle

import (
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// FuzzZoneKey checks the zone key read from node labels against its definition: the beta
// label wins whenever its key is present, "" iff region and zone are both empty, otherwise
// region + ":\x00:" + zone. Seeds are the label combinations of TestZoneKey.
func FuzzZoneKey(f *testing.F) {
	// present bits: 1 beta zone, 2 topology zone, 4 beta region, 8 topology region.
	f.Add(uint8(0), "", "", "", "")
	f.Add(uint8(2), "", "z", "", "")
	f.Add(uint8(8), "", "", "", "r")
	f.Add(uint8(3), "", "z", "", "")
	f.Add(uint8(11), "bz", "z", "", "r")
	f.Add(uint8(15), "a:\x00:b", "z", "br", "r")
	f.Fuzz(func(t *testing.T, present uint8, betaZone, topoZone, betaRegion, topoRegion string) {
		labels := map[string]string{}
		if present&1 != 0 {
			labels[v1.LabelFailureDomainBetaZone] = betaZone
		}
		if present&2 != 0 {
			labels[v1.LabelTopologyZone] = topoZone
		}
		if present&4 != 0 {
			labels[v1.LabelFailureDomainBetaRegion] = betaRegion
		}
		if present&8 != 0 {
			labels[v1.LabelTopologyRegion] = topoRegion
		}
		zone, region := "", ""
		switch {
		case present&1 != 0:
			zone = betaZone
		case present&2 != 0:
			zone = topoZone
		}
		switch {
		case present&4 != 0:
			region = betaRegion
		case present&8 != 0:
			region = topoRegion
		}
		got := ZoneKeyOf(labels)
		if region == "" && zone == "" {
			if got != "" {
				t.Fatalf("want empty key, got %q", got)
			}
			return
		}
		if got != region+":\x00:"+zone || !strings.HasPrefix(got, region) || !strings.HasSuffix(got, zone) {
			t.Fatalf("key %q for region %q zone %q", got, region, zone)
		}
	})
}

// FuzzEvaluate drives the health judgement with arbitrary times and statuses: it must not
// panic, must be monotone in now and must write only Unknown Ready conditions.
func FuzzEvaluate(f *testing.F) {
	f.Add(int64(0), int64(-3600), int64(0), "True", int64(50), int64(1), true, true, int64(0))
	f.Add(int64(0), int64(-3600), int64(0), "True", int64(50), int64(1), true, false, int64(-1))
	f.Add(int64(-31536000), int64(0), int64(0), "", int64(0), int64(0), false, false, int64(10))
	f.Add(int64(-30), int64(0), int64(30), "Unknown", int64(30), int64(1), false, true, int64(40))
	f.Fuzz(func(t *testing.T, created, hb, probe int64, status string, now, later int64, hasReady, hasProbe bool, renew int64) {
		sec := func(s int64) time.Time { return t0.Add(time.Duration(s%1e9) * time.Second) }
		var conds []v1.NodeCondition
		if hasReady {
			conds = append(conds, readyCond(v1.ConditionStatus(status), sec(hb), sec(hb)))
		}
		node := mkNode("n", sec(created), conds...)
		var saved *Probe
		if hasProbe {
			saved = &Probe{ProbeTime: sec(probe), ReadyTransitionTime: sec(probe), Ready: ptr(readyCond(v1.ConditionTrue, sec(probe), sec(probe)))}
		}
		lease := mkLease("n", "1", ptr(sec(renew)))
		cfg := noBreaker()
		t1 := sec(now)
		t2 := t1.Add(time.Duration(later%1e6) * time.Second)
		if t2.Before(t1) {
			t1, t2 = t2, t1
		}
		h1 := Evaluate(node, lease, saved, t1, cfg)
		h2 := Evaluate(node, lease, saved, t2, cfg)
		if rank(h1.Verdict) > rank(h2.Verdict) {
			t.Fatalf("healthier later: %v then %v", h1.Verdict, h2.Verdict)
		}
		for _, h := range []Health{h1, h2} {
			if h.Status != nil {
				r := findCondition(h.Status.Conditions, v1.NodeReady)
				if r == nil || r.Status != v1.ConditionUnknown {
					t.Fatalf("written Ready %v", r)
				}
			}
		}
	})
}
