package preemptionplugin_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	clienttesting "k8s.io/client-go/testing"
	fwk "k8s.io/kube-scheduler/framework"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/preemption"
	"github.com/evictkit/eviction/scheduler/preemptionplugin"
)

// metricCalls records the calls a Metrics receives, as lines.
type metricCalls struct {
	mu    sync.Mutex
	calls []string
}

var _ preemptionplugin.Metrics = (*metricCalls)(nil)

func (m *metricCalls) add(format string, args ...any) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls = append(m.calls, fmt.Sprintf(format, args...))
}

func (m *metricCalls) Attempt() { m.add("attempt") }
func (m *metricCalls) Evaluated(result string, took time.Duration) {
	m.add("evaluated %s %v", result, took)
}
func (m *metricCalls) Chosen(victims, pdbViolations int) {
	m.add("chosen victims=%d violations=%d", victims, pdbViolations)
}
func (m *metricCalls) Executed(result string, took time.Duration) {
	m.add("executed %s %v", result, took)
}

func (m *metricCalls) list() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.calls)
}

// TestMetrics: the plugin reports what DefaultPreemption records, at the
// same moments: an attempt per call; the evaluation with its status code;
// the chosen victims and PDB violations before actuation; and the
// background preemption's result, only when it had something to preempt.
// The fake clock does not move, so every duration is 0.
func TestMetrics(t *testing.T) {
	db := map[string]string{"app": "db"}
	budget := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: new(intstr.FromInt32(2)), Selector: &metav1.LabelSelector{MatchLabels: db}},
	}
	never := v1.PreemptNever
	for _, tc := range []struct {
		name      string
		cluster   cluster
		preemptor *v1.Pod
		fail      bool // every write fails
		missing   bool // the preemptor is not in the informer
		want      []string
		wantCode  fwk.Code
	}{{
		name:      "preempts",
		cluster:   cluster{nodes: []*v1.Node{makeNode("n1", 4000)}, pods: []*v1.Pod{makePod("v1", 10, 2000, "n1", db), makePod("v2", 20, 2000, "n1", db)}, pdbs: []*policyv1.PodDisruptionBudget{budget}},
		preemptor: makePod("p", 1000, 4000, "", nil),
		want:      []string{"evaluated Success 0s", "chosen victims=2 violations=2", "attempt", "executed success 0s"},
		wantCode:  fwk.Success,
	}, {
		name:      "API calls fail",
		cluster:   cluster{nodes: []*v1.Node{makeNode("n1", 4000)}, pods: []*v1.Pod{makePod("v1", 10, 4000, "n1", nil)}},
		preemptor: makePod("p", 1000, 4000, "", nil),
		fail:      true,
		want:      []string{"evaluated Success 0s", "chosen victims=1 violations=0", "attempt", "executed error 0s"},
		wantCode:  fwk.Success,
	}, {
		name: "victims already terminating",
		cluster: cluster{nodes: []*v1.Node{makeNode("n1", 4000)}, pods: []*v1.Pod{func() *v1.Pod {
			p := makePod("v1", 10, 4000, "n1", nil)
			p.DeletionTimestamp = &metav1.Time{Time: start}
			return p
		}()}},
		preemptor: makePod("p", 1000, 4000, "", nil),
		want:      []string{"evaluated Success 0s", "chosen victims=1 violations=0", "attempt"},
		wantCode:  fwk.Success,
	}, {
		name:      "not eligible",
		cluster:   threeNodes(),
		preemptor: func() *v1.Pod { p := makePod("p", 1000, 2000, "", nil); p.Spec.PreemptionPolicy = &never; return p }(),
		want:      []string{"evaluated Unschedulable 0s", "attempt"},
		wantCode:  fwk.Unschedulable,
	}, {
		name:      "no candidate",
		cluster:   threeNodes(),
		preemptor: makePod("p", 1000, 8000, "", nil),
		want:      []string{"evaluated Unschedulable 0s", "attempt"},
		wantCode:  fwk.Unschedulable,
	}, {
		name:      "preemptor gone",
		cluster:   threeNodes(),
		preemptor: makePod("p", 1000, 2000, "", nil),
		missing:   true,
		want:      []string{"evaluated Error 0s", "attempt"},
		wantCode:  fwk.Error,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.cluster
			if !tc.missing {
				c.pending = []*v1.Pod{tc.preemptor}
			}
			h := c.handle(t)
			if tc.fail {
				h.client.PrependReactor("*", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
					if a.GetVerb() == "get" || a.GetVerb() == "list" || a.GetVerb() == "watch" {
						return false, nil, nil
					}
					return true, nil, apierrors.NewInternalError(fmt.Errorf("injected"))
				})
			}
			m := &metricCalls{}
			pl, err := preemptionplugin.NewWithOptions(context.Background(), nil, h, preemptionplugin.Options{
				Clock:   clocktesting.NewFakePassiveClock(start.Add(time.Hour)),
				Offset:  preemption.FixedOffset(0),
				Metrics: m,
			})
			require.NoError(t, err)
			_, st := pl.PostFilter(context.Background(), cycleState{}, tc.preemptor, c.statusReader())
			assert.Equal(t, tc.wantCode, st.Code(), st.Message())
			waitFor(t, "the metrics", func() bool { return len(m.list()) >= len(tc.want) })
			assert.Equal(t, tc.want, m.list())
		})
	}
}
