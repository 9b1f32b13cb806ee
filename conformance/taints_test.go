package conformance_test

import (
	"reflect"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	taintutils "k8s.io/kubernetes/pkg/util/taints"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/taints"
)

// sameError reports whether the library's error equals upstream's: both
// nil, or both set with the same text once the library's "taints: " prefix
// is dropped.
func sameError(ours, upstream error) bool {
	if ours == nil || upstream == nil {
		return ours == nil && upstream == nil
	}
	return strings.TrimPrefix(ours.Error(), "taints: ") == upstream.Error()
}

func TestParse(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		spec := gen.TaintSpec().Draw(t, "spec")
		want, wantErr := taintutils.ParseTaint(spec)
		got, gotErr := taints.Parse(spec)
		if !sameError(gotErr, wantErr) || (wantErr == nil && !reflect.DeepEqual(got, want)) {
			t.Fatalf("Parse(%q): upstream (%s, %v), evictkit (%s, %v)", spec, show(want), wantErr, show(got), gotErr)
		}
	})
}

func TestParseSpecs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		specs := rapid.SliceOfN(gen.TaintSpec(), 0, 4).Draw(t, "specs")
		wantAdd, wantRemove, wantErr := taintutils.ParseTaints(specs)
		gotAdd, gotRemove, gotErr := taints.ParseSpecs(specs)
		if !sameError(gotErr, wantErr) ||
			(wantErr == nil && (!reflect.DeepEqual(gotAdd, wantAdd) || !reflect.DeepEqual(gotRemove, wantRemove))) {
			t.Fatalf("ParseSpecs(%q): upstream (%s, %s, %v), evictkit (%s, %s, %v)",
				specs, show(wantAdd), show(wantRemove), wantErr, show(gotAdd), show(gotRemove), gotErr)
		}
	})
}

func TestFormat(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		taint := gen.Taint().Draw(t, "taint")
		if want, got := taint.ToString(), taints.Format(taint); got != want {
			t.Fatalf("Format(%s): upstream %q, evictkit %q", show(taint), want, got)
		}
	})
}

func TestValidate(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		taint := gen.Taint().Draw(t, "taint")
		wantErr := taintutils.CheckTaintValidation(taint)
		gotErr := taints.Validate(taint)
		if !sameError(gotErr, wantErr) {
			t.Fatalf("Validate(%s): upstream %v, evictkit %v", show(taint), wantErr, gotErr)
		}
	})
}

// deref turns upstream's []*v1.Taint into values (nil stays nil).
func deref(ps []*v1.Taint) []v1.Taint {
	if ps == nil {
		return nil
	}
	out := make([]v1.Taint, len(ps))
	for i, p := range ps {
		out[i] = *p
	}
	return out
}

func TestTaintSets(t *testing.T) {
	t.Run("Exists", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			list, taint := gen.Taints(4).Draw(t, "list"), gen.Taint().Draw(t, "taint")
			if want, got := taintutils.TaintExists(list, &taint), taints.Exists(list, &taint); got != want {
				t.Fatalf("Exists(%s, %s): upstream %v, evictkit %v", show(list), show(taint), want, got)
			}
		})
	})
	t.Run("KeyExists", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			list, key := gen.Taints(4).Draw(t, "list"), gen.Key().Draw(t, "key")
			if want, got := taintutils.TaintKeyExists(list, key), taints.KeyExists(list, key); got != want {
				t.Fatalf("KeyExists(%s, %q): upstream %v, evictkit %v", show(list), key, want, got)
			}
		})
	})
	t.Run("Diff", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			newT, oldT := gen.Taints(4).Draw(t, "new"), gen.Taints(4).Draw(t, "old")
			wantAdd, wantRemove := taintutils.TaintSetDiff(newT, oldT)
			gotAdd, gotRemove := taints.Diff(newT, oldT)
			if !reflect.DeepEqual(gotAdd, deref(wantAdd)) || !reflect.DeepEqual(gotRemove, deref(wantRemove)) {
				t.Fatalf("Diff(%s, %s): upstream (%s, %s), evictkit (%s, %s)", show(newT), show(oldT), show(deref(wantAdd)), show(deref(wantRemove)), show(gotAdd), show(gotRemove))
			}
		})
	})
	t.Run("Filter", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			list := gen.Taints(4).Draw(t, "list")
			effect := gen.Effect().Draw(t, "effect")
			keep := func(t *v1.Taint) bool { return t.Effect == effect }
			if want, got := taintutils.TaintSetFilter(list, keep), taints.Filter(list, keep); !reflect.DeepEqual(got, want) {
				t.Fatalf("Filter(%s, effect %q): upstream %s, evictkit %s", show(list), effect, show(want), show(got))
			}
		})
	})
	t.Run("Remove", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			list, taint := gen.Taints(4).Draw(t, "list"), gen.Taint().Draw(t, "taint")
			want, wantOK := taintutils.DeleteTaint(list, &taint)
			got, gotOK := taints.Remove(list, &taint)
			// DeleteTaint always returns a fresh non-nil slice; Remove
			// returns a clone of list (nil stays nil) when it drops nothing.
			// Compare the elements.
			if gotOK != wantOK || len(got) != len(want) || (len(want) > 0 && !reflect.DeepEqual(got, want)) {
				t.Fatalf("Remove(%s, %s): upstream (%s, %v), evictkit (%s, %v)", show(list), show(taint), show(want), wantOK, show(got), gotOK)
			}
		})
	})
	t.Run("RemoveKey", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			list, key := gen.Taints(4).Draw(t, "list"), gen.Key().Draw(t, "key")
			want, wantOK := taintutils.DeleteTaintsByKey(list, key)
			got, gotOK := taints.RemoveKey(list, key)
			if gotOK != wantOK || !reflect.DeepEqual(got, want) {
				t.Fatalf("RemoveKey(%s, %q): upstream (%s, %v), evictkit (%s, %v)", show(list), key, show(want), wantOK, show(got), gotOK)
			}
		})
	})
	t.Run("AddOrUpdate", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			list, taint := gen.Taints(4).Draw(t, "list"), gen.Taint().Draw(t, "taint")
			node := &v1.Node{Spec: v1.NodeSpec{Taints: list}}
			wantNode, wantOK, err := taintutils.AddOrUpdateTaint(node, &taint)
			if err != nil {
				t.Fatal(err)
			}
			got, gotOK := taints.AddOrUpdate(list, &taint)
			if gotOK != wantOK || len(got) != len(wantNode.Spec.Taints) ||
				(len(got) > 0 && !reflect.DeepEqual(got, wantNode.Spec.Taints)) {
				t.Fatalf("AddOrUpdate(%s, %s): upstream (%s, %v), evictkit (%s, %v)", show(list), show(taint), show(wantNode.Spec.Taints), wantOK, show(got), gotOK)
			}
		})
	})
	t.Run("ExistingKeys", func(t *testing.T) {
		rapid.Check(t, func(t *rapid.T) {
			existing, add := gen.Taints(4).Draw(t, "existing"), gen.Taints(4).Draw(t, "add")
			if want, got := taintutils.CheckIfTaintsAlreadyExists(existing, add), strings.Join(taints.ExistingKeys(existing, add), ","); got != want {
				t.Fatalf("ExistingKeys(%s, %s) joined: upstream %q, evictkit %q", show(existing), show(add), want, got)
			}
		})
	})
}
