package taints

import (
	"slices"
	"testing"

	v1 "k8s.io/api/core/v1"
	"pgregory.net/rapid"
)

var (
	genName   = rapid.StringMatching(`[A-Za-z0-9]([-A-Za-z0-9_.]{0,30}[A-Za-z0-9])?`)
	genPrefix = rapid.StringMatching(`[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,10}[a-z0-9])?){0,2}`)
	genEffect = rapid.SampledFrom(Effects())
)

// genValidTaint draws a taint that passes validation, with an effect.
func genValidTaint() *rapid.Generator[v1.Taint] {
	return rapid.Custom(func(t *rapid.T) v1.Taint {
		key := genName.Draw(t, "name")
		if rapid.Bool().Draw(t, "prefixed") {
			key = genPrefix.Draw(t, "prefix") + "/" + key
		}
		value := ""
		if rapid.Bool().Draw(t, "hasValue") {
			value = genName.Draw(t, "value")
		}
		return v1.Taint{Key: key, Value: value, Effect: genEffect.Draw(t, "effect")}
	})
}

// genSmallTaint draws taints from a small alphabet so that identities collide often.
func genSmallTaint() *rapid.Generator[v1.Taint] {
	return rapid.Custom(func(t *rapid.T) v1.Taint {
		return v1.Taint{
			Key:    rapid.SampledFrom([]string{"a", "b", "c"}).Draw(t, "key"),
			Value:  rapid.SampledFrom([]string{"", "1", "2"}).Draw(t, "value"),
			Effect: rapid.SampledFrom([]v1.TaintEffect{"", noSched, noExec}).Draw(t, "effect"),
		}
	})
}

func TestPropertyParseFormatRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		taint := genValidTaint().Draw(t, "taint")
		if err := Validate(taint); err != nil {
			t.Fatalf("generator drew an invalid taint %+v: %v", taint, err)
		}
		got, err := Parse(Format(taint))
		if err != nil {
			t.Fatalf("Parse(%q): %v", Format(taint), err)
		}
		if got != taint {
			t.Fatalf("Parse(Format(%+v)) = %+v", taint, got)
		}
		// As a kubectl argument it is an addition, and with "-" a removal of its identity.
		add, remove, err := ParseSpecs([]string{Format(taint), Format(v1.Taint{Key: taint.Key, Effect: taint.Effect}) + "-"})
		if err != nil || len(add) != 1 || add[0] != taint || len(remove) != 1 || !Match(&remove[0], &taint) || remove[0].Value != "" {
			t.Fatalf("ParseSpecs round trip of %+v: add=%v remove=%v err=%v", taint, add, remove, err)
		}
	})
}

func TestPropertyListOperations(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		list := rapid.SliceOfN(genSmallTaint(), 0, 6).Draw(t, "list")
		other := rapid.SliceOfN(genSmallTaint(), 0, 6).Draw(t, "other")
		x := genSmallTaint().Draw(t, "x")
		listBefore, otherBefore, xBefore := clone(list), clone(other), x

		up, updated := AddOrUpdate(list, &x)
		if !Exists(up, &x) {
			t.Fatalf("AddOrUpdate: %+v missing from %v", x, up)
		}
		if !updated && !slices.EqualFunc(up, list, func(a, b v1.Taint) bool { return Equal(&a, &b) }) {
			t.Fatalf("AddOrUpdate reported no update but changed %v into %v", list, up)
		}
		if again, u := AddOrUpdate(up, &x); u || len(again) != len(up) {
			t.Fatalf("AddOrUpdate is not idempotent on %v", up)
		}

		rm, removed := Remove(list, &x)
		if Exists(rm, &x) || removed != Exists(list, &x) {
			t.Fatalf("Remove(%v, %+v) = %v, %v", list, x, rm, removed)
		}
		rk, removedKey := RemoveKey(list, x.Key)
		if KeyExists(rk, x.Key) || removedKey != KeyExists(list, x.Key) {
			t.Fatalf("RemoveKey(%v, %q) = %v, %v", list, x.Key, rk, removedKey)
		}

		add, del := Diff(list, other)
		for i := range add {
			if Exists(other, &add[i]) || !Exists(list, &add[i]) {
				t.Fatalf("Diff add %+v", add[i])
			}
		}
		for i := range del {
			if Exists(list, &del[i]) || !Exists(other, &del[i]) {
				t.Fatalf("Diff remove %+v", del[i])
			}
		}
		// other − remove + add has the identities of list.
		patched := other
		for i := range del {
			patched, _ = Remove(patched, &del[i])
		}
		patched = append(patched, add...)
		for i := range list {
			if !Exists(patched, &list[i]) {
				t.Fatalf("patched %v lacks %+v", patched, list[i])
			}
		}
		for i := range patched {
			if !Exists(list, &patched[i]) {
				t.Fatalf("patched %v has extra %+v", patched, patched[i])
			}
		}

		if !slices.EqualFunc(list, listBefore, func(a, b v1.Taint) bool { return Equal(&a, &b) }) ||
			!slices.EqualFunc(other, otherBefore, func(a, b v1.Taint) bool { return Equal(&a, &b) }) || x != xBefore {
			t.Fatalf("inputs mutated")
		}
	})
}

func TestPropertyApply(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		node := rapid.SliceOfN(genSmallTaint(), 0, 5).Draw(t, "node")
		add := rapid.SliceOfN(genSmallTaint(), 0, 3).Draw(t, "add")
		remove := rapid.SliceOfN(genSmallTaint(), 0, 3).Draw(t, "remove")
		overwrite := rapid.Bool().Draw(t, "overwrite")
		nb, ab, rb := clone(node), clone(add), clone(remove)
		got, op, err := Apply(node, add, remove, ApplyOptions{Overwrite: overwrite})
		if !slices.Equal(node, nb) || !slices.Equal(add, ab) || !slices.Equal(remove, rb) {
			t.Fatalf("Apply mutated its inputs")
		}
		if err != nil {
			checkOneSentinel(t, err)
			if got != nil || op != "" {
				t.Fatalf("error %v with result %v, %q", err, got, op)
			}
			return
		}
		// The verb (rule 5): step 3 keeps the additions and the first node taint of each
		// identity no addition has; it grew the list if that count differs from the node's.
		merged := len(add)
		for i := range node {
			if !Exists(node[:i], &node[i]) && !Exists(add, &node[i]) {
				merged++
			}
		}
		grown := merged != len(node)
		wantOp := Untainted
		switch {
		case overwrite || grown && len(remove) > 0:
			wantOp = Modified
		case grown:
			wantOp = Tainted
		}
		if op != wantOp {
			t.Fatalf("operation %q, want %q (overwrite=%v, grown=%v, %d removals)", op, wantOp, overwrite, grown, len(remove))
		}
		for i := range add {
			if !Exists(got, &add[i]) {
				t.Fatalf("addition %+v missing from %v", add[i], got)
			}
		}
		for i := range remove {
			for j := range got {
				if drops(&remove[i], &got[j]) {
					t.Fatalf("removal %+v left %+v in %v", remove[i], got[j], got)
				}
			}
		}
		// Nothing appears from nowhere, and the first node taint of an identity that no addition
		// replaces and no removal drops stays as it was (later duplicates go).
		equalTo := func(x v1.Taint) func(v1.Taint) bool { return func(y v1.Taint) bool { return Equal(&x, &y) } }
		for i := range got {
			if !slices.ContainsFunc(add, equalTo(got[i])) && !slices.ContainsFunc(node, equalTo(got[i])) {
				t.Fatalf("%+v in %v is neither an addition nor a node taint", got[i], got)
			}
		}
		for i := range node {
			if Exists(node[:i], &node[i]) || Exists(add, &node[i]) ||
				slices.ContainsFunc(remove, func(r v1.Taint) bool { return drops(&r, &node[i]) }) {
				continue
			}
			if !slices.ContainsFunc(got, equalTo(node[i])) {
				t.Fatalf("node taint %+v lost: %v", node[i], got)
			}
		}
		if len(got) > 0 && len(node) > 0 && &got[0] == &node[0] {
			t.Fatalf("result aliases the input")
		}
	})
}
