package conformance_test

import (
	"context"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/informers"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	internalqueue "k8s.io/kubernetes/pkg/scheduler/backend/queue"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultpreemption"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	"k8s.io/kubernetes/pkg/scheduler/framework/preemption"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"

	"github.com/evictkit/eviction/conformance/internal/gen"
)

// tester is the part of testing.TB (and of *rapid.T) the harnesses use.
type tester interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
	Cleanup(func())
}

// registerSchedulerMetrics registers the scheduler's metrics once; the
// framework records into them.
var registerSchedulerMetrics = sync.OnceFunc(metrics.Register)

// schedCluster is one scheduler framework, built the way the scheduler's own
// tests build it, over a fixed set of nodes, bound pods and nominated pods:
// QueueSort, Bind and NodeResourcesFit (PreFilter + Filter) plugins, a
// scheduling queue as pod nominator, snapshot listers, a fake-clientset
// informer factory, parallelism pinned to 1 and the DefaultPreemption
// plugin on top.
type schedCluster struct {
	ctx      context.Context
	fw       framework.Framework
	pl       *defaultpreemption.DefaultPreemption
	snapshot *internalcache.Snapshot
}

// schedArgs are the DefaultPreemption arguments (zero: upstream defaults).
type schedArgs struct {
	MinCandidateNodesPercentage int32
	MinCandidateNodesAbsolute   int32
}

// newSchedCluster builds the framework. bound pods carry spec.nodeName;
// nominated pods carry status.nominatedNodeName and no nodeName.
func newSchedCluster(tb tester, nodes []*v1.Node, bound, nominated []*v1.Pod, args schedArgs) *schedCluster {
	tb.Helper()
	registerSchedulerMetrics()
	fts := feature.NewSchedulerFeaturesFromGates(utilfeature.DefaultFeatureGate)
	fit := func(ctx context.Context, plArgs runtime.Object, fh fwk.Handle) (fwk.Plugin, error) {
		return noderesources.NewFit(ctx, plArgs, fh, fts)
	}
	plugins := []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterPluginAsExtensions(noderesources.Name, fit, "Filter", "PreFilter"),
	}
	informerFactory := informers.NewSharedInformerFactory(clientsetfake.NewClientset(), 0)

	// The nominator resolves nominated pods through a pod lister and the
	// queue; both get the nominated pods directly, without informers.
	indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, p := range nominated {
		if err := indexer.Add(p); err != nil {
			tb.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	sorter, err := queuesort.New(ctx, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	queue := internalqueue.NewSchedulingQueue(sorter.(*queuesort.PrioritySort).Less, informerFactory,
		internalqueue.WithPodLister(listersv1.NewPodLister(indexer)))

	logger := klog.Background()
	ctx = klog.NewContext(ctx, logger)
	snapshot := internalcache.NewSnapshot(bound, nodes)
	fw, err := tf.NewFramework(ctx, plugins, "",
		frameworkruntime.WithPodNominator(queue),
		frameworkruntime.WithSnapshotSharedLister(snapshot),
		frameworkruntime.WithMutableSnapshotLister(snapshot),
		frameworkruntime.WithInformerFactory(informerFactory),
		frameworkruntime.WithParallelism(1),
		frameworkruntime.WithLogger(logger),
	)
	if err != nil {
		tb.Fatal(err)
	}
	for _, p := range nominated {
		queue.Add(ctx, p)
		pi, err := framework.NewPodInfo(p)
		if err != nil {
			tb.Fatal(err)
		}
		queue.AddNominatedPod(logger, pi, &fwk.NominatingInfo{
			NominatedNodeName: p.Status.NominatedNodeName, NominatingMode: fwk.ModeOverride})
	}
	dpArgs := &config.DefaultPreemptionArgs{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100}
	if args != (schedArgs{}) {
		dpArgs.MinCandidateNodesPercentage = args.MinCandidateNodesPercentage
		dpArgs.MinCandidateNodesAbsolute = args.MinCandidateNodesAbsolute
	}
	pl, err := defaultpreemption.New(ctx, dpArgs, fw, fts)
	if err != nil {
		tb.Fatal(err)
	}
	return &schedCluster{ctx: ctx, fw: fw, pl: pl, snapshot: snapshot}
}

// preFilter runs the PreFilter plugins for the preemptor, as the scheduling
// cycle does before PostFilter.
func (c *schedCluster) preFilter(tb tester, preemptor *v1.Pod) fwk.CycleState {
	tb.Helper()
	state := framework.NewCycleState()
	if _, status, _ := c.fw.RunPreFilterPlugins(c.ctx, state, preemptor); !status.IsSuccess() {
		tb.Fatalf("upstream PreFilter: %v", status)
	}
	return state
}

// nodeInfo is the snapshot's NodeInfo of name.
func (c *schedCluster) nodeInfo(tb tester, name string) fwk.NodeInfo {
	tb.Helper()
	ni, err := c.snapshot.NodeInfos().Get(name)
	if err != nil {
		tb.Fatal(err)
	}
	return ni
}

// upstreamVictims is what SelectVictimsOnNode answered.
type upstreamVictims struct {
	Pods          []*v1.Pod
	NumViolations int
	Code          fwk.Code
	Reasons       []string
}

// selectVictims runs upstream's SelectVictimsOnNode for preemptor on a copy
// of node name, as DryRunPreemption does.
func (c *schedCluster) selectVictims(tb tester, state fwk.CycleState, preemptor *v1.Pod, name string, pdbs []*policyv1.PodDisruptionBudget) upstreamVictims {
	tb.Helper()
	ni := c.nodeInfo(tb, name)
	victims, err := c.pl.Evaluator.GetVictimsOnNode(c.ctx, ni)
	if err != nil {
		tb.Fatal(err)
	}
	pods, n, status := c.pl.SelectVictimsOnNode(c.ctx, state.Clone(), preemptor, ni.Snapshot(), victims, pdbs)
	v := upstreamVictims{Pods: pods, NumViolations: n, Code: status.Code()}
	if status != nil {
		v.Reasons = status.Reasons()
	}
	return v
}

// nodeFits runs the Filter plugins (with nominated pods) for preemptor on
// an unmodified copy of node name: the scheduling pass whose failure makes
// a node a potential preemption node.
func (c *schedCluster) nodeFits(tb tester, state fwk.CycleState, preemptor *v1.Pod, name string) *fwk.Status {
	tb.Helper()
	return c.fw.RunFilterPluginsWithNominatedPods(c.ctx, state.Clone(), preemptor, c.nodeInfo(tb, name).Snapshot())
}

// dryRun runs upstream's DryRunPreemption over the named potential nodes in
// that order, with a pinned offset, and returns the candidates in upstream's
// order (non-violating, then violating, each in the order found).
func (c *schedCluster) dryRun(tb tester, state fwk.CycleState, preemptor *v1.Pod, potential []string, pdbs []*policyv1.PodDisruptionBudget, offset int32) []preemption.Candidate {
	tb.Helper()
	infos := make([]fwk.NodeInfo, len(potential))
	for i, name := range potential {
		infos[i] = c.nodeInfo(tb, name)
	}
	_, numCandidates := c.pl.GetOffsetAndNumCandidates(int32(len(infos)))
	candidates, _, err := c.pl.Evaluator.DryRunPreemption(c.ctx, state, preemptor, infos, pdbs, offset, numCandidates)
	if err != nil {
		tb.Fatalf("upstream DryRunPreemption: %v", err)
	}
	return candidates
}

// upstreamPick runs upstream's pickOneNodeForPreemption on candidates.
func upstreamPick(candidates []preemption.Candidate) string {
	m := make(map[string]*extenderv1.Victims, len(candidates))
	for _, c := range candidates {
		m[c.Name()] = c.Victims()
	}
	return preemption.PickOneNodeForPreemption(klog.Background(), m, nil)
}

// upstreamCanPick reports whether upstream's pickOneNodeForPreemption can
// answer node, whatever order its map iteration yields. Upstream scores the
// candidates criterion by criterion and, when several tie on every one,
// returns the first of them in map order; any tied node can come first. So
// node is a possible answer exactly when it ties with upstream's answer w on
// every criterion. That is decided without randomness by upstream's own pick
// between the two alone, after stretching every victim start time t to
// epoch + 2(t − epoch), plus one nanosecond for node's victims: the
// stretch keeps each candidate's earliest highest-priority start and every
// other criterion, and the extra nanosecond makes node win the last
// criterion exactly when its earliest start is not before w's, that is when
// the two tied there. Every victim must have a start time (upstream reads
// the clock for a missing one).
func upstreamCanPick(tb tester, candidates []preemption.Candidate, node string) bool {
	tb.Helper()
	w := upstreamPick(candidates)
	if w == node {
		return true
	}
	var win, other preemption.Candidate
	for _, c := range candidates {
		switch c.Name() {
		case w:
			win = c
		case node:
			other = c
		}
	}
	if win == nil || other == nil {
		return false
	}
	stretch := func(c preemption.Candidate, extra time.Duration) preemption.Candidate {
		v := *c.Victims()
		v.Pods = make([]*v1.Pod, len(c.Victims().Pods))
		for i, p := range c.Victims().Pods {
			if p.Status.StartTime == nil {
				tb.Fatalf("victim %s on %s has no start time: upstream's pick reads the clock", p.Name, c.Name())
			}
			p = p.DeepCopy()
			p.Status.StartTime.Time = gen.Epoch.Add(2*p.Status.StartTime.Sub(gen.Epoch) + extra)
			v.Pods[i] = p
		}
		return pickCandidate{name: c.Name(), victims: &v}
	}
	return upstreamPick([]preemption.Candidate{stretch(win, 0), stretch(other, time.Nanosecond)}) == node
}
