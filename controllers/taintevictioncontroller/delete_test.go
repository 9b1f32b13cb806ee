package taintevictioncontroller

import (
	"context"
	"errors"
	"fmt"
	"net/http"
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

// One call, one attempt: a failed delete returns the API's error at once,
// for the eviction queue to retry.
func TestDeletePodOneAttempt(t *testing.T) {
	client := fake.NewClientset(testPod("u1"))
	n := 0
	client.PrependReactor("delete", "pods", func(clienttesting.Action) (bool, runtime.Object, error) {
		n++
		return true, nil, apierrors.NewInternalError(errors.New("boom"))
	})
	d := deleter{client: client, now: func() time.Time { return now }}
	deleted, err := d.deletePod(context.Background(), eviction("u1"))
	if deleted || !apierrors.IsInternalError(err) {
		t.Fatalf("deletePod = %v, %v; want false and the API's internal error", deleted, err)
	}
	if n != 1 {
		t.Errorf("%d delete calls, want 1", n)
	}
}

func TestPermanent(t *testing.T) {
	gr := v1.Resource("pods")
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"403 from a webhook", apierrors.NewForbidden(gr, "p", errors.New("denied by webhook")), true},
		{"422", apierrors.NewInvalid(v1.SchemeGroupVersion.WithKind("Pod").GroupKind(), "p", nil), true},
		{"400", apierrors.NewBadRequest("no"), true},
		{"401", apierrors.NewUnauthorized("who"), true},
		{"405", apierrors.NewMethodNotSupported(gr, "delete"), true},
		{"404", apierrors.NewNotFound(gr, "p"), false},
		{"408", apierrors.NewGenericServerResponse(http.StatusRequestTimeout, "delete", gr, "p", "", 0, false), false},
		{"409", apierrors.NewConflict(gr, "p", errors.New("uid")), false},
		{"429", apierrors.NewTooManyRequests("slow down", 1), false},
		{"500", apierrors.NewInternalError(errors.New("boom")), false},
		{"503", apierrors.NewServiceUnavailable("down"), false},
		{"504", apierrors.NewTimeoutError("slow", 1), false},
		{"no status: the connection failed", errors.New("connection refused"), false},
		{"wrapped 403", fmt.Errorf("deleting: %w", apierrors.NewForbidden(gr, "p", errors.New("no"))), true},
	} {
		if got := permanent(tc.err); got != tc.want {
			t.Errorf("%s: permanent(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// A conflict on the delete or the status patch fails the attempt, which
// the queue retries: the next attempt's read finds the same pod (so the
// conflict passed) and deletes it, or a pod of another UID under the name,
// which it leaves alone.
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
			if _, err := d.deletePod(context.Background(), eviction("u1")); !apierrors.IsConflict(err) {
				t.Fatalf("first attempt: %v, want the conflict", err)
			}
			deleted, err := d.deletePod(context.Background(), eviction("u1"))
			if err != nil || deleted != tc.deleted {
				t.Fatalf("second attempt = %v, %v; want %v, nil", deleted, err, tc.deleted)
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
