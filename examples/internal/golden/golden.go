// Package golden checks what the examples print against files under their testdata/
// folders. It is for the examples' tests only.
package golden

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Output runs an example's scenario, which writes its report to w, and returns the report;
// an error fails t.
func Output(t testing.TB, run func(w io.Writer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := run(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Check compares got with the file testdata/name, byte for byte, and reports the first
// differing line. Under go test -update it writes got to the file instead.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update rewrites it):\n%s", path, FirstDiff(string(want), string(got)))
	}
}

// Contains fails t for every line of lines that got does not contain. Tests use it for the
// rules a scenario is there to show, so that -update cannot quietly accept output that
// breaks them.
func Contains(t testing.TB, got []byte, lines ...string) {
	t.Helper()
	for _, line := range lines {
		if !bytes.Contains(got, []byte(line)) {
			t.Errorf("output lacks %q", line)
		}
	}
}

// FirstDiff describes the first line where got differs from want, as "line N:" followed by
// want's line after "-" and got's after "+"; it returns "" when they are equal.
func FirstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return "line " + strconv.Itoa(i+1) + ":\n-" + a + "\n+" + b
		}
	}
	return ""
}
