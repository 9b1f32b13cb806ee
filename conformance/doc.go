// Package conformance proves github.com/evictkit/eviction equal to
// Kubernetes v1.37.2 and measures the two side by side. It holds no library
// code: only differential tests (one file per library package), the shared
// generators in internal/gen, and benchmarks.
//
// Each differential test draws inputs with rapid, hands the same inputs to
// the upstream function and to the library, and requires identical answers.
// Where upstream is random or racy, the library's answer must be one of
// upstream's possible answers; where the library deliberately differs, the
// test asserts the library's side and names upstream's in a comment.
//
// This module is separate so that the library's importers never see
// k8s.io/kubernetes. It reaches upstream's unexported helpers through a file
// overlay of alias files; see README.md for the recipe.
package conformance
