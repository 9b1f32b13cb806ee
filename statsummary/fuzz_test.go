package statsummary

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDecode checks that no input panics, that Decode accepts only valid
// JSON, that every error has the package prefix and one sentinel, and that a
// summary decodes the same after a round trip through the wire format.
func FuzzDecode(f *testing.F) {
	// The test summaries, cut to their first pod: whole ones (45 KB) slow
	// coverage-guided fuzzing to a crawl.
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		s, err := Decode(data)
		if err != nil {
			f.Fatal(err)
		}
		s.Pods = s.Pods[:1]
		f.Add(encode(s))
	}
	for _, tc := range errorCases {
		f.Add([]byte(tc.in))
	}
	f.Add([]byte(`{"pods":[{"podRef":{"name":"a","namespace":"b","uid":"c"},"memory":{"workingSetBytes":1}}]}`))
	f.Add([]byte(`{"node":{"systemContainers":[{"name":"pods","memory":{"availableBytes":1,"workingSetBytes":2}}]}}`))
	// A time that UTC cannot write with four-digit years.
	f.Add([]byte(`{"node":{"memory":{"time":"9999-12-31T23:59:59.5-23:59"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode(data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "statsummary: ") {
				t.Fatalf("error without prefix: %v", err)
			}
			n := 0
			for _, kind := range []error{ErrSyntax, ErrWrongType, ErrNegative, ErrInvalidNumber, ErrInvalidTime} {
				if errors.Is(err, kind) {
					n++
				}
			}
			if n != 1 {
				t.Fatalf("%v wraps %d sentinels", err, n)
			}
			if errors.Is(err, ErrSyntax) == json.Valid(data) {
				t.Fatalf("syntax error %v, but json.Valid says %v", err, json.Valid(data))
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("decoded invalid JSON %q", data)
		}
		again, err := Decode(encode(s))
		if err != nil {
			t.Fatalf("re-encoded summary does not decode: %v", err)
		}
		if msg := diffSummary(s, again); msg != "" {
			t.Fatalf("round trip changed the summary: %s", msg)
		}
	})
}
