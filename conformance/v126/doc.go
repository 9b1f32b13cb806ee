// Package v126 holds the differential test of package nodelifecycle/legacy (the legacy
// pod-eviction mode, --enable-taint-manager=false) against Kubernetes v1.26.15's node
// lifecycle controller.
//
// Upstream v1.26.15 needs k8s.io/api and k8s.io/apimachinery v0.26.15, and the library needs
// packages that v0.26 does not have (k8s.io/apimachinery/pkg/util/resourceversion,
// k8s.io/apimachinery/pkg/api/validate/content), so one module cannot build both. Upstream
// runs in a helper program from the module in upstream/ (see its main.go), which reads
// scenarios as JSON lines and prints what the controller did; this module's test generates the
// scenarios, runs them through the library and compares. scripts/conformance-v126 builds the
// helper and runs the test.
package v126
