package nodelifecyclecontroller

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"

	"github.com/evictkit/eviction/controllers/internal/command"
)

// TestDeployRBAC: deploy/rbac.yaml grants the node lifecycle controller what
// it reads and writes, the events included, and nothing more; every events
// rule in it is core/v1 create and patch, what client-go's recorder does.
func TestDeployRBAC(t *testing.T) {
	data, err := os.ReadFile("../../deploy/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal(doc, &role); err != nil {
			t.Fatal(err)
		}
		if role.Kind != "ClusterRole" {
			continue
		}
		got := map[string][]string{}
		for _, r := range role.Rules {
			for _, res := range r.Resources {
				got[res] = r.Verbs
				if res == "events" && (!slices.Equal(r.APIGroups, []string{""}) || !slices.Equal(r.Verbs, []string{"create", "patch"})) {
					t.Errorf("%s: events rule %+v, want core group, create and patch", role.Name, r)
				}
			}
		}
		if role.Name != "evictkit:"+ControllerName {
			continue
		}
		found = true
		want := map[string][]string{
			"nodes":        {"get", "list", "watch", "patch"},
			"nodes/status": {"update"},
			"pods":         {"get", "list", "watch"},
			"pods/status":  {"update"},
			"events":       {"create", "patch"},
		}
		if len(got) != len(want) {
			t.Errorf("%s grants %v, want %v", role.Name, got, want)
		}
		for res, verbs := range want {
			if !slices.Equal(got[res], verbs) {
				t.Errorf("%s: %s: %v, want %v", role.Name, res, got[res], verbs)
			}
		}
	}
	if !found {
		t.Errorf("no ClusterRole evictkit:%s", ControllerName)
	}
}

// TestDeployLeaderLeases: each program's leader Role lives in
// evictkit-system (the default of --leader-elect-resource-namespace, a
// namespace rbac.yaml creates), grants get and update on the program's own
// Lease only, and create (which RBAC cannot limit by name) nowhere else: no
// Role of rbac.yaml touches Leases in kube-system.
func TestDeployLeaderLeases(t *testing.T) {
	data, err := os.ReadFile("../../deploy/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var namespaced bool
	leaders := map[string]bool{}
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var obj struct {
			Kind     string
			Metadata struct{ Name, Namespace string }
		}
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			t.Fatal(err)
		}
		if obj.Kind == "Namespace" && obj.Metadata.Name == command.DefaultLeaseNamespace {
			namespaced = true
		}
		if obj.Kind != "Role" {
			continue
		}
		var role rbacv1.Role
		if err := yaml.UnmarshalStrict(doc, &role); err != nil {
			t.Fatal(err)
		}
		for _, r := range role.Rules {
			if !slices.Contains(r.Resources, "leases") || !slices.Equal(r.APIGroups, []string{"coordination.k8s.io"}) {
				continue
			}
			if role.Namespace == "kube-node-lease" {
				if !slices.Equal(r.Verbs, []string{"get", "list", "watch"}) || len(r.ResourceNames) > 0 {
					t.Errorf("%s: node Leases rule %+v, want get, list and watch", role.Name, r)
				}
				continue
			}
			if role.Namespace != command.DefaultLeaseNamespace {
				t.Errorf("%s: a Leases rule in %q, want them in %s only", role.Name, role.Namespace, command.DefaultLeaseNamespace)
				continue
			}
			program, ok := strings.CutSuffix(strings.TrimPrefix(role.Name, "evictkit:"), ":leader")
			if !ok {
				t.Errorf("%s: Leases rule in an unexpected Role", role.Name)
				continue
			}
			switch {
			case slices.Equal(r.Verbs, []string{"create"}) && len(r.ResourceNames) == 0:
			case slices.Equal(r.Verbs, []string{"get", "update"}) && slices.Equal(r.ResourceNames, []string{program}):
				leaders[program] = true
			default:
				t.Errorf("%s: rule %+v, want create, or get and update on Lease %s only", role.Name, r, program)
			}
		}
	}
	if !namespaced {
		t.Errorf("rbac.yaml creates no Namespace %s", command.DefaultLeaseNamespace)
	}
	for _, program := range []string{ControllerName, "taint-eviction-controller", "device-taint-eviction-controller"} {
		if !leaders[program] {
			t.Errorf("no leader Role for %s with get and update on its own Lease", program)
		}
	}
}

// TestDeployPlacement: both controller Deployments run on control-plane
// nodes only (a node selector, and the toleration of the control plane's
// taint), not on workers, whose compromise would hand over their
// cluster-wide rights; and they lead on a Lease in the default namespace
// (no flag overrides it).
func TestDeployPlacement(t *testing.T) {
	for _, program := range []string{ControllerName, "taint-eviction-controller", "device-taint-eviction-controller"} {
		data, err := os.ReadFile("../../deploy/" + program + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		var d appsv1.Deployment
		if err := yaml.UnmarshalStrict(data, &d); err != nil {
			t.Fatal(err)
		}
		pod := d.Spec.Template.Spec
		if v, ok := pod.NodeSelector["node-role.kubernetes.io/control-plane"]; !ok || v != "" || len(pod.NodeSelector) != 1 {
			t.Errorf("%s: nodeSelector %v, want node-role.kubernetes.io/control-plane only", program, pod.NodeSelector)
		}
		want := v1.Toleration{Key: "node-role.kubernetes.io/control-plane", Operator: v1.TolerationOpExists, Effect: v1.TaintEffectNoSchedule}
		if !slices.Contains(pod.Tolerations, want) {
			t.Errorf("%s: tolerations %v, want %v among them", program, pod.Tolerations, want)
		}
		for _, c := range pod.Containers {
			for _, a := range c.Args {
				if strings.HasPrefix(a, "--leader-elect-resource-namespace") {
					t.Errorf("%s: %s, want the default %s", program, a, command.DefaultLeaseNamespace)
				}
			}
		}
	}
}
