package preemptionplugin

import (
	"context"
	"errors"
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	"k8s.io/klog/v2"
	extenderv1 "k8s.io/kube-scheduler/extender/v1"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/clock"

	"github.com/evictkit/eviction/preemption"
)

// Name is the plugin's name in a scheduler profile.
const Name = "EvictkitPreemption"

// Plugin is the PostFilter (and PreEnqueue) plugin. Create it with [New]
// (the framework's factory signature) or [NewWithOptions].
type Plugin struct {
	h        fwk.Handle
	args     Args
	opts     Options
	pods     corelisters.PodLister
	pdbs     policylisters.PodDisruptionBudgetLister
	snaps    snapshots
	executor *executor
}

var (
	_ fwk.PostFilterPlugin  = (*Plugin)(nil)
	_ fwk.PreEnqueuePlugin  = (*Plugin)(nil)
	_ fwk.EnqueueExtensions = (*Plugin)(nil)
)

// Options are the plugin's settings that do not come from the scheduler
// configuration. The zero value is what [New] uses.
type Options struct {
	// Clock gives the time a pod without a start time is taken to have
	// started; nil means the real clock.
	Clock clock.PassiveClock
	// Offset chooses where the dry run starts among n potential nodes;
	// nil means a uniform random offset, as upstream.
	Offset func(n int32) int32
	// Workers bounds how many nodes are evaluated at once; 0 means
	// GOMAXPROCS. The decision does not depend on it.
	Workers int
	// Metrics receives the measurements DefaultPreemption records in
	// kube-scheduler's metrics; nil records nothing.
	Metrics Metrics
}

// New is the plugin factory for app.WithPlugin: it decodes args with
// [DecodeArgs] and builds the plugin on h.
func New(ctx context.Context, args runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return NewWithOptions(ctx, args, h, Options{})
}

// NewWithOptions is [New] with [Options].
func NewWithOptions(_ context.Context, obj runtime.Object, h fwk.Handle, opts Options) (*Plugin, error) {
	args, err := DecodeArgs(obj)
	if err != nil {
		return nil, err
	}
	if h == nil {
		return nil, errors.New("preemptionplugin: nil framework handle")
	}
	if opts.Clock == nil {
		opts.Clock = clock.RealClock{}
	}
	if opts.Metrics == nil {
		opts.Metrics = noMetrics{}
	}
	informers := h.SharedInformerFactory()
	pl := &Plugin{
		h:    h,
		args: args,
		opts: opts,
		pods: informers.Core().V1().Pods().Lister(),
		pdbs: informers.Policy().V1().PodDisruptionBudgets().Lister(),
	}
	pl.executor = &executor{h: h, pods: pl.pods, evict: args.EvictionAPI, pluginName: Name, clock: opts.Clock, metrics: opts.Metrics,
		running: map[types.UID]*types.NamespacedName{}}
	return pl, nil
}

// Name returns [Name].
func (pl *Plugin) Name() string { return Name }

// Args returns the plugin's decoded arguments.
func (pl *Plugin) Args() Args { return pl.args }

// PostFilter tries to make room for pod by preempting lower-priority pods,
// as DefaultPreemption does. On success it returns the chosen node as the
// pod's nomination and starts the preemption in the background; when
// preemption cannot help it returns Unschedulable, with a result that clears
// the nomination when no node could host the pod even after preemption.
// Every non-empty message starts with "preemption: ".
func (pl *Plugin) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, m fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	defer pl.opts.Metrics.Attempt()
	res, st := pl.preempt(ctx, state, pod, m)
	if msg := st.Message(); msg != "" {
		return res, fwk.NewStatus(st.Code(), "preemption: "+msg)
	}
	return res, st
}

// preempt decides, records the evaluation, and starts the preemption.
func (pl *Plugin) preempt(ctx context.Context, state fwk.CycleState, pod *v1.Pod, m fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	start := pl.opts.Clock.Now()
	r, pod, res, st := pl.evaluate(ctx, state, pod, m)
	pl.opts.Metrics.Evaluated(st.Code().String(), pl.opts.Clock.Since(start))
	if !st.IsSuccess() {
		return res, st
	}
	chosen := r.Chosen
	klog.FromContext(ctx).V(2).Info("the target node for the preemption is determined", "node", chosen.Node, "pod", klog.KObj(pod), "criterion", r.Decision)
	pl.executor.start(chosen, pod)
	return &fwk.PostFilterResult{NominatingInfo: &fwk.NominatingInfo{NominatedNodeName: chosen.Node, NominatingMode: fwk.ModeOverride}},
		fwk.NewStatus(fwk.Success, fmt.Sprintf("found a potential placement for pod on node %v, preempting %d victims", chosen.Node, len(chosen.Victims.Pods)))
}

// evaluate finds the node to preempt on and its victims, for the latest
// copy of pod, which it returns. The status is Success exactly when a node
// was chosen; otherwise the result, if any, is the one to return.
func (pl *Plugin) evaluate(ctx context.Context, state fwk.CycleState, pod *v1.Pod, m fwk.NodeToStatusReader) (preemption.Result, *v1.Pod, *fwk.PostFilterResult, *fwk.Status) {
	var none preemption.Result
	logger := klog.FromContext(ctx)
	latest, err := pl.pods.Pods(pod.Namespace).Get(pod.Name)
	if err != nil {
		logger.Error(err, "Could not get the updated preemptor pod object", "pod", klog.KObj(pod))
		return none, pod, nil, fwk.AsStatus(err)
	}
	pod = latest

	lister := pl.h.SnapshotSharedLister().NodeInfos()
	infos, err := lister.List()
	if err != nil {
		return none, pod, nil, fwk.AsStatus(err)
	}
	nodes := pl.snaps.source(infos, pl.h)
	var needs map[string]bool
	for i, name := range nodes.names {
		st := m.Get(name)
		switch st.Code() {
		case fwk.Unschedulable:
			nodes.codes[i] = preemption.Unschedulable
			if p := st.Plugin(); p != resourceFitPlugin {
				if needs == nil {
					needs = map[string]bool{}
				}
				needs[name] = true
			}
		case fwk.Success:
			nodes.codes[i] = preemption.Success
		default:
			nodes.codes[i] = preemption.UnschedulableAndUnresolvable
		}
	}

	budgets, err := pl.pdbs.List(labels.Everything())
	if err != nil {
		return none, pod, nil, fwk.AsStatus(err)
	}
	pdbs, err := preemption.NewPDBs(budgets)
	if err != nil {
		return none, pod, nil, fwk.AsStatus(err)
	}

	// The prior statuses come from nodes, a preemption.StatusSource.
	opts := preemption.Options{
		Sampling:  new(pl.args.sampling()),
		Offset:    pl.opts.Offset,
		Workers:   pl.opts.Workers,
		StrictPDB: pl.args.StrictPDB,
	}
	all := needsProfileFilters(pod, lister)
	if all || len(needs) > 0 {
		byName := make(map[string]fwk.NodeInfo, len(nodes.infos))
		for i, ni := range nodes.infos {
			byName[nodes.names[i]] = ni
		}
		need := func(node string) bool { return all || needs[node] }
		opts.Filters = []preemption.Filter{profileFilter(ctx, pl.h, state, byName, need)}
	}
	if exts := preemptionExtenders(pl.h.Extenders(), pod); len(exts) > 0 {
		opts.CandidateFilter = func(pod *v1.Pod, cs []preemption.Candidate) ([]preemption.Candidate, error) {
			return callExtenders(logger, exts, pod, cs, lister)
		}
	}

	r, err := preemption.EvaluateSource(pod, nodes, pdbs, pl.opts.Clock.Now(), opts)
	if err != nil {
		logger.V(5).Info("Preemption found no node", "pod", klog.KObj(pod), "err", err)
		var res *fwk.PostFilterResult
		if !r.KeepNomination {
			res = &fwk.PostFilterResult{NominatingInfo: &fwk.NominatingInfo{NominatedNodeName: r.NominatedNode, NominatingMode: fwk.ModeOverride}}
		}
		code := fwk.Unschedulable
		if r.Code == preemption.Error {
			code = fwk.Error
		}
		return none, pod, res, fwk.NewStatus(code, r.Message)
	}
	return r, pod, nil, fwk.NewStatus(fwk.Success)
}

// PreEnqueue keeps a preemptor out of the scheduling queue while its
// preemption is being carried out, until the preemption of its last victim
// has begun.
func (pl *Plugin) PreEnqueue(_ context.Context, p *v1.Pod) *fwk.Status {
	if pl.executor.blocked(p.UID) {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, "waiting for the preemption for this pod to be finished")
	}
	return nil
}

// EventsToRegister registers the deletion of assigned pods, which may let a
// preemptor that PreEnqueue held back into the queue; the hint itself never
// requeues a pod (the plugins that rejected it decide).
func (pl *Plugin) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{{
		Event:          fwk.ClusterEvent{Resource: fwk.AssignedPod, ActionType: fwk.Delete},
		QueueingHintFn: func(klog.Logger, *v1.Pod, any, any) (fwk.QueueingHint, error) { return fwk.QueueSkip, nil },
	}}, nil
}

// preemptionExtenders returns the extenders that take part in preemption
// for pod.
func preemptionExtenders(all []fwk.Extender, pod *v1.Pod) []fwk.Extender {
	var out []fwk.Extender
	for _, e := range all {
		if e.SupportsPreemption() && e.IsInterested(pod) {
			out = append(out, e)
		}
	}
	return out
}

// callExtenders lets each extender narrow the candidates (and change their
// victims), as upstream does; the candidates keep their dry-run order.
func callExtenders(logger klog.Logger, exts []fwk.Extender, pod *v1.Pod, cs []preemption.Candidate, lister fwk.NodeInfoLister) ([]preemption.Candidate, error) {
	victims := make(map[string]*extenderv1.Victims, len(cs))
	order := make([]string, 0, len(cs))
	for _, c := range cs {
		if _, dup := victims[c.Node]; !dup {
			order = append(order, c.Node)
		}
		victims[c.Node] = &extenderv1.Victims{Pods: c.Victims.Pods, NumPDBViolations: int64(c.Victims.NumPDBViolations)}
	}
	for _, e := range exts {
		got, err := e.ProcessPreemption(pod, victims, lister)
		if err != nil {
			if e.IsIgnorable() {
				logger.V(2).Info("Skipped extender as it returned error and has ignorable flag set", "extender", e.Name(), "err", err)
				continue
			}
			return nil, err
		}
		for node, v := range got {
			if v == nil || len(v.Pods) == 0 {
				if e.IsIgnorable() {
					delete(got, node)
					continue
				}
				return nil, fmt.Errorf("expected at least one victim pod on node %q", node)
			}
		}
		victims = got
		if len(victims) == 0 {
			break
		}
	}
	out := make([]preemption.Candidate, 0, len(victims))
	for _, node := range order {
		if v, ok := victims[node]; ok {
			out = append(out, preemption.Candidate{Node: node, Victims: preemption.Victims{Pods: v.Pods, NumPDBViolations: int(v.NumPDBViolations)}})
			delete(victims, node)
		}
	}
	for node, v := range victims { // nodes an extender added, rare
		out = append(out, preemption.Candidate{Node: node, Victims: preemption.Victims{Pods: v.Pods, NumPDBViolations: int(v.NumPDBViolations)}})
	}
	return out, nil
}
