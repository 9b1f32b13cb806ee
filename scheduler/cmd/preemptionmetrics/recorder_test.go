package preemptionmetrics_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/component-base/metrics/testutil"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/metrics"

	"github.com/evictkit/eviction/scheduler/cmd/internal/cycletest"
	"github.com/evictkit/eviction/scheduler/cmd/preemptionmetrics"
)

// registerMetrics registers kube-scheduler's metrics, and also those that
// only a feature gate off by default registers, so that every metric the
// preemption path records can be read.
func registerMetrics() {
	metrics.Register()
	if !utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload) {
		metrics.RegisterMetrics(metrics.PreemptionEvaluationDuration, metrics.PreemptionExecutionDuration, metrics.PreemptionPDBViolations)
	}
	if !utilfeature.DefaultFeatureGate.Enabled(features.SchedulerAsyncPreemption) {
		metrics.RegisterMetrics(metrics.PreemptionGoroutinesDuration, metrics.PreemptionGoroutinesExecutionTotal)
	}
}

// reading is the value of every metric the preemption path records.
type reading struct {
	Attempts                   float64
	VictimsCount               uint64
	VictimsSum                 float64
	PDBViolations              float64
	EvaluatedSuccess           uint64
	EvaluatedUnschedulable     uint64
	ExecutedSuccess            uint64
	GoroutinesDurationSuccess  uint64
	GoroutinesExecutionSuccess float64
}

func read(t *testing.T) reading {
	t.Helper()
	var r reading
	var errs []error
	get := func(v float64, err error) float64 { errs = append(errs, err); return v }
	count := func(v uint64, err error) uint64 { errs = append(errs, err); return v }
	r.Attempts = get(testutil.GetCounterMetricValue(metrics.PreemptionAttempts))
	r.VictimsCount = count(testutil.GetHistogramMetricCount(metrics.PreemptionVictims.ObserverMetric))
	r.VictimsSum = get(testutil.GetHistogramMetricValue(metrics.PreemptionVictims.ObserverMetric))
	r.PDBViolations = get(testutil.GetCounterMetricValue(metrics.PreemptionPDBViolations.WithLabelValues("pod")))
	r.EvaluatedSuccess = count(testutil.GetHistogramMetricCount(metrics.PreemptionEvaluationDuration.WithLabelValues("pod", "Success")))
	r.EvaluatedUnschedulable = count(testutil.GetHistogramMetricCount(metrics.PreemptionEvaluationDuration.WithLabelValues("pod", "Unschedulable")))
	r.ExecutedSuccess = count(testutil.GetHistogramMetricCount(metrics.PreemptionExecutionDuration.WithLabelValues("pod", "success")))
	r.GoroutinesDurationSuccess = count(testutil.GetHistogramMetricCount(metrics.PreemptionGoroutinesDuration.WithLabelValues("success")))
	r.GoroutinesExecutionSuccess = get(testutil.GetCounterMetricValue(metrics.PreemptionGoroutinesExecutionTotal.WithLabelValues("success")))
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// delta is after minus before.
func delta(before, after reading) reading {
	return reading{
		Attempts:                   after.Attempts - before.Attempts,
		VictimsCount:               after.VictimsCount - before.VictimsCount,
		VictimsSum:                 after.VictimsSum - before.VictimsSum,
		PDBViolations:              after.PDBViolations - before.PDBViolations,
		EvaluatedSuccess:           after.EvaluatedSuccess - before.EvaluatedSuccess,
		EvaluatedUnschedulable:     after.EvaluatedUnschedulable - before.EvaluatedUnschedulable,
		ExecutedSuccess:            after.ExecutedSuccess - before.ExecutedSuccess,
		GoroutinesDurationSuccess:  after.GoroutinesDurationSuccess - before.GoroutinesDurationSuccess,
		GoroutinesExecutionSuccess: after.GoroutinesExecutionSuccess - before.GoroutinesExecutionSuccess,
	}
}

// scenario is a small cluster on a real scheduler framework: two nodes of
// 2 cpu, each full with two 1-cpu pods labelled app=db of priority 10,
// covered by a PodDisruptionBudget that allows no disruption, and a
// preemptor of 2 cpu and priority 1000.
type scenario struct {
	ctx       context.Context
	fw        framework.Framework
	state     fwk.CycleState
	preemptor *v1.Pod
	statuses  *framework.NodeToStatus
}

func newScenario(t *testing.T, never bool) *scenario {
	t.Helper()
	start := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	var objs []runtime.Object
	var nodes []*v1.Node
	var pods []*v1.Pod
	statuses := framework.NewDefaultNodeToStatus()
	for i := range 2 {
		name := fmt.Sprintf("n%d", i)
		nodes = append(nodes, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU: resource.MustParse("2"), v1.ResourceMemory: resource.MustParse("8Gi"), v1.ResourcePods: resource.MustParse("110"),
		}}})
		statuses.Set(name, fwk.NewStatus(fwk.Unschedulable, "Insufficient cpu").WithPlugin(noderesources.Name))
		for j := range 2 {
			prio := int32(10)
			p := &v1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("v-%d-%d", i, j), Namespace: "default", UID: types.UID(fmt.Sprintf("v-%d-%d", i, j)), Labels: map[string]string{"app": "db"}},
				Spec: v1.PodSpec{NodeName: name, Priority: &prio, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
					Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("1")},
				}}}},
				Status: v1.PodStatus{Phase: v1.PodRunning, StartTime: &start},
			}
			pods = append(pods, p)
			objs = append(objs, p)
		}
	}
	prio := int32(1000)
	preemptor := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "preemptor", Namespace: "default", UID: "preemptor"},
		Spec: v1.PodSpec{Priority: &prio, SchedulerName: "default-scheduler", Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: resource.MustParse("2")},
		}}}},
	}
	if never {
		policy := v1.PreemptNever
		preemptor.Spec.PreemptionPolicy = &policy
	}
	budget := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{MinAvailable: new(intstr.FromInt32(4)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}},
	}
	objs = append(objs, preemptor, budget)

	client := clientsetfake.NewClientset(objs...)
	informerFactory := informers.NewSharedInformerFactory(client, 0)
	if err := informerFactory.Core().V1().Pods().Informer().GetStore().Add(preemptor); err != nil {
		t.Fatal(err)
	}
	if err := informerFactory.Policy().V1().PodDisruptionBudgets().Informer().GetStore().Add(budget); err != nil {
		t.Fatal(err)
	}
	c := cycletest.New(t, client, informerFactory, pods, nodes, preemptor)
	return &scenario{ctx: c.Ctx, fw: c.FW, state: c.State, preemptor: preemptor, statuses: statuses}
}

// run runs one PostFilter cycle of the plugin built by factory, waits for a
// preemption it started to end, and returns how the metrics moved.
func run(t *testing.T, never bool, factory func(*scenario) fwk.PostFilterPlugin) (reading, *fwk.Status) {
	t.Helper()
	s := newScenario(t, never)
	pl := factory(s)
	before := read(t)
	_, st := pl.PostFilter(s.ctx, s.state, s.preemptor, s.statuses)
	if st.IsSuccess() {
		for i := 0; read(t).GoroutinesExecutionSuccess == before.GoroutinesExecutionSuccess; i++ {
			if i == 2000 {
				t.Fatal("the background preemption did not end")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return delta(before, read(t)), st
}

// TestRecorderMovesTheMetricsAsDefaultPreemption runs DefaultPreemption and
// the plugin with a Recorder on the same cluster, in the same framework,
// and compares how each moved kube-scheduler's preemption metrics.
func TestRecorderMovesTheMetricsAsDefaultPreemption(t *testing.T) {
	registerMetrics()
	upstream := func(s *scenario) fwk.PostFilterPlugin {
		fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
		pl, err := defaultpreemption.New(s.ctx, &config.DefaultPreemptionArgs{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100}, s.fw, fts)
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	ours := func(s *scenario) fwk.PostFilterPlugin {
		pl, err := preemptionmetrics.NewPlugin(s.ctx, nil, s.fw)
		if err != nil {
			t.Fatal(err)
		}
		return pl.(fwk.PostFilterPlugin)
	}
	for _, tc := range []struct {
		name  string
		never bool
		want  reading
	}{
		{"preemption on a node with two victims that violate a budget", false, reading{
			Attempts: 1, VictimsCount: 1, VictimsSum: 2, PDBViolations: 2, EvaluatedSuccess: 1,
			ExecutedSuccess: 1, GoroutinesDurationSuccess: 1, GoroutinesExecutionSuccess: 1,
		}},
		{"preemptor that may not preempt", true, reading{Attempts: 1, EvaluatedUnschedulable: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantSt := run(t, tc.never, upstream)
			got, gotSt := run(t, tc.never, ours)
			if wantSt.Code() != gotSt.Code() {
				t.Fatalf("status: DefaultPreemption %v, EvictkitPreemption %v", wantSt, gotSt)
			}
			if want != tc.want {
				t.Errorf("DefaultPreemption moved the metrics by %+v, the test expects %+v", want, tc.want)
			}
			if got != want {
				t.Errorf("metrics moved by\nDefaultPreemption  %+v\nEvictkitPreemption %+v", want, got)
			}
		})
	}
}
