// Package tolerations decides whether a pod's tolerations tolerate a node's taints, and for
// how long taint eviction lets the pod stay.
//
// It mirrors, for Kubernetes v1.37.2:
//   - k8s.io/api core/v1 toleration.go (ToleratesTaint, compareNumericValues, MatchToleration);
//   - k8s.io/component-helpers scheduling/corev1 helpers.go (TolerationsTolerateTaint,
//     FindMatchingUntoleratedTaint);
//   - k8s.io/kubernetes pkg/apis/core/v1/helper helpers.go (GetMatchingTolerations,
//     AddOrUpdateTolerationInPodSpec);
//   - k8s.io/kubernetes pkg/controller/tainteviction taint_eviction.go (getMinTolerationTime
//     and the decision of processPodOnNode; package tainteviction has the rest);
//   - k8s.io/kubernetes plugin/pkg/admission/defaulttolerationseconds (Admit);
//   - k8s.io/kubernetes pkg/controller/daemon/util (AddOrUpdateDaemonPodTolerations);
//   - k8s.io/kubernetes pkg/apis/core/validation (ValidateTolerations,
//     validateOnlyAddedTolerations) with pkg/api/pod's Lt/Gt ratcheting.
//
// # Guarantees
//
//   - Pure functions: no global feature gate, no logging, no clock. The Lt/Gt gate is
//     [Options.ComparisonOperators], whose zero value is upstream's default (off).
//   - Inputs are never modified; returned lists are fresh slices.
//   - [Tolerates], [AnyTolerates], [FindUntolerated], [MinTolerationTime] and
//     [NoExecuteDecision] allocate nothing. [Matching] allocates its result once, and nothing
//     when a taint is not tolerated (for up to 32 taints). All are O(taints × tolerations).
//   - Nothing panics: nil pointers tolerate nothing, malformed Lt/Gt numbers never match.
//
// # Matching
//
// [Tolerates] is one toleration against one taint; [AnyTolerates] a list against one taint;
// [FindUntolerated] the first taint (through an optional filter such as
// [NoScheduleOrNoExecute]) that nothing tolerates; [Matching] the first tolerating
// toleration per taint. Toleration order matters: only the first toleration that tolerates a
// taint counts for its eviction time (see the Matching example).
//
// # Taint eviction
//
// [NoExecuteDecision] gives a [Decision] (Never, EvictNow, EvictAfter with a delay) for a pod
// on a node, from the NoExecute taints and [MinTolerationTime], and names the taint that
// decided ([Decision.TaintIndex], [Decision.DecidingTaint]) so that nobody has to work it out
// again. Package tainteviction turns
// decisions into scheduled evictions (its Reconcile keeps an eviction already scheduled when
// tolerations lengthen or shorten, exactly as upstream does) and runs them. The decision's
// clock starts when the controller processes the pod; the taint's TimeAdded is ignored.
//
// # Defaults and validation
//
// [WithDefaultSeconds] and [PodSpecWithDefaultSeconds] add the not-ready / unreachable
// tolerations of the DefaultTolerationSeconds admission plugin; [DaemonSet] and
// [WithDaemonSet] (with [DaemonSetOptions]) those of the DaemonSet controller; [AddOrUpdate] is the underlying list
// update. [Validate] and [ValidateUpdate] return the API server's field.ErrorList.
//
// # Differences from upstream
//
//   - Overflow: [MinTolerationTime] treats TolerationSeconds above 9 223 372 036 (too large for
//     a time.Duration) as forever. Upstream multiplies with int64 wrap-around: 9 223 372 037 s
//     turns negative (read as forever, like here), but 18 446 744 074 s becomes +290.448384 ms,
//     so a pod that asked to stay 585 years is evicted at once.
//   - Empty NoExecute list: [NoExecuteDecision] returns Never. Upstream's processPodOnNode,
//     if ever given no taints (its callers never do), would cancel and then evict at once.
//   - Gate as an option: the Lt/Gt gate is passed in [Options] instead of read from the
//     process-wide feature gate (GetMatchingTolerations reads the global one).
//   - Malformed Lt/Gt values: false without logging (upstream logs an error).
//   - Default seconds: every call of [WithDefaultSeconds] gives each added toleration its own
//     TolerationSeconds pointer; upstream shares one variable between all pods.
//   - [AddOrUpdate] reports false when an identical toleration is already present; upstream's
//     AddOrUpdateTolerationInPodSpec compares a pointer with a value and always reports true.
//     The resulting list is the same.
//   - [ValidateUpdate] reports each toleration error once; the API server validates the new
//     pod spec as a whole as well, so its list repeats them. Key errors are not marked as
//     covered by declarative validation (an API-server-internal flag).
package tolerations
