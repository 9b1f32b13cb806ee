package nodelifecycle

import "time"

// kube-controller-manager v1.37.2's defaults: what the zero value of each [Config] field means.
const (
	DefaultMonitorPeriod          = 5 * time.Second
	DefaultMonitorGracePeriod     = 50 * time.Second
	DefaultStartupGracePeriod     = 60 * time.Second
	DefaultEvictionRate           = float32(0.1)
	DefaultSecondaryEvictionRate  = float32(0.01)
	DefaultLargeClusterThreshold  = int32(50)
	DefaultUnhealthyZoneThreshold = float32(0.55)
)

// DrainPeriod is how often the node lifecycle controller drains its zone queues, each draining
// a [Monitor.Drain]: upstream's NodeEvictionPeriod, a constant there too (no flag sets it).
// A zone queue hands out at most one node per token of its bucket, so at the default
// eviction rate of 0.1 nodes per second most drains hand out nothing.
const DrainPeriod = 100 * time.Millisecond

// Config holds the node lifecycle controller's settings. The zero Config is
// kube-controller-manager v1.37.2's defaults: a zero field means its Default constant, and the
// settings whose upstream default is "on" or non-zero have an explicit field to turn them off
// or to zero. Upstream validates none of these and neither does this package: a negative rate
// means "stopped", and a zone threshold above 1 is legal.
//
// Two upstream settings of 0 have no field of their own because another value behaves the
// same: a LargeClusterThreshold of 0 acts as 1 (a partially disrupted zone has at least 3
// nodes), and an UnhealthyZoneThreshold of 0 as any tiny positive threshold such as
// math.SmallestNonzeroFloat32.
type Config struct {
	// MonitorPeriod is --node-monitor-period: how often the controller judges every node
	// (0: 5 s). The Monitor does not read it: the caller calls [Monitor.Pass] on this period.
	MonitorPeriod time.Duration
	// MonitorGracePeriod is --node-monitor-grace-period: how long a node that has posted a
	// Ready condition may stay silent before the controller marks it Unknown (0: 50 s).
	MonitorGracePeriod time.Duration
	// StartupGracePeriod is --node-startup-grace-period: the same for a node that has never
	// posted a Ready condition, counted from its creation (0: 60 s).
	StartupGracePeriod time.Duration
	// EvictionRate is --node-eviction-rate: nodes per second tainted NoExecute in a healthy
	// zone (0: 0.1; see StopEviction for upstream's 0).
	EvictionRate float32
	// SecondaryEvictionRate is --secondary-node-eviction-rate: the rate in a partially
	// disrupted zone larger than LargeClusterThreshold (0: 0.01; see StopSecondaryEviction).
	SecondaryEvictionRate float32
	// LargeClusterThreshold is --large-cluster-size-threshold: a partially disrupted zone
	// with at most this many counted nodes stops tainting altogether (0: 50, per zone).
	LargeClusterThreshold int32
	// UnhealthyZoneThreshold is --unhealthy-zone-threshold: the fraction of not-ready nodes
	// (at least 3 of them) from which a zone is partially disrupted (0: 0.55).
	UnhealthyZoneThreshold float32
	// StopEviction sets EvictionRate to 0 (--node-eviction-rate=0). As upstream's, a zone's
	// queue starts with a full bucket of one token that a rate of 0 never refills: the first
	// node of each healthy zone is still tainted, then no other.
	StopEviction bool
	// StopSecondaryEviction sets SecondaryEvictionRate to 0: a partially disrupted zone
	// never taints, however large.
	StopSecondaryEviction bool
	// DisableLeaseCircuitBreaker turns off the feature gate NodeControllerLeaseCircuitBreaker
	// (beta, on by default in v1.37). With the breaker on, before marking a node Unknown the
	// controller double-checks its Lease with a live GET, and [Evaluate] answers
	// [NeedsLeaseCheck] instead of marking the node.
	DisableLeaseCircuitBreaker bool
	// DisableNoExecuteTainting is v1.26's --enable-taint-manager=false, the legacy mode: the
	// [Monitor] writes no NoExecute taint at all (a pass neither swaps, queues nor removes
	// one, and [Monitor.Drain] does nothing); the caller deletes the pods of failed nodes
	// itself, as package nodelifecycle/legacy decides from each [PassResult].
	DisableNoExecuteTainting bool
}

// Effective returns the settings in force: every zero field replaced by its default, and the
// rates of StopEviction and StopSecondaryEviction set to 0 (the Stop fields stay set, so
// Effective is idempotent). Every function of the package reads its Config through Effective.
func (c Config) Effective() Config {
	if c.MonitorPeriod == 0 {
		c.MonitorPeriod = DefaultMonitorPeriod
	}
	if c.MonitorGracePeriod == 0 {
		c.MonitorGracePeriod = DefaultMonitorGracePeriod
	}
	if c.StartupGracePeriod == 0 {
		c.StartupGracePeriod = DefaultStartupGracePeriod
	}
	switch {
	case c.StopEviction:
		c.EvictionRate = 0
	case c.EvictionRate == 0:
		c.EvictionRate = DefaultEvictionRate
	}
	switch {
	case c.StopSecondaryEviction:
		c.SecondaryEvictionRate = 0
	case c.SecondaryEvictionRate == 0:
		c.SecondaryEvictionRate = DefaultSecondaryEvictionRate
	}
	if c.LargeClusterThreshold == 0 {
		c.LargeClusterThreshold = DefaultLargeClusterThreshold
	}
	if c.UnhealthyZoneThreshold == 0 {
		c.UnhealthyZoneThreshold = DefaultUnhealthyZoneThreshold
	}
	return c
}
