package tolerations

import (
	"strconv"
	"strings"

	"github.com/evictkit/eviction/taints"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks a pod's tolerations as the API server does on pod create, and returns every
// error (nil when valid). fldPath is the list's path; nil means "spec.tolerations". Lt and Gt
// are accepted only with opts.ComparisonOperators. Per toleration i, under fldPath[i]:
//
//   - a non-empty key must be a qualified name: Invalid on "key" per message;
//   - an empty key needs operator Exists: Invalid on "operator";
//   - TolerationSeconds needs effect NoExecute (an empty effect fails too): Invalid on
//     "effect"; negative and zero seconds are valid;
//   - operator "" / Equal: the value must be a label value, Invalid on "operator" (sic);
//   - Exists: the value must be empty, Invalid on "operator" (sic);
//   - Lt / Gt not allowed: NotSupported on "operator" listing Equal, Exists, Lt, Gt;
//   - Lt / Gt allowed: the value must be a canonical decimal (Invalid on "value") and fit
//     in an int64 (Invalid on "value" with strconv's message; "" gets both errors);
//   - any other operator: NotSupported on "operator" listing Equal, Exists;
//   - a non-empty effect must be NoSchedule, PreferNoSchedule or NoExecute: NotSupported
//     on "effect".
//
// Tolerations are not checked for uniqueness.
func Validate(tols []v1.Toleration, fldPath *field.Path, opts Options) field.ErrorList {
	if fldPath == nil {
		fldPath = field.NewPath("spec", "tolerations")
	}
	var errs field.ErrorList
	for i := range tols {
		t := &tols[i]
		idx := fldPath.Index(i)
		if t.Key != "" {
			for _, msg := range content.IsLabelKey(t.Key) {
				errs = append(errs, field.Invalid(idx.Child("key"), t.Key, msg).WithOrigin("format=k8s-label-key"))
			}
		}
		if t.Key == "" && t.Operator != v1.TolerationOpExists {
			errs = append(errs, field.Invalid(idx.Child("operator"), t.Operator,
				"operator must be Exists when `key` is empty, which means \"match all values and all keys\""))
		}
		if t.TolerationSeconds != nil && t.Effect != v1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(idx.Child("effect"), t.Effect,
				"effect must be 'NoExecute' when `tolerationSeconds` is set"))
		}
		switch t.Operator {
		case "", v1.TolerationOpEqual:
			if msgs := content.IsLabelValue(t.Value); len(msgs) > 0 {
				errs = append(errs, field.Invalid(idx.Child("operator"), t.Value, strings.Join(msgs, ";")))
			}
		case v1.TolerationOpExists:
			if t.Value != "" {
				errs = append(errs, field.Invalid(idx.Child("operator"), t.Value, "value must be empty when `operator` is 'Exists'"))
			}
		case v1.TolerationOpLt, v1.TolerationOpGt:
			if !opts.ComparisonOperators {
				errs = append(errs, field.NotSupported(idx.Child("operator"), t.Operator, []v1.TolerationOperator{
					v1.TolerationOpEqual, v1.TolerationOpExists, v1.TolerationOpLt, v1.TolerationOpGt}))
				break
			}
			for _, msg := range content.IsDecimalInteger(t.Value) {
				errs = append(errs, field.Invalid(idx.Child("value"), t.Value, msg))
			}
			if _, err := strconv.ParseInt(t.Value, 10, 64); err != nil {
				errs = append(errs, field.Invalid(idx.Child("value"), t.Value, err.Error()))
			}
		default:
			errs = append(errs, field.NotSupported(idx.Child("operator"), t.Operator, []v1.TolerationOperator{
				v1.TolerationOpEqual, v1.TolerationOpExists}))
		}
		if t.Effect != "" && !taints.ValidEffect(t.Effect) {
			errs = append(errs, field.NotSupported(idx.Child("effect"), t.Effect, taints.Effects()))
		}
	}
	return errs
}

// ValidateUpdate checks a pod update's tolerations as the API server does. Every old
// toleration must still be present in newTols, compared on all fields but TolerationSeconds;
// otherwise the result is a single Forbidden error on fldPath, "existing toleration can not
// be modified except its tolerationSeconds" (additions are allowed, removals are not). Then
// newTols are checked with [Validate], where Lt and Gt are also allowed when some old
// toleration already uses them (upstream's ratcheting while the gate is off).
func ValidateUpdate(newTols, oldTols []v1.Toleration, fldPath *field.Path, opts Options) field.ErrorList {
	if fldPath == nil {
		fldPath = field.NewPath("spec", "tolerations")
	}
	for i := range oldTols {
		found := false
		for j := range newTols {
			if Match(&oldTols[i], &newTols[j]) {
				found = true
				break
			}
		}
		if !found {
			return field.ErrorList{field.Forbidden(fldPath, "existing toleration can not be modified except its tolerationSeconds")}
		}
	}
	for i := range oldTols {
		if op := oldTols[i].Operator; op == v1.TolerationOpLt || op == v1.TolerationOpGt {
			opts.ComparisonOperators = true
			break
		}
	}
	return Validate(newTols, fldPath, opts)
}
