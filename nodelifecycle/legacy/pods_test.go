package legacy

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPlanPodDeletion: every pod of the node gets NodeLost; terminating and DaemonSet pods
// stay, the others are deleted; pods elsewhere are untouched.
func TestPlanPodDeletion(t *testing.T) {
	dsLabels := map[string]string{"app": "agent"}
	dss := []*appsv1.DaemonSet{
		daemonSet("kube-system", &metav1.LabelSelector{MatchLabels: dsLabels}),
		daemonSet("default", &metav1.LabelSelector{}), // empty selector matches nothing
		daemonSet("default", nil),                     // nil selector matches nothing
		daemonSet("default", &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Bogus"}}}), // invalid
	}
	terminating := podIn("default", "terminating", "n0", nil)
	terminating.DeletionGracePeriodSeconds = ptr(int64(30))
	ownedByDS := podIn("default", "owned", "n0", map[string]string{"app": "other"})
	ownedByDS.OwnerReferences = []metav1.OwnerReference{{Kind: "DaemonSet", Name: "ds", Controller: ptr(true)}}
	alreadyLost := podIn("default", "lost", "n0", nil)
	alreadyLost.Status.Reason = PodReasonNodeLost

	cases := []struct {
		name     string
		pod      *v1.Pod
		fate     PodFate
		nodeLost bool
	}{
		{"plain pod: NodeLost status, then deleted", podIn("default", "plain", "n0", nil), PodDelete, true},
		{"DaemonSet-selected pod in the same namespace: NodeLost, kept", podIn("kube-system", "agent", "n0", dsLabels), PodDaemonSet, true},
		{"terminating pod: kept, remaining", terminating, PodTerminating, true},
		{"pod on another node: untouched", podIn("default", "elsewhere", "n1", nil), PodElsewhere, false},
		{"DaemonSet-selected labels in another namespace: deleted", podIn("default", "agent2", "n0", dsLabels), PodDelete, true},
		{"DaemonSet owner reference without a matching selector: deleted", ownedByDS, PodDelete, true},
		{"reason already NodeLost: no status write", alreadyLost, PodDelete, false},
	}
	var pods []*v1.Pod
	for _, tc := range cases {
		pods = append(pods, tc.pod)
	}
	before := make([]*v1.Pod, len(pods))
	for i, p := range pods {
		before[i] = p.DeepCopy()
	}
	plan := PlanPodDeletion(pods, "n0", NewDaemonSets(dss))
	require.Len(t, plan, len(cases))
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := plan[i]
			assert.Same(t, tc.pod, d.Pod)
			assert.Equal(t, tc.fate, d.Fate)
			if !tc.nodeLost {
				assert.Nil(t, d.NodeLost)
				return
			}
			require.NotNil(t, d.NodeLost)
			assert.Equal(t, PodReasonNodeLost, d.NodeLost.Status.Reason)
			assert.Equal(t, "Node n0 which was running pod "+tc.pod.Name+" is unresponsive", d.NodeLost.Status.Message)
		})
	}
	assert.Equal(t, before, pods, "pods not modified")
	assert.Empty(t, PlanPodDeletion(nil, "n0", DaemonSets{}))
	assert.Equal(t, []PodDeletion{{}}, PlanPodDeletion([]*v1.Pod{nil}, "n0", DaemonSets{}))
}

func TestDaemonSetsMatches(t *testing.T) {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "a"}}
	cases := []struct {
		name string
		pod  *v1.Pod
		dss  []*appsv1.DaemonSet
		want bool
	}{
		{"selector matches, same namespace", podIn("ns", "p", "n", map[string]string{"app": "a", "x": "y"}), []*appsv1.DaemonSet{daemonSet("ns", sel)}, true},
		{"other namespace", podIn("ns", "p", "n", map[string]string{"app": "a"}), []*appsv1.DaemonSet{daemonSet("other", sel)}, false},
		{"no labels never match", podIn("ns", "p", "n", nil), []*appsv1.DaemonSet{daemonSet("ns", &metav1.LabelSelector{})}, false},
		{"empty selector matches nothing", podIn("ns", "p", "n", map[string]string{"app": "a"}), []*appsv1.DaemonSet{daemonSet("ns", &metav1.LabelSelector{})}, false},
		{"nil DaemonSet and nil pod are ignored", nil, []*appsv1.DaemonSet{nil}, false},
		{"second DaemonSet matches", podIn("ns", "p", "n", map[string]string{"app": "a"}), []*appsv1.DaemonSet{nil, daemonSet("ns", nil), daemonSet("ns", sel)}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, NewDaemonSets(tc.dss).Matches(tc.pod))
		})
	}
}

func TestPodFateString(t *testing.T) {
	for f, s := range map[PodFate]string{PodElsewhere: "Elsewhere", PodDelete: "Delete", PodTerminating: "Terminating", PodDaemonSet: "DaemonSet", PodFate(8): "PodFate(8)"} {
		assert.Equal(t, s, f.String())
	}
}

func BenchmarkPlanPodDeletion(b *testing.B) {
	dss := NewDaemonSets([]*appsv1.DaemonSet{daemonSet("default", &metav1.LabelSelector{MatchLabels: map[string]string{"app": "agent"}})})
	for _, n := range []int{10, 110} {
		var pods []*v1.Pod
		for i := range n {
			l := map[string]string{"app": "web"}
			if i%10 == 0 {
				l["app"] = "agent"
			}
			pods = append(pods, podIn("default", fmt.Sprintf("p%d", i), "n0", l))
		}
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = PlanPodDeletion(pods, "n0", dss)
			}
		})
	}
}
