package manager

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// TestDeployManager: deploy/manager/ runs evictkit-controller-manager under
// its own service account, which is bound to the roles deploy/rbac.yaml
// gives each controller it hosts (the node Leases' Role included) and to a
// leader Role of its own Lease alone; nothing else is granted.
func TestDeployManager(t *testing.T) {
	const name = "evictkit-controller-manager"
	data, err := os.ReadFile("../../../deploy/manager/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	bound := map[string]bool{} // "Kind/name" of each role bound
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			t.Fatal(err)
		}
		switch meta.Kind {
		case "ClusterRoleBinding", "RoleBinding":
			var b rbacv1.RoleBinding // a ClusterRoleBinding has the same fields
			if err := yaml.UnmarshalStrict(doc, &b); err != nil {
				t.Fatal(err)
			}
			if len(b.Subjects) != 1 || b.Subjects[0].Name != name || b.Subjects[0].Namespace != "kube-system" {
				t.Errorf("%s binds %+v, want only kube-system/%s", b.Name, b.Subjects, name)
			}
			bound[b.RoleRef.Kind+"/"+b.RoleRef.Name] = true
		case "Role":
			var r rbacv1.Role
			if err := yaml.UnmarshalStrict(doc, &r); err != nil {
				t.Fatal(err)
			}
			for _, rule := range r.Rules {
				if !slices.Equal(rule.Resources, []string{"leases"}) || r.Namespace != "evictkit-system" ||
					(!slices.Equal(rule.Verbs, []string{"create"}) && !slices.Equal(rule.ResourceNames, []string{name})) {
					t.Errorf("Role %s grants %+v, want its own Lease in evictkit-system only", r.Name, rule)
				}
			}
		case "ServiceAccount":
		default:
			t.Errorf("deploy/manager/rbac.yaml holds a %s", meta.Kind)
		}
	}
	want := []string{"Role/evictkit:node-lifecycle-controller:node-leases", "Role/evictkit:" + name + ":leader"}
	for _, n := range managerProgram.Controllers {
		want = append(want, "ClusterRole/evictkit:"+n().Name())
	}
	for _, w := range want {
		if !bound[w] {
			t.Errorf("no binding to %s", w)
		}
	}
	if len(bound) != len(want) {
		t.Errorf("bound %v, want %v", bound, want)
	}

	data, err = os.ReadFile("../../../deploy/manager/" + name + ".yaml")
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.UnmarshalStrict(data, &d); err != nil {
		t.Fatal(err)
	}
	pod := d.Spec.Template.Spec
	if pod.ServiceAccountName != name || len(pod.Containers) != 1 || !strings.HasSuffix(pod.Containers[0].Image, "/controllers/cmd/"+name) {
		t.Errorf("service account %s, containers %+v; want %s and its image", pod.ServiceAccountName, pod.Containers, name)
	}
	if _, err := managerProgram.parse(pod.Containers[0].Args, nil); err != nil {
		t.Errorf("the manifest's args: %v", err)
	}
}
