package thresholds

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// NodeAllocatablePods is the --enforce-node-allocatable entry that makes
// [ParseConfig] copy every hard memory.available threshold to
// allocatableMemory.available. The kubelet enforces it by default.
const NodeAllocatablePods = "pods"

// Config is the kubelet's eviction configuration in its raw form: the four
// flag maps (or KubeletConfiguration fields) keyed by signal name, plus the
// node-allocatable enforcement list. For Hard and EnforceNodeAllocatable,
// nil means "not configured" and selects the kubelet's default, while an
// empty non-nil value means "none" (the other maps have no defaults, so nil
// and empty are the same). So the zero value is a kubelet with default
// settings: on Linux it parses to the five default hard thresholds of
// [Defaults] plus allocatableMemory.available<100Mi, the copy of
// memory.available<100Mi that the default node-allocatable enforcement
// ("pods") adds.
//
// Config models a kubelet started with a configuration file, where the
// eviction defaults (and mergeDefaultEvictionSettings) are applied while the
// file is loaded, before command-line flags override it ([Flags.Apply]). A
// kubelet started with flags only applies no eviction defaults: model it
// with a non-nil Hard. Node-allocatable enforcement defaults to ["pods"]
// either way.
type Config struct {
	// Hard is --eviction-hard (evictionHard): signal → "100Mi" or "10%".
	// nil means "not configured" and selects [Defaults]; an empty non-nil map
	// means no hard thresholds at all.
	Hard map[string]string
	// Soft is --eviction-soft (evictionSoft), same syntax as Hard. There are
	// no defaults.
	Soft map[string]string
	// SoftGracePeriod is --eviction-soft-grace-period: signal → Go duration.
	// Every soft threshold needs an entry.
	SoftGracePeriod map[string]string
	// MinimumReclaim is --eviction-minimum-reclaim: signal → quantity or
	// percentage. It applies to the hard and soft thresholds of the signal.
	MinimumReclaim map[string]string
	// EnforceNodeAllocatable is --enforce-node-allocatable
	// (enforceNodeAllocatable); if it contains [NodeAllocatablePods], hard
	// memory.available thresholds are copied to allocatableMemory.available.
	// nil means "not configured" and selects the kubelet's default,
	// ["pods"]; an empty non-nil slice means no enforcement, as do lists
	// without "pods" such as ["none"]. Pass an empty slice to model
	// --experimental-allocatable-ignore-eviction, with which the kubelet
	// parses its thresholds as if nothing were enforced.
	EnforceNodeAllocatable []string
	// MergeDefaults is mergeDefaultEvictionSettings: when Hard is non-nil,
	// signals missing from it are filled in from [Defaults] instead of
	// getting no threshold. User entries win; "0%" or "100%" disables one
	// default signal.
	MergeDefaults bool
	// OS selects the default set; the zero value is [Linux].
	OS OS
}

// Defaults returns the kubelet's default --eviction-hard map for os, as a
// fresh map the caller may modify:
//
//	                    Linux   Windows  other
//	memory.available    100Mi   500Mi    100Mi
//	nodefs.available    10%     10%      10%
//	nodefs.inodesFree   5%      -        -
//	imagefs.available   15%     15%      15%
//	imagefs.inodesFree  5%      -        -
func Defaults(os OS) map[string]string {
	m := map[string]string{
		string(MemoryAvailable):  "100Mi",
		string(NodeFsAvailable):  "10%",
		string(ImageFsAvailable): "15%",
	}
	switch os.normalize() {
	case Linux:
		m[string(NodeFsInodesFree)] = "5%"
		m[string(ImageFsInodesFree)] = "5%"
	case Windows:
		m[string(MemoryAvailable)] = "500Mi"
	}
	return m
}

// HardMap returns the --eviction-hard map [ParseConfig] uses for c: c.Hard
// when it is set (filled in from [Defaults] for missing signals when
// c.MergeDefaults is true), the defaults for c.OS when it is nil. The result
// is a fresh map; c is not modified.
func (c Config) HardMap() map[string]string {
	if c.Hard == nil {
		return Defaults(c.OS)
	}
	m := maps.Clone(c.Hard)
	if c.MergeDefaults {
		for k, v := range Defaults(c.OS) {
			if _, ok := m[k]; !ok {
				m[k] = v
			}
		}
	}
	return m
}

// ParseConfig parses c into thresholds exactly as the kubelet's
// ParseThresholdConfig does after the config file is loaded: hard thresholds,
// then soft thresholds (each given its grace period), then, if node
// allocatable is enforced for pods (the default when
// c.EnforceNodeAllocatable is nil), an allocatableMemory.available copy of
// every hard memory.available threshold. Minimum reclaims are attached to
// every threshold of their signal. Entries within one map are processed in
// lexicographic key order.
//
// A value of exactly "0%" or "100%" in Hard or Soft disables that signal: no
// threshold, no error, no grace period needed. The first invalid entry (in
// the order hard, soft, grace periods, minimum reclaims, missing grace
// periods) aborts parsing; the error names the flag, the signal and the value
// and wraps [ErrUnsupportedSignal], [ErrInvalidThreshold],
// [ErrInvalidGracePeriod], [ErrInvalidMinReclaim] or [ErrMissingGracePeriod].
// Entries for signals without a threshold in SoftGracePeriod and
// MinimumReclaim are validated and otherwise ignored.
//
// Containerfs thresholds are derived later, once the disk layout is known:
// see [WithContainerFs].
func ParseConfig(c Config) ([]Threshold, error) {
	hard, err := parseStatements("eviction-hard", c.HardMap())
	if err != nil {
		return nil, err
	}
	soft, err := parseStatements("eviction-soft", c.Soft)
	if err != nil {
		return nil, err
	}
	grace, err := parseGracePeriods(c.SoftGracePeriod)
	if err != nil {
		return nil, err
	}
	reclaim, err := parseMinReclaims(c.MinimumReclaim)
	if err != nil {
		return nil, err
	}
	for i, t := range soft {
		d, ok := grace[t.Signal]
		if !ok {
			return nil, fmt.Errorf("thresholds: eviction-soft %q: %w %s", t.Signal, ErrMissingGracePeriod, t.Signal)
		}
		soft[i].GracePeriod = d
	}
	out := make([]Threshold, 0, len(hard)+len(soft)+1)
	out = append(out, hard...)
	out = append(out, soft...)
	for i := range out {
		if v, ok := reclaim[out[i].Signal]; ok {
			out[i].MinReclaim = &v
		}
	}
	if c.enforcesPods() {
		out = withAllocatable(out)
	}
	return out, nil
}

// enforcesPods reports whether node allocatable is enforced for pods: the
// kubelet's default (enforceNodeAllocatable defaults to ["pods"]) when
// c.EnforceNodeAllocatable is nil, the list's choice otherwise.
func (c Config) enforcesPods() bool {
	return c.EnforceNodeAllocatable == nil || slices.Contains(c.EnforceNodeAllocatable, NodeAllocatablePods)
}

// withAllocatable appends an allocatableMemory.available copy of each hard
// memory.available threshold.
func withAllocatable(ts []Threshold) []Threshold {
	n := len(ts)
	for i := range n {
		t := ts[i]
		if t.Signal == MemoryAvailable && t.IsHard() {
			ts = append(ts, Threshold{Signal: AllocatableMemoryAvailable, Value: t.Value, MinReclaim: t.MinReclaim})
		}
	}
	return ts
}

func sortedKeys(m map[string]string) []string {
	return slices.Sorted(maps.Keys(m))
}

// parseStatements parses a hard or soft map; disabled entries are skipped.
func parseStatements(flag string, m map[string]string) ([]Threshold, error) {
	var out []Threshold
	for _, k := range sortedKeys(m) {
		t, ok, err := parseStatement(flag, Signal(k), m[k])
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, t)
		}
	}
	return out, nil
}

// parseStatement parses one "signal<value" statement. ok is false for the
// disabling values "0%" and "100%".
func parseStatement(flag string, sig Signal, val string) (t Threshold, ok bool, err error) {
	stmt := string(sig) + "<" + val
	if !sig.Valid() {
		return Threshold{}, false, unsupported(flag, stmt, sig)
	}
	if val == "0%" || val == "100%" {
		return Threshold{}, false, nil
	}
	v, err := parseValue(val)
	switch {
	case err != nil:
	case v.Quantity != nil && v.Quantity.Sign() <= 0:
		err = errors.New("must be positive")
	case v.Quantity == nil && v.Percentage < 0:
		err = errors.New("percentage must be >= 0%")
	case v.Quantity == nil && v.Percentage > 1:
		err = errors.New("percentage must be <= 100%")
	}
	if err != nil {
		return Threshold{}, false, invalid(flag, stmt, ErrInvalidThreshold, err)
	}
	return Threshold{Signal: sig, Value: v}, true, nil
}

// parseValue parses a percentage (any text ending in '%') or a quantity.
func parseValue(val string) (Value, error) {
	if strings.HasSuffix(val, "%") {
		p, err := parsePercentage(val)
		return Value{Percentage: p}, err
	}
	q, err := resource.ParseQuantity(val)
	if err != nil {
		return Value{}, err
	}
	return Value{Quantity: &q}, nil
}

// parsePercentage strips every trailing '%', parses a 32-bit float and
// divides by 100 in float32, as the kubelet does ("10%%" is 10%).
// Unlike the kubelet it rejects NaN.
func parsePercentage(s string) (float32, error) {
	f, err := strconv.ParseFloat(strings.TrimRight(s, "%"), 32)
	if err != nil {
		return 0, err
	}
	if f != f {
		return 0, fmt.Errorf("percentage %q is not a number", s)
	}
	return parsePercentText(float32(f)), nil
}

func parseGracePeriods(m map[string]string) (map[Signal]time.Duration, error) {
	return parseEntries("eviction-soft-grace-period", m, ErrInvalidGracePeriod, func(val string) (time.Duration, error) {
		d, err := time.ParseDuration(val)
		if err == nil && d < 0 {
			err = errors.New("must be a positive value")
		}
		return d, err
	})
}

func parseMinReclaims(m map[string]string) (map[Signal]Value, error) {
	return parseEntries("eviction-minimum-reclaim", m, ErrInvalidMinReclaim, func(val string) (Value, error) {
		v, err := parseValue(val)
		switch {
		case err != nil:
		case v.Quantity != nil && v.Quantity.Sign() < 0:
			err = errors.New("must not be negative")
		case v.Quantity == nil && v.Percentage <= 0:
			err = errors.New("percentage must be positive")
		}
		return v, err
	})
}

// parseEntries parses the "signal=value" entries of a grace-period or
// minimum-reclaim map in key order; the first unknown signal or value that
// parse rejects aborts it with an error wrapping ErrUnsupportedSignal or
// sentinel.
func parseEntries[T any](flag string, m map[string]string, sentinel error, parse func(val string) (T, error)) (map[Signal]T, error) {
	out := make(map[Signal]T, len(m))
	for _, k := range sortedKeys(m) {
		sig, val := Signal(k), m[k]
		if !sig.Valid() {
			return nil, unsupported(flag, k+"="+val, sig)
		}
		v, err := parse(val)
		if err != nil {
			return nil, invalid(flag, k+"="+val, sentinel, err)
		}
		out[sig] = v
	}
	return out, nil
}

// invalid builds the error for an entry whose value is rejected: it wraps
// sentinel and ends in detail, which is not wrapped.
func invalid(flag, entry string, sentinel, detail error) error {
	return fmt.Errorf("thresholds: %s %q: %w: %v", flag, entry, sentinel, detail)
}

// unsupported builds the error for an unknown signal; its text ends in the
// kubelet's own "unsupported eviction signal <signal>".
func unsupported(flag, stmt string, sig Signal) error {
	return fmt.Errorf("thresholds: %s %q: %w %s", flag, stmt, ErrUnsupportedSignal, sig)
}
