package devicetaintevictioncontroller

import (
	"bytes"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// TestDeployRBAC: deploy/rbac.yaml grants the controller what it reads and
// writes and nothing more: pods get, list, watch and delete, pods/status
// patch, list and watch of the four resource.k8s.io kinds it watches,
// devicetaintrules/status patch, core/v1 events create and patch.
func TestDeployRBAC(t *testing.T) {
	data, err := os.ReadFile("../../deploy/rbac.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"/pods":                                   {"get", "list", "watch", "delete"},
		"/pods/status":                            {"patch"},
		"resource.k8s.io/resourceclaims":          {"list", "watch"},
		"resource.k8s.io/resourceslices":          {"list", "watch"},
		"resource.k8s.io/deviceclasses":           {"list", "watch"},
		"resource.k8s.io/devicetaintrules":        {"list", "watch"},
		"resource.k8s.io/devicetaintrules/status": {"patch"},
		"/events": {"create", "patch"},
	}
	var found bool
	for _, doc := range bytes.Split(data, []byte("\n---\n")) {
		var role rbacv1.ClusterRole
		if err := yaml.Unmarshal(doc, &role); err != nil {
			t.Fatal(err)
		}
		if role.Kind != "ClusterRole" || role.Name != "evictkit:"+ControllerName {
			continue
		}
		found = true
		got := map[string][]string{}
		for _, r := range role.Rules {
			if len(r.ResourceNames) > 0 || len(r.NonResourceURLs) > 0 {
				t.Errorf("rule %+v: want no resourceNames or URLs", r)
			}
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					got[g+"/"+res] = r.Verbs
				}
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s grants %v, want %v", role.Name, got, want)
		}
	}
	if !found {
		t.Errorf("no ClusterRole evictkit:%s", ControllerName)
	}
}

// TestDeployManifest: deploy/device-taint-eviction-controller.yaml decodes
// strictly, runs the program under its service account with kube-controller-
// manager's default of its flag, and has the pod and container security
// contexts of the taint-eviction controller's manifest.
func TestDeployManifest(t *testing.T) {
	read := func(name string) appsv1.Deployment {
		t.Helper()
		data, err := os.ReadFile("../../deploy/" + name + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		var d appsv1.Deployment
		if err := yaml.UnmarshalStrict(data, &d); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return d
	}
	d, sibling := read(ControllerName), read("taint-eviction-controller")
	pod := d.Spec.Template.Spec
	if d.Name != ControllerName || pod.ServiceAccountName != ControllerName {
		t.Errorf("name %s, service account %s; want %s", d.Name, pod.ServiceAccountName, ControllerName)
	}
	if len(pod.Containers) != 1 || !strings.HasSuffix(pod.Containers[0].Image, "/controllers/cmd/"+ControllerName) {
		t.Fatalf("containers %+v, want the program's image", pod.Containers)
	}
	c, sc := pod.Containers[0], sibling.Spec.Template.Spec.Containers[0]
	if !slices.Contains(c.Args, "--concurrent-device-taint-eviction-syncs=8") || !slices.Contains(c.Args, "--leader-elect=true") {
		t.Errorf("args %v", c.Args)
	}
	if !reflect.DeepEqual(pod.SecurityContext, sibling.Spec.Template.Spec.SecurityContext) ||
		!reflect.DeepEqual(c.SecurityContext, sc.SecurityContext) {
		t.Errorf("security contexts %+v / %+v, want the taint-eviction controller's %+v / %+v",
			pod.SecurityContext, c.SecurityContext, sibling.Spec.Template.Spec.SecurityContext, sc.SecurityContext)
	}
}
