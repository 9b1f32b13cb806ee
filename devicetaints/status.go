package devicetaints

import (
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// ruleStatus is upstream's maybeUpdateRuleStatus at now: the condition to
// write, if any, and when to check again (zero: when asked).
func (c *Controller) ruleStatus(ref ruleRef, now time.Time) (*RuleStatus, time.Time) {
	rule := c.rules[ref.name]
	if rule == nil || rule.UID != ref.uid {
		return nil, time.Time{}
	}
	var existing metav1.Condition
	for _, cond := range rule.Conditions {
		if cond.Type == EvictionInProgress {
			existing = cond
			if since := now.Sub(cond.LastTransitionTime.Time); cond.ObservedGeneration == rule.Generation && since < RuleStatusPeriod {
				return nil, now.Add(RuleStatusPeriod - since)
			}
			break
		}
	}
	cond := c.condition(rule, existing.LastTransitionTime)
	if cond == existing {
		return nil, time.Time{}
	}
	cond.LastTransitionTime = metav1.NewTime(now)
	return &RuleStatus{Rule: rule.Name, UID: rule.UID, Condition: cond}, time.Time{}
}

// condition computes a rule's EvictionInProgress condition as upstream
// words it, with lastTransitionTime ltt.
func (c *Controller) condition(rule *Rule, ltt metav1.Time) metav1.Condition {
	cond := metav1.Condition{
		Type:               EvictionInProgress,
		Status:             metav1.ConditionFalse,
		ObservedGeneration: rule.Generation,
		LastTransitionTime: ltt,
	}
	evicted := c.stats[rule.UID]
	switch rule.Taint.Effect {
	case resourceapi.DeviceTaintEffectNoExecute:
		pods, namespaces := c.pendingPods(rule.UID, c.podEviction)
		switch {
		case pods > 0:
			cond.Status, cond.Reason = metav1.ConditionTrue, "PodsPendingEviction"
			cond.Message = count(pods, "1 pod needs", " pods need") + " to be evicted in " + count(namespaces, "1 namespace.", " different namespaces.")
		case evicted > 0:
			cond.Reason = "Completed"
		default:
			cond.Reason = "NotStarted"
		}
	case resourceapi.DeviceTaintEffectNone:
		pods, namespaces := c.simulate(rule)
		sliceDevices, allocated := c.taintedDevices(rule.Selector)
		cond.Reason = "NoEffect"
		cond.Message = count(sliceDevices, "1 published device", " published devices") + " selected. " +
			count(allocated, "1 allocated device", " allocated devices") + " selected. " +
			count(pods, "1 pod", " pods") + " would be evicted in " +
			count(namespaces, "1 namespace ", " different namespaces ") +
			"if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule to trigger an update."
	default:
		cond.Reason = "OtherEffect"
		cond.Message = "Eviction only happens for the NoExecute effect."
	}
	if evicted > 0 {
		if cond.Message != "" {
			cond.Message += " "
		}
		cond.Message += count(evicted, "1 pod", " pods") + " evicted since starting the controller."
	}
	return cond
}

// count returns one for n == 1, else n followed by many.
func count(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return strconv.FormatInt(n, 10) + many
}

// pendingPods counts the pods (not being deleted) whose eviction has the
// rule with UID uid among its reasons, and their namespaces.
func (c *Controller) pendingPods(uid types.UID, decide func(*v1.Pod) *eviction) (pods, namespaces int64) {
	seen := make(map[string]struct{})
	for _, e := range c.pods {
		pod := e.pod
		if pod == nil || pod.DeletionTimestamp != nil {
			continue
		}
		ev := decide(pod)
		if ev == nil {
			continue
		}
		for i := range ev.reasons {
			if r := ev.reasons[i].rule; r != nil && r.UID == uid {
				pods++
				seen[pod.Namespace] = struct{}{}
				break
			}
		}
	}
	return pods, int64(len(seen))
}

// simulate counts the pods that a rule of effect None would evict (and
// their namespaces) if its effect were NoExecute, as upstream simulates
// it: every allocated claim decided again with the devices' own taints and
// this rule as the only evicting rule.
func (c *Controller) simulate(rule *Rule) (pods, namespaces int64) {
	as := &ruleEntry{Rule: *rule}
	as.Taint.Effect = resourceapi.DeviceTaintEffectNoExecute
	only := []*ruleEntry{as}
	claims := make(map[types.NamespacedName]*claimEntry, len(c.claims))
	for k, e := range c.claims {
		claims[k] = &claimEntry{claim: e.claim, ev: c.w.claimEviction(e.claim, only), key: k}
	}
	return c.pendingPods(rule.UID, func(pod *v1.Pod) *eviction { return c.w.podEviction(pod, claims) })
}

// taintedDevices counts the devices of the newest generation of every pool
// that sel selects (a device published twice counts twice), and the
// allocated devices of all allocated claims that it selects.
func (c *Controller) taintedDevices(sel *Selector) (published, allocated int64) {
	for k, p := range c.w.pools {
		for _, e := range p.slices {
			if e.slice.Spec.Pool.Generation != p.maxGen {
				continue
			}
			for i := range e.slice.Spec.Devices {
				if sel.Matches(DeviceID{Driver: k.driver, Pool: k.pool, Device: e.slice.Spec.Devices[i].Name}) {
					published++
				}
			}
		}
	}
	for _, e := range c.claims {
		for _, r := range e.claim.Status.Allocation.Devices.Results {
			if sel.Matches(DeviceID{Driver: r.Driver, Pool: r.Pool, Device: r.Device}) {
				allocated++
			}
		}
	}
	return published, allocated
}
