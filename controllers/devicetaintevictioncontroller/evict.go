package devicetaintevictioncontroller

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	resourceac "k8s.io/client-go/applyconfigurations/resource/v1"

	"github.com/evictkit/eviction/controllers/internal/podpatch"
	"github.com/evictkit/eviction/devicetaints"
	"github.com/evictkit/eviction/events"
)

// outcome is what one eviction attempt came to.
type outcome int

const (
	gone    outcome = iota // not found, or another pod under the name: not counted
	deleted                // deleted now, or being deleted already: counted
	failed                 // try again
)

// evict makes one attempt at an eviction the core handed out and reports
// it back.
func (c *Controller) evict(ctx context.Context, e devicetaints.Eviction) {
	out, err := c.attempt(ctx, e)
	key := "pod/" + string(e.UID)
	c.mu.Lock()
	defer c.mu.Unlock()
	switch out {
	case failed:
		c.cfg.Logger.Warn("deletion failed, retrying", "pod", e.Pod.String(), "err", err)
		c.core.Retry(e, c.retryAt(key))
	case deleted:
		c.backoff.Forget(key)
		c.cfg.Metrics.deleted(e.At, c.cfg.Clock.Now())
		c.cfg.Logger.Info("evicted pod", "pod", e.Pod.String(), "taint", e.Taint.String())
		c.core.Evicted(e, true)
	default:
		c.backoff.Forget(key)
		c.core.Evicted(e, false)
	}
	c.step()
}

// attempt gets the pod, and unless it is gone, replaced or being deleted,
// records the Marking event, sets its DisruptionTarget condition if it
// lacks it and deletes it with its UID as a precondition.
func (c *Controller) attempt(ctx context.Context, e devicetaints.Eviction) (outcome, error) {
	pods := c.cfg.Client.CoreV1().Pods(e.Pod.Namespace)
	pod, err := pods.Get(ctx, e.Pod.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return gone, nil
	case err != nil:
		return failed, fmt.Errorf("device taint eviction: get pod %s: %w", e.Pod, err)
	case pod.UID != e.UID:
		return gone, nil
	case pod.DeletionTimestamp != nil:
		return deleted, nil
	}
	events.Record(c.recorder, devicetaints.Marking(e.Pod, e.UID))
	if status, changed := devicetaints.DisruptedStatus(pod, c.cfg.Clock.Now()); changed {
		patch, err := podpatch.Status(pod, status)
		if err != nil {
			return failed, fmt.Errorf("device taint eviction: %w", err)
		}
		_, err = pods.Patch(ctx, pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
		if apierrors.IsNotFound(err) {
			return gone, nil
		}
		if err != nil {
			return failed, fmt.Errorf("device taint eviction: status patch of pod %s: %w", e.Pod, err)
		}
	}
	err = pods.Delete(ctx, pod.Name, metav1.DeleteOptions{Preconditions: metav1.NewUIDPreconditions(string(e.UID))})
	switch {
	case apierrors.IsNotFound(err):
		return gone, nil
	case err != nil:
		// A conflict (the UID precondition failed) is tried again too: the
		// next attempt's read finds the other pod and stops.
		return failed, fmt.Errorf("device taint eviction: delete pod %s: %w", e.Pod, err)
	}
	return deleted, nil
}

// writeStatus applies a rule's EvictionInProgress condition (server-side
// apply of the status, forced, with the rule's UID so that a rule
// re-created under the name is left alone); a failure is retried after a
// backoff.
func (c *Controller) writeStatus(ctx context.Context, s devicetaints.RuleStatus) {
	cond := s.Condition
	ac := resourceac.DeviceTaintRule(s.Rule).WithUID(s.UID).WithStatus(resourceac.DeviceTaintRuleStatus().WithConditions(
		metav1ac.Condition().
			WithType(cond.Type).
			WithStatus(cond.Status).
			WithReason(cond.Reason).
			WithMessage(cond.Message).
			WithObservedGeneration(cond.ObservedGeneration).
			WithLastTransitionTime(cond.LastTransitionTime)))
	_, err := c.cfg.Client.ResourceV1().DeviceTaintRules().ApplyStatus(ctx, ac, metav1.ApplyOptions{FieldManager: ControllerName, Force: true})
	key := "rule/" + string(s.UID)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err == nil {
		c.backoff.Forget(key)
		return
	}
	c.cfg.Logger.Warn("rule status write failed, retrying", "rule", s.Rule, "err", err)
	c.core.RetryStatus(s, c.retryAt(key))
	c.step()
}
