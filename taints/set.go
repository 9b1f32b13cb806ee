package taints

import (
	"slices"

	v1 "k8s.io/api/core/v1"
)

// Match reports whether a and b have the same identity, (Key, Effect). Value and TimeAdded
// are not part of it.
func Match(a, b *v1.Taint) bool {
	return a.Key == b.Key && a.Effect == b.Effect
}

// Equal reports whether a and b are semantically equal: same Key, Value and Effect, and
// TimeAdded both nil or both set to the same instant (location and monotonic reading are
// ignored). This is the equality upstream's AddOrUpdateTaint uses.
func Equal(a, b *v1.Taint) bool {
	if a.Key != b.Key || a.Value != b.Value || a.Effect != b.Effect {
		return false
	}
	if a.TimeAdded == nil || b.TimeAdded == nil {
		return a.TimeAdded == nil && b.TimeAdded == nil
	}
	return a.TimeAdded.Time.Equal(b.TimeAdded.Time)
}

// Exists reports whether some element of list has t's (Key, Effect).
func Exists(list []v1.Taint, t *v1.Taint) bool {
	for i := range list {
		if Match(&list[i], t) {
			return true
		}
	}
	return false
}

// KeyExists reports whether some element of list has the key, whatever its effect.
func KeyExists(list []v1.Taint, key string) bool {
	for i := range list {
		if list[i].Key == key {
			return true
		}
	}
	return false
}

// Diff compares two lists by (Key, Effect): add holds the elements of newTaints whose identity
// is absent from oldTaints, remove the elements of oldTaints absent from newTaints. A change of
// value (or TimeAdded) alone is invisible. Both results keep input order, are copies (fresh
// slices) and are nil when empty.
func Diff(newTaints, oldTaints []v1.Taint) (add, remove []v1.Taint) {
	for i := range newTaints {
		if !Exists(oldTaints, &newTaints[i]) {
			add = append(add, newTaints[i])
		}
	}
	for i := range oldTaints {
		if !Exists(newTaints, &oldTaints[i]) {
			remove = append(remove, oldTaints[i])
		}
	}
	return add, remove
}

// Filter returns the elements of list for which keep returns true, in order, in a fresh
// non-nil slice.
func Filter(list []v1.Taint, keep func(*v1.Taint) bool) []v1.Taint {
	out := []v1.Taint{}
	for i := range list {
		if keep(&list[i]) {
			out = append(out, list[i])
		}
	}
	return out
}

// AddOrUpdate returns a fresh copy of list with t in it, and whether that changed anything.
// When an element with t's (Key, Effect) is already [Equal] to t (value and TimeAdded
// included), the copy is unchanged and the result is false; a matching element that differs is
// replaced in place by t; with no matching element t is appended. The input is never modified.
func AddOrUpdate(list []v1.Taint, t *v1.Taint) ([]v1.Taint, bool) {
	out := make([]v1.Taint, 0, len(list)+1)
	replaced := false
	for i := range list {
		if !Match(&list[i], t) {
			out = append(out, list[i])
			continue
		}
		if Equal(&list[i], t) {
			return slices.Clone(list), false
		}
		out = append(out, *t)
		replaced = true
	}
	if !replaced {
		out = append(out, *t)
	}
	return out, true
}

// Remove returns a fresh copy of list without the elements that have t's (Key, Effect), and
// whether any was dropped. An empty effect in t only matches elements whose effect is empty
// too (use [RemoveKey] for kubectl's "key-", all effects). When nothing is dropped the result
// is a clone of list (nil stays nil); otherwise it is non-nil, possibly empty.
func Remove(list []v1.Taint, t *v1.Taint) ([]v1.Taint, bool) {
	if !Exists(list, t) {
		return slices.Clone(list), false
	}
	out := make([]v1.Taint, 0, len(list)-1)
	for i := range list {
		if !Match(&list[i], t) {
			out = append(out, list[i])
		}
	}
	return out, true
}

// RemoveKey returns a fresh copy of list without the elements whose key is key (any effect),
// and whether any was dropped. The result is always non-nil.
func RemoveKey(list []v1.Taint, key string) ([]v1.Taint, bool) {
	out := make([]v1.Taint, 0, len(list))
	for i := range list {
		if list[i].Key != key {
			out = append(out, list[i])
		}
	}
	return out, len(out) != len(list)
}

// ExistingKeys returns the keys of the taints in add whose (Key, Effect) is also in existing,
// one entry per match and in add order; nil when there is none. Joined by ",", it is the list
// kubectl prints when it refuses to add without --overwrite (upstream's
// CheckIfTaintsAlreadyExists returns that string).
func ExistingKeys(existing, add []v1.Taint) []string {
	var keys []string
	for i := range add {
		for j := range existing {
			if Match(&add[i], &existing[j]) {
				keys = append(keys, add[i].Key)
			}
		}
	}
	return keys
}

// OnlyNoExecute returns the taints of list with effect NoExecute, in order, in a fresh non-nil
// slice: the list the taint-eviction controller keeps per node (upstream's getNoExecuteTaints).
func OnlyNoExecute(list []v1.Taint) []v1.Taint {
	out := []v1.Taint{}
	for i := range list {
		if list[i].Effect == v1.TaintEffectNoExecute {
			out = append(out, list[i])
		}
	}
	return out
}
