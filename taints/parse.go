package taints

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
)

// Parse parses one taint in kubectl syntax: "key=value:Effect", "key=:Effect" (empty value),
// "key:Effect" or "key" (no effect). Nothing is trimmed and every comparison is byte-exact.
//
// The steps follow kubectl exactly, so the first error is the one kubectl reports:
//  1. Split on ':'. Three or more parts is [ErrInvalidSpec].
//  2. With two parts the effect is checked first ([ErrInvalidEffect], also for an empty
//     effect); then the left part is split on '='. More than one '=' is [ErrInvalidSpec]; a
//     value must be a label value ([ErrInvalidValue]).
//  3. The key must be a qualified name ([ErrInvalidKey]). With one part ("a=b") the whole
//     string is the key, which then fails this check.
//
// Parse returns the zero Taint with the error.
func Parse(spec string) (v1.Taint, error) {
	left, effect, hasEffect := strings.Cut(spec, ":")
	var t v1.Taint
	if hasEffect {
		if strings.Contains(effect, ":") {
			return v1.Taint{}, newError(ErrInvalidSpec, "invalid taint spec: "+spec)
		}
		t.Effect = v1.TaintEffect(effect)
		if !ValidEffect(t.Effect) {
			return v1.Taint{}, newError(ErrInvalidEffect, "invalid taint effect: "+effect+", unsupported taint effect")
		}
		key, value, hasValue := strings.Cut(left, "=")
		if hasValue {
			if strings.Contains(value, "=") {
				return v1.Taint{}, newError(ErrInvalidSpec, "invalid taint spec: "+spec)
			}
			if errs := content.IsLabelValue(value); len(errs) > 0 {
				return v1.Taint{}, newError(ErrInvalidValue, "invalid taint spec: "+spec+", "+strings.Join(errs, "; "))
			}
		}
		t.Key, t.Value = key, value
	} else {
		t.Key = spec
	}
	if errs := content.IsLabelKey(t.Key); len(errs) > 0 {
		return v1.Taint{}, newError(ErrInvalidKey, "invalid taint spec: "+spec+", "+strings.Join(errs, "; "))
	}
	return t, nil
}

// ParseSpecs parses the taint arguments of `kubectl taint` into additions and removals, each
// in input order.
//
// A spec ending in '-' is a removal: exactly one trailing '-' is stripped and the rest is
// parsed with [Parse] (so a value, if given, is still validated), then only Key and Effect are
// kept. "key-" removes every effect of key, "key:Effect-" and "key=value:Effect-" one effect.
// Any other spec is an addition and needs an effect ([ErrInvalidSpec] otherwise); a second
// addition with the same (Key, Effect) is [ErrDuplicate], whatever its value. Removals are
// neither de-duplicated nor checked against additions here (see [Apply]).
//
// The first error aborts and returns nil slices. A result with no additions (or no removals)
// has a nil slice for it.
func ParseSpecs(specs []string) (add, remove []v1.Taint, err error) {
	for _, spec := range specs {
		if rest, ok := strings.CutSuffix(spec, "-"); ok {
			t, err := Parse(rest)
			if err != nil {
				return nil, nil, err
			}
			remove = append(remove, v1.Taint{Key: t.Key, Effect: t.Effect})
			continue
		}
		t, err := Parse(spec)
		if err != nil {
			return nil, nil, err
		}
		if t.Effect == "" {
			return nil, nil, newError(ErrInvalidSpec, "invalid taint spec: "+spec)
		}
		if Exists(add, &t) {
			return nil, nil, newError(ErrDuplicate, fmt.Sprintf("duplicated taints with the same key and effect: %v", t))
		}
		add = append(add, t)
	}
	return add, remove, nil
}
