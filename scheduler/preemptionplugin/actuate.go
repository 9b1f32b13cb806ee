package preemptionplugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/util/retry"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/utils/clock"

	"github.com/evictkit/eviction/internal/podcondition"
	"github.com/evictkit/eviction/preemption"
)

// ErrEvictionRefused reports that the API server refused to evict a victim
// (429 TooManyRequests: a PodDisruptionBudget does not allow the disruption
// now). It only occurs with [Args.EvictionAPI].
var ErrEvictionRefused = errors.New("eviction refused")

// executor carries out a chosen preemption in the background, as
// DefaultPreemption does with asynchronous preemption (the default since
// v1.33), and tells PreEnqueue which preemptors are still waiting for it.
type executor struct {
	h          fwk.Handle
	pods       corelisters.PodLister
	evict      bool
	pluginName string
	clock      clock.PassiveClock
	metrics    Metrics

	mu sync.Mutex
	// running holds the preemptors whose preemption is under way; the
	// value names the last victim once its preemption has started.
	running map[types.UID]*types.NamespacedName
}

// blocked reports whether pod must wait out its preemption before another
// scheduling attempt: until the preemption of its last victim has begun (the
// victim is gone or terminating).
func (e *executor) blocked(uid types.UID) bool {
	e.mu.Lock()
	last, ok := e.running[uid]
	var name types.NamespacedName
	if last != nil {
		name = *last
	}
	e.mu.Unlock()
	if !ok {
		return false
	}
	if last == nil {
		return true
	}
	victim, err := e.pods.Pods(name.Namespace).Get(name.Name)
	return err == nil && victim.DeletionTimestamp == nil
}

// start preempts the victims of chosen for preemptor in a goroutine of its
// own: it clears the nomination of the lower-priority pods nominated to the
// node, then preempts every victim but the last in parallel, then the last
// one. When an API call fails (or an eviction is refused), or the last
// victim was preempted only in the scheduler's memory, the preemptor is
// moved back to the active queue so that it is retried. Victims already
// terminating are left alone; when all are, nothing is started.
func (e *executor) start(chosen preemption.Candidate, preemptor *v1.Pod) {
	node, victims := chosen.Node, chosen.Victims.Pods
	e.metrics.Chosen(len(victims), chosen.Victims.NumPDBViolations)
	todo := make([]*v1.Pod, 0, len(victims))
	for _, v := range victims {
		if v.DeletionTimestamp == nil {
			todo = append(todo, v)
		}
	}
	if len(todo) == 0 {
		return
	}
	e.mu.Lock()
	e.running[preemptor.UID] = nil
	e.mu.Unlock()
	// The preemption outlives the scheduling cycle: its context is its own.
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		defer cancel()
		began := e.clock.Now()
		logger := klog.FromContext(ctx)
		failed, inMemory := false, false
		if err := e.clearNominations(ctx, node, corev1helpers.PodPriority(preemptor)); err != nil {
			logger.Error(err, "Cannot clear 'NominatedNodeName' field from lower priority pods on the same target node", "node", node)
			failed = true
		}
		preemptLast := true
		if n := len(todo) - 1; n > 0 {
			var once sync.Once
			var firstErr error
			e.h.Parallelizer().Until(ctx, n, func(i int) {
				if _, err := e.preemptVictim(ctx, node, preemptor, todo[i]); err != nil {
					once.Do(func() { firstErr = err; cancel() })
				}
			}, e.pluginName)
			if firstErr != nil {
				// The last victim is spared so that the preemptor is
				// retried at once.
				logger.Error(firstErr, "Error occurred during async preemption")
				failed, preemptLast = true, false
			}
		}
		if preemptLast {
			last := todo[len(todo)-1]
			e.mu.Lock()
			e.running[preemptor.UID] = &types.NamespacedName{Namespace: last.Namespace, Name: last.Name}
			e.mu.Unlock()
			mem, err := e.preemptVictim(ctx, node, preemptor, last)
			if err != nil {
				logger.Error(err, "Error occurred during async preemption of the last victim")
				failed = true
			}
			inMemory = mem
		}
		e.mu.Lock()
		delete(e.running, preemptor.UID)
		e.mu.Unlock()
		result := ResultSuccess
		if failed {
			result = ResultError
		}
		e.metrics.Executed(result, e.clock.Since(began))
		if failed || inMemory {
			e.h.Activate(logger, map[string]*v1.Pod{preemptor.Name: preemptor})
		}
	}()
}

// preemptVictim preempts one victim: a pod waiting at Permit or in PreBind
// is sent back in the scheduler's memory (inMemory true); any other pod is
// marked with the DisruptionTarget condition (reason PreemptionByScheduler)
// and deleted, or evicted then marked with Args.EvictionAPI. A victim that
// is already gone is not an error. On success a "Preempted" event is
// recorded on the victim.
func (e *executor) preemptVictim(ctx context.Context, node string, preemptor, victim *v1.Pod) (inMemory bool, err error) {
	logger := klog.FromContext(ctx)
	note := fmt.Sprintf("Preempted by %s %v on node %v", fwk.PodKeyType, preemptor.UID, node)
	if wp := e.h.GetWaitingPod(victim.UID); wp != nil {
		inMemory = wp.Preempt(e.pluginName, "preempted")
	} else if pb := e.h.GetPodInPreBind(victim.UID); pb != nil {
		inMemory = pb.CancelPod("preempted by " + e.pluginName)
	}
	if inMemory {
		note += " (in kube-scheduler memory)."
	} else {
		gone, err := e.remove(ctx, preemptor, victim)
		if err != nil {
			if errors.Is(err, ErrEvictionRefused) {
				e.h.EventRecorder().Eventf(preemptor, nil, v1.EventTypeWarning, "PreemptionRefused", "Preempting",
					"Eviction of %s/%s on node %s refused: %v", victim.Namespace, victim.Name, node, err)
			}
			return false, err
		}
		if gone {
			logger.V(2).Info("Victim Pod is already deleted", "preemptor", klog.KObj(preemptor), "victim", klog.KObj(victim), "node", node)
			return false, nil
		}
		logger.V(2).Info("Preemptor Pod preempted victim Pod", "preemptor", klog.KObj(preemptor), "victim", klog.KObj(victim), "node", node)
	}
	// The related object is left out: upstream passes a wrapper type the
	// event recorder cannot reference, so its events carry none.
	e.h.EventRecorder().Eventf(victim, nil, v1.EventTypeNormal, "Preempted", "Preempting", "%s", note)
	return inMemory, nil
}

// remove marks and deletes (or evicts and marks) victim; gone reports that
// it no longer existed.
func (e *executor) remove(ctx context.Context, preemptor, victim *v1.Pod) (gone bool, err error) {
	cs := e.h.ClientSet()
	cond := v1.PodCondition{
		Type:               v1.DisruptionTarget,
		ObservedGeneration: victim.Generation,
		Status:             v1.ConditionTrue,
		Reason:             v1.PodReasonPreemptionByScheduler,
		Message:            fmt.Sprintf("%s: preempting to accommodate a higher priority %s", preemptor.Spec.SchedulerName, fwk.PodKeyType),
	}
	if e.evict {
		ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Namespace: victim.Namespace, Name: victim.Name}}
		if err := cs.CoreV1().Pods(victim.Namespace).EvictV1(ctx, ev); err != nil {
			switch {
			case apierrors.IsNotFound(err):
				return true, nil
			case apierrors.IsTooManyRequests(err):
				return false, fmt.Errorf("preemptionplugin: evict %s/%s: %w: %w", victim.Namespace, victim.Name, ErrEvictionRefused, err)
			}
			return false, fmt.Errorf("preemptionplugin: evict %s/%s: %w", victim.Namespace, victim.Name, err)
		}
		// The API server marked the pod with reason EvictionByEvictionAPI;
		// the scheduler's reason replaces it, so that the preemptor's next
		// attempt sees the victim as terminating by preemption.
		if err := patchStatus(ctx, cs, victim, withCondition(victim.Status, cond)); err != nil && !apierrors.IsNotFound(err) {
			return false, fmt.Errorf("preemptionplugin: mark %s/%s: %w", victim.Namespace, victim.Name, err)
		}
		return false, nil
	}
	if next, changed := withConditionChanged(victim.Status, cond); changed {
		if err := patchStatus(ctx, cs, victim, next); err != nil {
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, fmt.Errorf("preemptionplugin: mark %s/%s: %w", victim.Namespace, victim.Name, err)
		}
	}
	if err := cs.CoreV1().Pods(victim.Namespace).Delete(ctx, victim.Name, metav1.DeleteOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, fmt.Errorf("preemptionplugin: delete %s/%s: %w", victim.Namespace, victim.Name, err)
	}
	return false, nil
}

// clearNominations clears the nomination of the pods nominated to node with
// a priority below priority: they may no longer fit there.
func (e *executor) clearNominations(ctx context.Context, node string, priority int32) error {
	var errs []error
	for _, pi := range e.h.NominatedPodsForNode(node) {
		p := pi.GetPod()
		if corev1helpers.PodPriority(p) >= priority {
			continue
		}
		if c := e.h.APICacher(); c != nil {
			if _, err := c.PatchPodStatus(p, nil, &fwk.NominatingInfo{NominatedNodeName: "", NominatingMode: fwk.ModeOverride}); err != nil {
				errs = append(errs, err)
			}
			continue
		}
		if p.Status.NominatedNodeName == "" {
			continue
		}
		next := p.Status.DeepCopy()
		next.NominatedNodeName = ""
		if err := patchStatus(ctx, e.h.ClientSet(), p, *next); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// withCondition returns status with cond set, its transition time kept when
// the status does not change (now otherwise).
func withCondition(status v1.PodStatus, cond v1.PodCondition) v1.PodStatus {
	next, _ := withConditionChanged(status, cond)
	return next
}

// withConditionChanged is withCondition that also reports whether anything
// changed.
func withConditionChanged(status v1.PodStatus, cond v1.PodCondition) (v1.PodStatus, bool) {
	next := *status.DeepCopy()
	cond.LastTransitionTime = metav1.Now()
	changed := podcondition.Set(&next, cond)
	return next, changed
}

// patchStatus sends the strategic merge patch from pod's status to next on
// the status subresource, retrying conflicts and transient server errors.
func patchStatus(ctx context.Context, cs kubernetes.Interface, pod *v1.Pod, next v1.PodStatus) error {
	oldData, err := json.Marshal(v1.Pod{Status: pod.Status})
	if err != nil {
		return err
	}
	newData, err := json.Marshal(v1.Pod{Status: next})
	if err != nil {
		return err
	}
	patch, err := strategicpatch.CreateTwoWayMergePatch(oldData, newData, &v1.Pod{})
	if err != nil {
		return fmt.Errorf("preemptionplugin: patch for pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	if string(patch) == "{}" {
		return nil
	}
	retriable := func(err error) bool {
		return apierrors.IsConflict(err) || apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || utilnet.IsConnectionRefused(err)
	}
	return retry.OnError(retry.DefaultBackoff, retriable, func() error {
		_, err := cs.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
		return err
	})
}
