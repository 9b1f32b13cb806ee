package taints

import (
	"fmt"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
)

// Operation is the verb `kubectl taint` prints for a node it changed.
type Operation string

// The operations, as kubectl words them ("node/n1 tainted").
const (
	// Modified means --overwrite was given, or the command both grew the list and removed a taint.
	Modified Operation = "modified"
	// Tainted means the additions changed the number of taints.
	Tainted Operation = "tainted"
	// Untainted means neither of the above: without --overwrite, the number of taints did not
	// grow (typically removals only).
	Untainted Operation = "untainted"
)

// ApplyOptions configures [Apply]. The zero value is kubectl's default.
type ApplyOptions struct {
	// Overwrite is kubectl's --overwrite: allow an addition to replace the value of an existing
	// taint with the same (Key, Effect). Off by default.
	Overwrite bool
	// NodeName only appears in the error message for an existing taint, as kubectl prints it.
	NodeName string
}

// Apply computes the taints a node ends up with after `kubectl taint` with the given additions
// and removals (as returned by [ParseSpecs]), and the verb kubectl prints. The input slices are
// never modified; the result is a fresh slice.
//
// The rules are kubectl's:
//  1. An addition whose key equals a removal's key, where the removal has no effect or the
//     same effect, is [ErrConflict].
//  2. Without Overwrite, an addition with the (Key, Effect) of an existing taint is
//     [ErrAlreadyExists] (values do not matter).
//  3. The new list is the additions in order, then every existing taint whose (Key, Effect)
//     no addition has, in node order: an overwritten taint moves to the front.
//  4. Removals apply in order: with an effect they drop that (Key, Effect), without one every
//     taint of the key. Each removal that drops nothing adds an [ErrNotFound] error; those
//     errors are aggregated and fail the whole call.
//  5. The verb is [Modified] if Overwrite, or if step 3 changed the number of taints and
//     there were removals (kubectl asks whether the last one dropped something, which by
//     step 4 every one did); else [Tainted] if step 3 changed the number; else [Untainted].
//
// On error the returned list is nil and the operation empty.
func Apply(nodeTaints, add, remove []v1.Taint, opts ApplyOptions) ([]v1.Taint, Operation, error) {
	var conflicts []string
	for i := range add {
		for j := range remove {
			if drops(&remove[j], &add[i]) {
				conflicts = append(conflicts, remove[j].Key+"="+string(remove[j].Effect))
			}
		}
	}
	if len(conflicts) > 0 {
		return nil, "", newError(ErrConflict, "can not both modify and remove the following taint(s) in the same command: "+strings.Join(conflicts, ", "))
	}
	if !opts.Overwrite {
		if keys := ExistingKeys(nodeTaints, add); keys != nil {
			return nil, "", newError(ErrAlreadyExists, fmt.Sprintf("node %s already has %s taint(s) with same effect(s) and --overwrite is false", opts.NodeName, strings.Join(keys, ",")))
		}
	}

	out := make([]v1.Taint, 0, len(add)+len(nodeTaints))
	out = append(out, add...)
	for i := range nodeTaints {
		if !Exists(out, &nodeTaints[i]) {
			out = append(out, nodeTaints[i])
		}
	}
	grown := len(out) != len(nodeTaints)

	var missing []string
	for i := range remove {
		n := len(out)
		out = slices.DeleteFunc(out, func(t v1.Taint) bool { return drops(&remove[i], &t) })
		if len(out) == n {
			missing = append(missing, fmt.Sprintf("taint %q not found", Format(remove[i])))
		}
	}
	switch len(missing) {
	case 0:
	case 1:
		return nil, "", newError(ErrNotFound, missing[0])
	default:
		// kubectl aggregates them: "[taint "a" not found, taint "b" not found]".
		return nil, "", newError(ErrNotFound, "["+strings.Join(missing, ", ")+"]")
	}
	switch {
	case opts.Overwrite || (grown && len(remove) > 0):
		return out, Modified, nil
	case grown:
		return out, Tainted, nil
	default:
		return out, Untainted, nil
	}
}

// drops reports whether the removal r ("key-", "key:Effect-") takes taint t off a node: same
// key and, when r has an effect, same effect. An addition that a removal drops is a conflict.
func drops(r, t *v1.Taint) bool {
	return r.Key == t.Key && (r.Effect == "" || r.Effect == t.Effect)
}
