package taints

import (
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Validate checks one taint the way upstream's library check (CheckTaintValidation) does:
// the key must be a qualified name ([ErrInvalidKey]); a non-empty value must be a label value
// ([ErrInvalidValue]); a non-empty effect must be one of the three ([ErrInvalidEffect]). An
// empty effect is accepted here; the API requires one (see [ValidateList]).
func Validate(t v1.Taint) error {
	if errs := content.IsLabelKey(t.Key); len(errs) > 0 {
		return newError(ErrInvalidKey, "invalid taint key: "+strings.Join(errs, "; "))
	}
	if t.Value != "" {
		if errs := content.IsLabelValue(t.Value); len(errs) > 0 {
			return newError(ErrInvalidValue, "invalid taint value: "+strings.Join(errs, "; "))
		}
	}
	if t.Effect != "" && !ValidEffect(t.Effect) {
		return newError(ErrInvalidEffect, "invalid taint effect: "+string(t.Effect)+", unsupported taint effect")
	}
	return nil
}

// ValidateList checks a node's taints as the API server does on node create and update, and
// returns every error it finds (nil when the list is valid). fldPath is the path of the list;
// nil means upstream's "metadata.taints" (sic: the API server reports node taint errors under
// metadata, not spec).
//
// Per taint i, under fldPath[i]:
//   - key must be a qualified name: one Invalid error on "key" per message (an empty key
//     gets two);
//   - value must be a label value (empty is fine): Invalid on "value";
//   - effect is Required on "effect" when empty, else NotSupported unless it is one of
//     NoSchedule, PreferNoSchedule, NoExecute;
//   - (Key, Effect) must be unique: the later duplicate gets a Duplicate error on fldPath[i]
//     with detail "taints must be unique by key and effect pair".
func ValidateList(list []v1.Taint, fldPath *field.Path) field.ErrorList {
	if fldPath == nil {
		fldPath = field.NewPath("metadata", "taints")
	}
	var errs field.ErrorList
	for i := range list {
		t := &list[i]
		idx := fldPath.Index(i)
		for _, msg := range content.IsLabelKey(t.Key) {
			errs = append(errs, field.Invalid(idx.Child("key"), t.Key, msg).WithOrigin("format=k8s-label-key"))
		}
		if msgs := content.IsLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, field.Invalid(idx.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		switch {
		case t.Effect == "":
			errs = append(errs, field.Required(idx.Child("effect"), ""))
		case !ValidEffect(t.Effect):
			errs = append(errs, field.NotSupported(idx.Child("effect"), t.Effect, Effects()))
		}
		if Exists(list[:i], t) {
			dup := field.Duplicate(idx, *t)
			dup.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, dup)
		}
	}
	return errs
}

// Effects returns the three valid effects in the order the API lists them: NoSchedule,
// PreferNoSchedule, NoExecute. The slice is fresh on every call.
func Effects() []v1.TaintEffect {
	return []v1.TaintEffect{v1.TaintEffectNoSchedule, v1.TaintEffectPreferNoSchedule, v1.TaintEffectNoExecute}
}
