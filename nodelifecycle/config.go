package nodelifecycle

import "time"

// Config holds the node lifecycle controller's settings. Every field is taken literally: the
// zero Config has no grace periods, stopped eviction rates and the lease circuit breaker off,
// so start from [DefaultConfig] (or [DefaultConfig126]) and override what differs. Upstream
// validates none of these and neither does this package: a rate ≤ 0 means "stopped", and a
// zone threshold of 0 or above 1 is legal.
type Config struct {
	// MonitorPeriod is kube-controller-manager's --node-monitor-period: how often the
	// controller judges every node (default 5 s). Only [SilentNode] and [Schedule] read it.
	MonitorPeriod time.Duration
	// MonitorGracePeriod is --node-monitor-grace-period: how long a node that has posted a
	// Ready condition may stay silent before the controller marks it Unknown (default 50 s;
	// 40 s in v1.26).
	MonitorGracePeriod time.Duration
	// StartupGracePeriod is --node-startup-grace-period: the same for a node that has never
	// posted a Ready condition, counted from its creation (default 60 s).
	StartupGracePeriod time.Duration
	// EvictionRate is --node-eviction-rate: nodes per second tainted NoExecute (legacy mode:
	// whose pods are deleted) in a healthy zone (default 0.1).
	EvictionRate float32
	// SecondaryEvictionRate is --secondary-node-eviction-rate: the rate in a partially
	// disrupted zone larger than LargeClusterThreshold (default 0.01).
	SecondaryEvictionRate float32
	// LargeClusterThreshold is --large-cluster-size-threshold: a partially disrupted zone
	// with at most this many counted nodes stops evicting altogether (default 50, per zone).
	LargeClusterThreshold int32
	// UnhealthyZoneThreshold is --unhealthy-zone-threshold: the fraction of not-ready nodes
	// (at least 3 of them) from which a zone is partially disrupted (default 0.55).
	UnhealthyZoneThreshold float32
	// LeaseCircuitBreaker is the feature gate NodeControllerLeaseCircuitBreaker (beta, on by
	// default in v1.37): before marking a node Unknown, double-check its Lease with a live
	// GET. When true, [Evaluate] answers [NeedsLeaseCheck] instead of marking the node.
	LeaseCircuitBreaker bool
	// PodEvictionTimeout is --pod-eviction-timeout (removed in v1.27, default 5 m): in the
	// legacy mode, how long a node may be not ready before its pods are deleted.
	PodEvictionTimeout time.Duration
	// TaintBasedEviction is --enable-taint-manager (deprecated in v1.26, removed in v1.27,
	// always on since): true taints failing nodes NoExecute and leaves pod eviction to the
	// taint manager; false selects the legacy mode, in which the controller deletes a failed
	// node's pods itself ([LegacyPodEviction]). Only [SilentNode] reads it; a controller built on
	// this package branches on it.
	TaintBasedEviction bool
}

// DefaultConfig returns kube-controller-manager v1.37.2's defaults, plus the legacy
// PodEvictionTimeout of 5 minutes (v1.37 still defaults that unused field).
func DefaultConfig() Config {
	return Config{
		MonitorPeriod:          5 * time.Second,
		MonitorGracePeriod:     50 * time.Second,
		StartupGracePeriod:     60 * time.Second,
		EvictionRate:           0.1,
		SecondaryEvictionRate:  0.01,
		LargeClusterThreshold:  50,
		UnhealthyZoneThreshold: 0.55,
		LeaseCircuitBreaker:    true,
		PodEvictionTimeout:     5 * time.Minute,
		TaintBasedEviction:     true,
	}
}

// DefaultConfig126 returns kube-controller-manager v1.26.15's defaults, the last release with
// the legacy mode: a 40 s monitor grace period and no lease circuit breaker. TaintBasedEviction
// is true there too; set it to false for the legacy mode.
func DefaultConfig126() Config {
	c := DefaultConfig()
	c.MonitorGracePeriod = 40 * time.Second
	c.LeaseCircuitBreaker = false
	return c
}
