// Package cycletest builds, for the tests and benchmarks of scheduler/cmd,
// the state of one scheduling cycle of kube-scheduler's framework at
// PostFilter: a framework with NodeResourcesFit as its filter over a
// snapshot of the given nodes and pods, and a preemptor that went through
// PreFilter, ready for a PostFilter plugin (DefaultPreemption or ours).
package cycletest

import (
	"context"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
)

// Cycle is one scheduling cycle's state at PostFilter.
type Cycle struct {
	Ctx   context.Context
	FW    framework.Framework
	State fwk.CycleState
}

// New builds the framework over client and informerFactory (which must
// hold the preemptor and whatever else the plugins list) and a snapshot of
// pods on nodes, and runs PreFilter for preemptor. The context ends with
// tb.
func New(tb testing.TB, client kubernetes.Interface, informerFactory informers.SharedInformerFactory, pods []*v1.Pod, nodes []*v1.Node, preemptor *v1.Pod) *Cycle {
	tb.Helper()
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	fit := func(ctx context.Context, args runtime.Object, fh fwk.Handle) (fwk.Plugin, error) {
		return noderesources.NewFit(ctx, args, fh, fts)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	logger := klog.Background()
	ctx = klog.NewContext(ctx, logger)
	sorter, err := queuesort.New(ctx, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	queue := internalqueue.NewSchedulingQueue(sorter.(*queuesort.PrioritySort).Less, informerFactory)
	snapshot := internalcache.NewSnapshot(pods, nodes)
	fw, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterPluginAsExtensions(noderesources.Name, fit, "Filter", "PreFilter"),
	}, "",
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithEventRecorder(&events.FakeRecorder{}),
		frameworkruntime.WithPodNominator(queue),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithMutableSnapshotLister(snapshot),
		frameworkruntime.WithInformerFactory(informerFactory),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithPodsInPreBind(frameworkruntime.NewPodsInPreBindMap()),
		frameworkruntime.WithLogger(logger),
	)
	if err != nil {
		tb.Fatal(err)
	}
	state := framework.NewCycleState()
	if _, status, _ := fw.RunPreFilterPlugins(ctx, state, preemptor); !status.IsSuccess() {
		tb.Fatalf("PreFilter: %v", status)
	}
	return &Cycle{Ctx: ctx, FW: fw, State: state}
}
