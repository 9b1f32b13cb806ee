package golden

import "testing"

func TestFirstDiff(t *testing.T) {
	for _, tc := range []struct{ want, got, diff string }{
		{"a\nb\n", "a\nb\n", ""},
		{"a\nb\n", "a\nc\n", "line 2:\n-b\n+c"},
		{"a\n", "a\nextra\n", "line 2:\n-\n+extra"},
		{"a\nb", "a", "line 2:\n-b\n+"},
	} {
		if d := FirstDiff(tc.want, tc.got); d != tc.diff {
			t.Errorf("FirstDiff(%q, %q) = %q, want %q", tc.want, tc.got, d, tc.diff)
		}
	}
}

func TestContains(t *testing.T) {
	ft := &fakeT{T: t}
	Contains(ft, []byte("one\ntwo\n"), "one\n", "three\n")
	if ft.errors != 1 {
		t.Errorf("Contains reported %d missing lines, want 1", ft.errors)
	}
}

// fakeT counts the failures a helper reports instead of failing the test.
type fakeT struct {
	*testing.T
	errors int
}

func (f *fakeT) Errorf(string, ...any) { f.errors++ }
