package pressureevictor

import (
	"errors"
	"fmt"

	"github.com/evictkit/eviction/thresholds"
)

// DefaultSoft is the evictor's --eviction-soft when none is given: five times
// the kubelet's hard default for memory (memory.available<100Mi).
const DefaultSoft = "memory.available<500Mi"

// DefaultSoftGracePeriod is the evictor's --eviction-soft-grace-period when
// neither it nor --eviction-soft is given: three cycles at the default
// interval, so that a short spike evicts nothing.
const DefaultSoftGracePeriod = "memory.available=30s"

// ErrNoThresholds is wrapped by ParseThresholds when the flags leave no
// threshold at all.
var ErrNoThresholds = errors.New("no eviction thresholds")

// ParseThresholds parses the evictor's threshold flags, written exactly as
// the kubelet's, into thresholds: f.Soft (default DefaultSoft),
// f.SoftGracePeriod (default DefaultSoftGracePeriod when f.Soft is not given
// either), f.MinimumReclaim and f.Hard (default none: the kubelet's hard
// defaults are the kubelet's business). A bad flag gives the thresholds
// package's error, which names the flag and value and wraps its sentinel; no
// threshold at all gives an error wrapping ErrNoThresholds.
func ParseThresholds(f thresholds.Flags) ([]thresholds.Threshold, error) {
	if f.Soft == nil {
		f.Soft = []string{DefaultSoft}
		if f.SoftGracePeriod == nil {
			f.SoftGracePeriod = []string{DefaultSoftGracePeriod}
		}
	}
	c, err := f.Apply(thresholds.Config{Hard: map[string]string{}})
	if err != nil {
		return nil, err
	}
	ts, err := thresholds.ParseConfig(c)
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("pressureevictor: --eviction-soft %q and --eviction-hard %q: %w",
			thresholds.FormatThresholdFlag(c.Soft), thresholds.FormatThresholdFlag(c.Hard), ErrNoThresholds)
	}
	return ts, nil
}
