package nodelifecycle

import (
	"fmt"
	"maps"
	"slices"

	v1 "k8s.io/api/core/v1"
)

// LabelExcludeDisruption on a node (any value) keeps it out of its zone's counts. The node is
// still judged, tainted and evicted like any other.
const LabelExcludeDisruption = "node.kubernetes.io/exclude-disruption"

// ZoneState is the disruption state of a zone. The strings are upstream's.
type ZoneState string

const (
	// ZoneInitial marks a zone seen for the first time; [ComputeZoneState] never returns it.
	ZoneInitial ZoneState = "Initial"
	// ZoneNormal: evict at EvictionRate.
	ZoneNormal ZoneState = "Normal"
	// ZonePartialDisruption: at least 3 nodes and at least UnhealthyZoneThreshold of the
	// zone are not ready; evict at SecondaryEvictionRate in a large zone, not at all in a
	// small one.
	ZonePartialDisruption ZoneState = "PartialDisruption"
	// ZoneFullDisruption: no node of the zone is ready; evict at EvictionRate while another
	// zone is not fully disrupted, not at all otherwise.
	ZoneFullDisruption ZoneState = "FullDisruption"
)

// ZoneKey returns the zone key of a node (component-helpers GetZoneKey): region +
// ":\x00:" + zone, each read from the deprecated failure-domain.beta.kubernetes.io label if
// that key is present (even with an empty value) and from the topology.kubernetes.io label
// otherwise; "" when both are empty.
func ZoneKey(node *v1.Node) string {
	if node == nil {
		return ""
	}
	return ZoneKeyOf(node.Labels)
}

// ZoneKeyOf is [ZoneKey] for a node's labels.
func ZoneKeyOf(labels map[string]string) string {
	if labels == nil {
		return ""
	}
	zone, ok := labels[v1.LabelFailureDomainBetaZone]
	if !ok {
		zone = labels[v1.LabelTopologyZone]
	}
	region, ok := labels[v1.LabelFailureDomainBetaRegion]
	if !ok {
		region = labels[v1.LabelTopologyRegion]
	}
	if region == "" && zone == "" {
		return ""
	}
	return region + ":\x00:" + zone
}

// ExcludedFromDisruption reports whether node carries [LabelExcludeDisruption].
func ExcludedFromDisruption(node *v1.Node) bool {
	if node == nil {
		return false
	}
	_, ok := node.Labels[LabelExcludeDisruption]
	return ok
}

// ZoneCounts counts the nodes of one zone in one pass: every node whose judgement succeeded
// (not [NeedsLeaseCheck] or [Skipped], and whose status write did not fail for good) and that
// is not [ExcludedFromDisruption].
type ZoneCounts struct {
	// Ready counts nodes whose current Ready status is True.
	Ready int
	// NotReady counts all others: False, Unknown, any other string, or no Ready condition.
	NotReady int
}

// Add counts one node by its current Ready condition ([Health.Current], nil allowed).
func (c *ZoneCounts) Add(ready *v1.NodeCondition) {
	if ready != nil && ready.Status == v1.ConditionTrue {
		c.Ready++
	} else {
		c.NotReady++
	}
}

// Size returns the number of counted nodes.
func (c ZoneCounts) Size() int { return c.Ready + c.NotReady }

// CountReady counts a zone's current Ready conditions (nil entries are nodes without one).
func CountReady(ready []*v1.NodeCondition) ZoneCounts {
	var c ZoneCounts
	for _, r := range ready {
		c.Add(r)
	}
	return c
}

// ComputeZoneState returns the state of a zone from its counts (upstream ComputeZoneState):
// FullDisruption when no node is ready and some is not; PartialDisruption when more than 2
// are not ready and float32(notReady)/float32(all) ≥ cfg.UnhealthyZoneThreshold; Normal
// otherwise, an empty zone included. The ratio is computed in float32 as upstream does, which
// differs from float64 near the threshold (3 of 30 against 0.1 is partial).
func ComputeZoneState(c ZoneCounts, cfg Config) ZoneState {
	return computeZoneState(c, cfg.Effective())
}

func computeZoneState(c ZoneCounts, cfg Config) ZoneState {
	switch {
	case c.Ready == 0 && c.NotReady > 0:
		return ZoneFullDisruption
	case c.NotReady > 2 && float32(c.NotReady)/float32(c.NotReady+c.Ready) >= cfg.UnhealthyZoneThreshold:
		return ZonePartialDisruption
	}
	return ZoneNormal
}

// ZoneRate returns the eviction rate (nodes per second) of a zone in state s with size
// counted nodes while at least one zone is not fully disrupted (upstream setLimiterInZone,
// HealthyQPSFunc, ReducedQPSFunc): EvictionRate for Normal and FullDisruption;
// SecondaryEvictionRate for PartialDisruption when size > LargeClusterThreshold, else 0.
// Initial and unknown states return 0 and false: upstream leaves the limiter alone. When every
// zone is fully disrupted the rate is 0 everywhere; see [HandleDisruption].
func ZoneRate(s ZoneState, size int, cfg Config) (float32, bool) {
	return zoneRate(s, size, cfg.Effective())
}

func zoneRate(s ZoneState, size int, cfg Config) (float32, bool) {
	switch s {
	case ZoneNormal, ZoneFullDisruption:
		return cfg.EvictionRate, true
	case ZonePartialDisruption:
		if int64(size) > int64(cfg.LargeClusterThreshold) {
			return cfg.SecondaryEvictionRate, true
		}
		return 0, true
	}
	return 0, false
}

// Disruption is what one pass of upstream's handleDisruption decides for the whole cluster.
type Disruption struct {
	// States are the zone states to remember for the next pass. Zones not counted this pass
	// are gone.
	States map[string]ZoneState
	// Rates holds the new eviction rate of every zone whose rate limiter upstream swaps this
	// pass (SwapLimiter); zones absent keep their rate. A new zone's queue starts at
	// EvictionRate.
	Rates map[string]float32
	// Dropped lists, sorted, the zones known before but not counted this pass. A dropped
	// zone that comes back is new again: upstream gives it a fresh queue and rate limiter.
	Dropped []string
	// Entered reports that the cluster enters the all-zones-down mode ("master
	// disruption"): every zone's rate is 0 and the NoExecute taints of every node are
	// removed ([MarkReachable]; legacy mode: every node's eviction is cancelled).
	Entered bool
	// Exited reports that the cluster leaves that mode: reset every node's probe to now
	// ([ResetProbe]), so every grace period starts over.
	Exited bool
}

// AllDown reports whether every counted zone is fully disrupted after the transition, i.e.
// evictions are stopped everywhere. It is vacuously true with no zone.
func (t Disruption) AllDown() bool {
	for _, s := range t.States {
		if s != ZoneFullDisruption {
			return false
		}
	}
	return true
}

// HandleDisruption computes one pass of upstream's handleDisruption as a pure function: prev
// holds the states remembered from the previous pass (zones that got a queue since then,
// with [ZoneInitial]; nil for none), counts this pass's counts per zone. A zone in counts but
// not in prev is treated as Initial.
//
//   - Every counted zone fully disrupted, and not before: enter the all-zones-down mode, rate
//     0 everywhere, every state FullDisruption.
//   - Not every zone fully disrupted now, but every one before: exit that mode; every zone
//     gets the rate of its new state.
//   - Neither: every zone whose state changed gets the rate of its new state. A zone whose
//     state is unchanged keeps its rate, even when its size crossed LargeClusterThreshold.
//   - Both: nothing changes (rates stay 0).
//
// "Before" treats Initial as not fully disrupted and looks only at zones counted this pass.
// Zones not counted this pass are dropped; upstream drops them during a map walk that stops
// at the first zone not fully disrupted, so it may keep some for another pass with an empty
// state. prev is not modified.
func HandleDisruption(prev map[string]ZoneState, counts map[string]ZoneCounts, cfg Config) Disruption {
	cfg = cfg.Effective()
	t := Disruption{
		States: make(map[string]ZoneState, len(counts)),
		Rates:  make(map[string]float32),
	}
	allNow := true
	allBefore := true
	for zone, c := range counts {
		s := computeZoneState(c, cfg)
		t.States[zone] = s
		if s != ZoneFullDisruption {
			allNow = false
		}
		if prev[zone] != ZoneFullDisruption {
			allBefore = false
		}
	}
	for zone := range prev {
		if _, ok := counts[zone]; !ok {
			t.Dropped = append(t.Dropped, zone)
		}
	}
	slices.Sort(t.Dropped)

	switch {
	case allNow && !allBefore:
		t.Entered = true
		for zone := range t.States {
			t.Rates[zone] = 0
		}
	case !allNow:
		// Leaving the all-zones-down mode sets every zone's rate; otherwise only the zones
		// whose state changed get a new one (a zone absent from prev has changed: its state
		// is never "").
		t.Exited = allBefore
		for zone, s := range t.States {
			if !t.Exited && prev[zone] == s {
				continue
			}
			if r, ok := zoneRate(s, counts[zone].Size(), cfg); ok {
				t.Rates[zone] = r
			}
		}
	}
	return t
}

// String returns a stable one-line summary, zones sorted by key.
func (t Disruption) String() string {
	zones := slices.Sorted(maps.Keys(t.States))
	s := fmt.Sprintf("entered=%t exited=%t", t.Entered, t.Exited)
	for _, z := range zones {
		s += fmt.Sprintf(" %q=%s", z, t.States[z])
		if r, ok := t.Rates[z]; ok {
			s += fmt.Sprintf("@%g", r)
		}
	}
	if len(t.Dropped) > 0 {
		s += fmt.Sprintf(" dropped=%q", t.Dropped)
	}
	return s
}
