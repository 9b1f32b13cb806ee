package nodelifecyclecontroller

import (
	"bytes"
	"os"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
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
			"nodes":        {"get", "list", "watch", "update"},
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
