package taints

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

var sentinels = []error{ErrInvalidSpec, ErrInvalidKey, ErrInvalidValue, ErrInvalidEffect, ErrDuplicate, ErrConflict, ErrAlreadyExists, ErrNotFound}

// checkOneSentinel fails unless err wraps exactly one sentinel.
func checkOneSentinel(t interface {
	Helper()
	Fatalf(format string, args ...any)
}, err error) {
	t.Helper()
	n := 0
	for _, s := range sentinels {
		if errors.Is(err, s) {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("error %q wraps %d sentinels", err, n)
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.spec)
	}
	for _, tc := range parseSpecsCases {
		for _, s := range tc.specs {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, spec string) {
		taint, err := Parse(spec)
		if err != nil {
			checkOneSentinel(t, err)
			if !strings.HasPrefix(err.Error(), "taints: ") {
				t.Fatalf("unprefixed error %q", err)
			}
			return
		}
		if err := Validate(taint); err != nil {
			t.Fatalf("Parse(%q) = %+v, which Validate rejects: %v", spec, taint, err)
		}
		if taint.Effect == "" && taint.Value != "" {
			t.Fatalf("Parse(%q) = %+v: value without effect", spec, taint)
		}
		if again, err := Parse(Format(taint)); err != nil || again != taint {
			t.Fatalf("Parse(Format(%+v)) = %+v, %v", taint, again, err)
		}
	})
}

func FuzzParseSpecs(f *testing.F) {
	for _, tc := range parseSpecsCases {
		f.Add(strings.Join(tc.specs, "\n"))
	}
	f.Fuzz(func(t *testing.T, joined string) {
		specs := strings.Split(joined, "\n")
		add, remove, err := ParseSpecs(specs)
		if err != nil {
			checkOneSentinel(t, err)
			if add != nil || remove != nil {
				t.Fatalf("error with results: %v %v", add, remove)
			}
			return
		}
		if len(add)+len(remove) != len(specs) {
			t.Fatalf("%d specs gave %d additions and %d removals", len(specs), len(add), len(remove))
		}
		for i := range add {
			if add[i].Effect == "" || Exists(add[:i], &add[i]) {
				t.Fatalf("bad addition %+v in %v", add[i], add)
			}
		}
		for i := range remove {
			if remove[i].Value != "" || remove[i].TimeAdded != nil {
				t.Fatalf("removal %+v keeps more than key and effect", remove[i])
			}
		}
		// Applied to a node that already has the additions, with overwrite: no removal can
		// find a taint without conflicting with an addition, so any removal fails the call;
		// without removals the node ends up with the additions, verb Modified.
		got, op, err := Apply(add, add, remove, ApplyOptions{Overwrite: true})
		if len(remove) == 0 {
			if err != nil || op != Modified || !slices.Equal(got, add) {
				t.Fatalf("Apply(%v, %v) = %v, %q, %v", add, add, got, op, err)
			}
			return
		}
		want := ErrNotFound
		for i := range remove {
			for j := range add {
				if drops(&remove[i], &add[j]) {
					want = ErrConflict
				}
			}
		}
		if !errors.Is(err, want) || got != nil {
			t.Fatalf("Apply(%v, %v, %v) = %v, %v; want %v", add, add, remove, got, err, want)
		}
		checkOneSentinel(t, err)
	})
}
