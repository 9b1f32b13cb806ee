// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance
// adds it to this package with `go test -overlay` so that its differential
// tests can call the package's unexported helpers. It only names them.

package scheduler

import "time"

// SetNow makes the package read the time from f and returns a function that
// restores the previous source.
func SetNow(f func() time.Time) (restore func()) {
	old := now
	now = f
	return func() { now = old }
}
