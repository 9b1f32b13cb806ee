package thresholds

import (
	"fmt"
	"strings"
)

// Flags holds the raw command-line values of the four eviction map flags,
// one string per occurrence of the flag. A nil slice means the flag was not
// given.
type Flags struct {
	// Hard holds the values of --eviction-hard ("memory.available<100Mi,...").
	Hard []string
	// Soft holds the values of --eviction-soft.
	Soft []string
	// SoftGracePeriod holds the values of --eviction-soft-grace-period
	// ("memory.available=1m30s,...").
	SoftGracePeriod []string
	// MinimumReclaim holds the values of --eviction-minimum-reclaim
	// ("imagefs.available=2Gi,...").
	MinimumReclaim []string
}

// Apply parses the flags over c the way the kubelet re-parses its command
// line over the loaded configuration: each flag that was given replaces the
// corresponding map of c entirely (the first occurrence discards defaults and
// config-file values; later occurrences accumulate, a repeated key keeping
// its last value); flags not given leave c unchanged. c is not modified.
// Errors wrap [ErrMalformedPair].
func (f Flags) Apply(c Config) (Config, error) {
	var err error
	set := func(dst *map[string]string, values []string, parse func(...string) (map[string]string, error)) {
		if err != nil || values == nil {
			return
		}
		*dst, err = parse(values...)
	}
	set(&c.Hard, f.Hard, ParseThresholdFlag)
	set(&c.Soft, f.Soft, ParseThresholdFlag)
	set(&c.SoftGracePeriod, f.SoftGracePeriod, ParseMapFlag)
	set(&c.MinimumReclaim, f.MinimumReclaim, ParseMapFlag)
	if err != nil {
		return Config{}, err
	}
	return c, nil
}

// ParseThresholdFlag parses the values of repeated --eviction-hard or
// --eviction-soft flags into a map, like the kubelet's
// LangleSeparatedMapStringString: each value is split on ',', empty segments
// are skipped, each segment is split at its first '<' and both sides are
// trimmed of white space; a repeated key keeps its last value. With no values
// it returns nil (flag not given); otherwise a non-nil map, empty for "".
// A segment without '<' is an error wrapping [ErrMalformedPair]. The values
// are not validated; [ParseConfig] does that.
func ParseThresholdFlag(values ...string) (map[string]string, error) {
	return parsePairs("<", values)
}

// ParseMapFlag parses the values of repeated --eviction-soft-grace-period or
// --eviction-minimum-reclaim flags, like [ParseThresholdFlag] but with '='
// as the separator (the kubelet's MapStringString).
func ParseMapFlag(values ...string) (map[string]string, error) {
	return parsePairs("=", values)
}

func parsePairs(sep string, values []string) (map[string]string, error) {
	if values == nil {
		return nil, nil
	}
	m := make(map[string]string)
	for _, value := range values {
		for seg := range strings.SplitSeq(value, ",") {
			if seg == "" {
				continue
			}
			k, v, ok := strings.Cut(seg, sep)
			if !ok {
				return nil, fmt.Errorf("thresholds: %q: %w, expect string%sstring", seg, ErrMalformedPair, sep)
			}
			m[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m, nil
}

// FormatThresholdFlag formats m as one --eviction-hard value, pairs
// "key<value" sorted and joined by commas; [ParseThresholdFlag] reads it
// back. Keys or values containing ',' or '<', or surrounding white space, do
// not survive the round trip.
func FormatThresholdFlag(m map[string]string) string { return formatPairs("<", m) }

// FormatMapFlag formats m as one --eviction-soft-grace-period or
// --eviction-minimum-reclaim value, pairs "key=value" sorted and joined by
// commas.
func FormatMapFlag(m map[string]string) string { return formatPairs("=", m) }

func formatPairs(sep string, m map[string]string) string {
	var b strings.Builder
	for i, k := range sortedKeys(m) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteString(sep)
		b.WriteString(m[k])
	}
	return b.String()
}
