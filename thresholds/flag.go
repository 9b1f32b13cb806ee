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
// Errors name the flag and the segment, and wrap [ErrMalformedPair].
func (f Flags) Apply(c Config) (Config, error) {
	var err error
	set := func(flag string, dst *map[string]string, values []string, sep string) {
		if err != nil || values == nil {
			return
		}
		if *dst, err = parsePairs(sep, values); err != nil {
			err = fmt.Errorf("thresholds: %s %w", flag, err)
		}
	}
	set("eviction-hard", &c.Hard, f.Hard, "<")
	set("eviction-soft", &c.Soft, f.Soft, "<")
	set("eviction-soft-grace-period", &c.SoftGracePeriod, f.SoftGracePeriod, "=")
	set("eviction-minimum-reclaim", &c.MinimumReclaim, f.MinimumReclaim, "=")
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
	return parsePairsPrefixed("<", values)
}

// ParseMapFlag parses the values of repeated --eviction-soft-grace-period or
// --eviction-minimum-reclaim flags, like [ParseThresholdFlag] but with '='
// as the separator (the kubelet's MapStringString).
func ParseMapFlag(values ...string) (map[string]string, error) {
	return parsePairsPrefixed("=", values)
}

func parsePairsPrefixed(sep string, values []string) (map[string]string, error) {
	m, err := parsePairs(sep, values)
	if err != nil {
		return nil, fmt.Errorf("thresholds: %w", err)
	}
	return m, nil
}

// parsePairs splits values into key-value pairs at sep; its error names the
// malformed segment, for the caller to say which flag it came from.
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
				return nil, fmt.Errorf("%q: %w, expect string%sstring", seg, ErrMalformedPair, sep)
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
