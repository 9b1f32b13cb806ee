package taintevictioncontroller

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/evictkit/eviction/tainteviction"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func testPod(uid types.UID) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", UID: uid, Generation: 3},
		Spec:       v1.PodSpec{NodeName: "n"},
		Status:     v1.PodStatus{Phase: v1.PodRunning},
	}
}

func eviction(uid types.UID) tainteviction.Eviction {
	return tainteviction.Eviction{Pod: types.NamespacedName{Namespace: "ns", Name: "p"}, UID: uid, Node: "n"}
}

// verbs lists the client's actions as "verb" or "verb/subresource".
func verbs(c *fake.Clientset) []string {
	var out []string
	for _, a := range c.Actions() {
		v := a.GetVerb()
		if s := a.GetSubresource(); s != "" {
			v += "/" + s
		}
		out = append(out, v)
	}
	return out
}

func TestDeletePod(t *testing.T) {
	client := fake.NewClientset(testPod("u1"))
	d := deleter{client: client, now: func() time.Time { return now }}
	deleted, err := d.deletePod(context.Background(), eviction("u1"))
	if err != nil || !deleted {
		t.Fatalf("deletePod = %v, %v; want true, nil", deleted, err)
	}
	if got, want := verbs(client), []string{"get", "patch/status", "delete"}; !slices.Equal(got, want) {
		t.Errorf("actions = %v, want %v", got, want)
	}
	patch := client.Actions()[1].(clienttesting.PatchAction)
	if patch.GetPatchType() != types.StrategicMergePatchType {
		t.Errorf("patch type = %v, want strategic merge", patch.GetPatchType())
	}
	for _, want := range []string{`"uid":"u1"`, `"reason":"DeletionByTaintManager"`, `"type":"DisruptionTarget"`, `"observedGeneration":3`} {
		if !strings.Contains(string(patch.GetPatch()), want) {
			t.Errorf("patch %s lacks %s", patch.GetPatch(), want)
		}
	}
	del := client.Actions()[2].(clienttesting.DeleteAction)
	if pre := del.GetDeleteOptions().Preconditions; pre == nil || pre.UID == nil || *pre.UID != "u1" {
		t.Errorf("delete preconditions = %+v, want UID u1", pre)
	}
}

func TestDeletePodGoneOrReplaced(t *testing.T) {
	for _, tc := range []struct {
		name string
		objs []runtime.Object
		want []string
	}{
		{"pod gone", nil, []string{"get"}},
		{"same name, another UID", []runtime.Object{testPod("u2")}, []string{"get"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(tc.objs...)
			d := deleter{client: client, now: func() time.Time { return now }}
			deleted, err := d.deletePod(context.Background(), eviction("u1"))
			if err != nil || deleted {
				t.Fatalf("deletePod = %v, %v; want false, nil", deleted, err)
			}
			if got := verbs(client); !slices.Equal(got, tc.want) {
				t.Errorf("actions = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestDeletePodRetries(t *testing.T) {
	fail := errors.New("boom")
	for _, tc := range []struct {
		name     string
		failures int
		wantErr  bool
		deletes  int
	}{
		{"two server errors, then success", 2, false, 3},
		{"every attempt fails", 10, true, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(testPod("u1"))
			n := 0
			client.PrependReactor("delete", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
				n++
				if n <= tc.failures {
					return true, nil, apierrors.NewInternalError(fail)
				}
				return false, nil, nil
			})
			d := deleter{client: client, now: func() time.Time { return now }}
			deleted, err := d.deletePod(context.Background(), eviction("u1"))
			if (err != nil) != tc.wantErr || deleted == tc.wantErr {
				t.Fatalf("deletePod = %v, %v; want error %v", deleted, err, tc.wantErr)
			}
			if tc.wantErr && !errors.Is(err, fail) && !apierrors.IsInternalError(err) {
				t.Errorf("error %v does not wrap the API's", err)
			}
			if n != tc.deletes {
				t.Errorf("%d delete calls, want %d", n, tc.deletes)
			}
		})
	}
}

// A conflict on the delete or the status patch is tried again: the next
// attempt's read finds the same pod (so the conflict passed) and deletes it,
// or a pod of another UID under the name, which it leaves alone.
func TestDeletePodConflicts(t *testing.T) {
	conflict := func(resource string) clienttesting.ReactionFunc {
		n := 0
		return func(clienttesting.Action) (bool, runtime.Object, error) {
			if n++; n == 1 {
				return true, nil, apierrors.NewConflict(v1.Resource(resource), "p", errors.New("injected"))
			}
			return false, nil, nil
		}
	}
	for _, tc := range []struct {
		name     string
		verb     string
		replaced bool // the conflict is the pod replaced under its name
		want     []string
		deleted  bool
	}{
		{"delete conflict passes", "delete", false, []string{"get", "patch/status", "delete", "get", "delete"}, true},
		{"patch conflict passes", "patch", false, []string{"get", "patch/status", "get", "patch/status", "delete"}, true},
		{"pod replaced before the delete", "delete", true, []string{"get", "patch/status", "delete", "get"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			client := fake.NewClientset(testPod("u1"))
			react := conflict("pods")
			client.PrependReactor(tc.verb, "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
				handled, obj, err := react(a)
				if handled && tc.replaced {
					// Another pod took the name: the old one is gone.
					if err := client.Tracker().Delete(v1.SchemeGroupVersion.WithResource("pods"), "ns", "p"); err != nil {
						t.Fatal(err)
					}
					if err := client.Tracker().Add(testPod("u2")); err != nil {
						t.Fatal(err)
					}
				}
				return handled, obj, err
			})
			d := deleter{client: client, now: func() time.Time { return now }}
			deleted, err := d.deletePod(context.Background(), eviction("u1"))
			if err != nil || deleted != tc.deleted {
				t.Fatalf("deletePod = %v, %v; want %v, nil", deleted, err, tc.deleted)
			}
			if got := verbs(client); !slices.Equal(got, tc.want) {
				t.Errorf("actions = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestConditionPatchUnchanged(t *testing.T) {
	pod := testPod("u1")
	status, _ := tainteviction.DisruptedStatus(pod, now)
	pod.Status = status
	if _, changed, err := conditionPatch(pod, now.Add(time.Minute)); err != nil || changed {
		t.Errorf("conditionPatch of a pod that has the condition = changed %v, %v; want no patch", changed, err)
	}
}
