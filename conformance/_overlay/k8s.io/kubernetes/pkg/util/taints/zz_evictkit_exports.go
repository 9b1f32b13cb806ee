// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance
// adds it to this package with `go test -overlay` so that its differential
// tests can call the package's unexported helpers. It only names them.

package taints

var ParseTaint = parseTaint
