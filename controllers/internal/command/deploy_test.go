package command

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// deployDocs returns every YAML document under deploy/, by "file#index".
func deployDocs(t *testing.T) map[string][]byte {
	t.Helper()
	docs := map[string][]byte{}
	root := filepath.Join("..", "..", "..", "deploy")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (filepath.Ext(path) != ".yaml" && filepath.Ext(path) != ".yml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for i, doc := range bytes.Split(data, []byte("\n---\n")) {
			docs[rel+"#"+strconv.Itoa(i)] = doc
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatalf("no YAML under %s", root)
	}
	return docs
}

func kindOf(t *testing.T, name string, doc []byte) string {
	t.Helper()
	var meta struct{ Kind string }
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return meta.Kind
}

// TestDeployContainersAreLocked: every workload in deploy/ runs its
// containers as a non-root user, on a read-only root filesystem, without
// privilege escalation, with every capability dropped and none added, under
// the runtime's default seccomp profile; none is privileged or shares the
// node's network, PID or IPC namespace, and none mounts a host path.
func TestDeployContainersAreLocked(t *testing.T) {
	workloads := 0
	for name, doc := range deployDocs(t) {
		var spec v1.PodSpec
		switch kindOf(t, name, doc) {
		case "Deployment":
			var d appsv1.Deployment
			if err := yaml.UnmarshalStrict(doc, &d); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			spec = d.Spec.Template.Spec
		case "DaemonSet":
			var d appsv1.DaemonSet
			if err := yaml.UnmarshalStrict(doc, &d); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			spec = d.Spec.Template.Spec
		case "StatefulSet", "Job", "CronJob", "Pod", "ReplicaSet":
			t.Errorf("%s: a workload kind this test does not read; teach it", name)
			continue
		default:
			continue
		}
		workloads++
		if spec.HostNetwork || spec.HostPID || spec.HostIPC {
			t.Errorf("%s: shares a host namespace (network %v, PID %v, IPC %v)", name, spec.HostNetwork, spec.HostPID, spec.HostIPC)
		}
		for _, v := range spec.Volumes {
			if v.HostPath != nil {
				t.Errorf("%s: volume %s mounts host path %s", name, v.Name, v.HostPath.Path)
			}
		}
		pod := spec.SecurityContext
		if pod == nil {
			pod = &v1.PodSecurityContext{}
		}
		for _, c := range append(slices.Clone(spec.InitContainers), spec.Containers...) {
			sc := c.SecurityContext
			if sc == nil {
				t.Errorf("%s: container %s has no securityContext", name, c.Name)
				continue
			}
			where := name + ": container " + c.Name
			if nonRoot := cmpOr(sc.RunAsNonRoot, pod.RunAsNonRoot); nonRoot == nil || !*nonRoot {
				t.Errorf("%s: runAsNonRoot is not true", where)
			}
			if user := cmpOr(sc.RunAsUser, pod.RunAsUser); user != nil && *user == 0 {
				t.Errorf("%s: runs as user 0", where)
			}
			if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
				t.Errorf("%s: readOnlyRootFilesystem is not true", where)
			}
			if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
				t.Errorf("%s: allowPrivilegeEscalation is not false", where)
			}
			if sc.Privileged != nil && *sc.Privileged {
				t.Errorf("%s: privileged", where)
			}
			if sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []v1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0 {
				t.Errorf("%s: capabilities %+v, want drop [ALL] and no add", where, sc.Capabilities)
			}
			seccomp := sc.SeccompProfile
			if seccomp == nil {
				seccomp = pod.SeccompProfile
			}
			if seccomp == nil || seccomp.Type != v1.SeccompProfileTypeRuntimeDefault {
				t.Errorf("%s: seccompProfile %+v, want RuntimeDefault", where, seccomp)
			}
		}
	}
	if workloads < 3 {
		t.Errorf("%d workloads in deploy/, want the three programs'", workloads)
	}
}

// cmpOr is the container's setting, else the pod's.
func cmpOr[T any](container, pod *T) *T {
	if container != nil {
		return container
	}
	return pod
}

// TestDeployGrantsNoNodeProxy: no Role or ClusterRole in deploy/ grants
// nodes/proxy (which reaches the kubelet's exec), or any right through a
// wildcard, or a verb that hands out more rights (escalate, bind,
// impersonate), or reads secrets.
func TestDeployGrantsNoNodeProxy(t *testing.T) {
	roles := 0
	for name, doc := range deployDocs(t) {
		kind := kindOf(t, name, doc)
		if kind != "Role" && kind != "ClusterRole" {
			continue
		}
		roles++
		var role rbacv1.ClusterRole // a Role's fields are a subset
		if err := yaml.Unmarshal(doc, &role); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if role.AggregationRule != nil {
			t.Errorf("%s %s: aggregates other roles", kind, role.Name)
		}
		for _, r := range role.Rules {
			where := name + " " + kind + " " + role.Name
			for _, res := range r.Resources {
				if res == "nodes/proxy" || strings.Contains(res, "*") || res == "secrets" {
					t.Errorf("%s: grants %v on %s", where, r.Verbs, res)
				}
			}
			for _, v := range r.Verbs {
				if v == "*" || v == "escalate" || v == "bind" || v == "impersonate" {
					t.Errorf("%s: grants verb %s", where, v)
				}
			}
			if slices.Contains(r.APIGroups, "*") || len(r.NonResourceURLs) > 0 {
				t.Errorf("%s: rule %+v reaches every group or non-resource URLs", where, r)
			}
		}
	}
	if roles < 3 {
		t.Errorf("%d roles in deploy/, want at least each program's", roles)
	}
}
