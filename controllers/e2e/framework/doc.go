// Package framework runs a real Kubernetes control plane for end-to-end
// tests: etcd, kube-apiserver and optionally kube-controller-manager, built
// from source at [Version] and started as child processes of the test on free
// 127.0.0.1 ports.
//
//	cp := framework.Start(t, framework.Options{
//		ControllerManager: &framework.ControllerManager{Controllers: []string{"*", "-taint-eviction-controller"}},
//	})
//	pods, err := cp.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
//
// It mirrors what Kubernetes' test/integration/framework and
// controller-runtime's envtest do, with nothing installed beforehand: [Build]
// compiles the binaries once from the tools module (controllers/e2e/tools) and
// caches them by the module's go.sum, the Go version and the build flags.
//
// # Guarantees
//
//   - Every server is ready when Start returns: etcd answers /health,
//     kube-apiserver /readyz, kube-controller-manager has created the default
//     service account. Every wait is bounded.
//   - Every child process is stopped when the test ends, and dies with the
//     test binary if that is killed. If the test failed, the last lines of
//     each log are printed and the files are kept.
//   - kube-apiserver authenticates an administrator by bearer token,
//     authorizes with RBAC, signs service-account tokens with a key pair made
//     for the run, and serves a certificate it makes itself; Config trusts it.
//   - No kubelet and no scheduler run: a test binds pods itself (spec.nodeName),
//     posts node status and renews node Leases. The ServiceAccount admission
//     plugin is off, since nothing would mount the tokens.
package framework
