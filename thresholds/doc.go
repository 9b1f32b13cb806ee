// Package thresholds parses kubelet eviction thresholds and evaluates them
// over time exactly as the kubelet's eviction manager does in Kubernetes
// v1.37.2.
//
// It mirrors k8s.io/kubernetes pkg/kubelet/eviction: the signals and
// threshold types of api/types.go (Signal, Threshold, ThresholdValue,
// GetThresholdQuantity), ParseThresholdConfig, addAllocatableThresholds and
// UpdateContainerFsThresholds of helpers.go, the DefaultEvictionHard tables
// of defaults_linux.go, defaults_windows.go and defaults_others.go, the
// mergeDefaultEvictionSettings step of cmd/kubelet/app/server.go
// (loadConfigFile), the flag syntax of --eviction-hard and friends
// (component-base cli/flag LangleSeparatedMapStringString and
// MapStringString), makeSignalObservations, and the threshold pipeline of
// eviction_manager.go synchronize with its helpers thresholdsMet,
// mergeThresholds, thresholdsFirstObservedAt, thresholdsMetGracePeriod,
// nodeConditions, nodeConditionsLastObservedAt, nodeConditionsObservedSince,
// thresholdsUpdatedStats, byEvictionPriority and getReclaimableThreshold.
//
// # Parsing
//
// [ParseConfig] turns a [Config] (the four flag maps, node-allocatable
// enforcement, mergeDefaultEvictionSettings and the [OS] whose defaults
// apply) into []Threshold. In a Config, nil means "not configured, use the
// kubelet's default" and an empty non-nil map or list means "none": a nil
// Hard selects [Defaults], and a nil EnforceNodeAllocatable is the
// kubelet's default ["pods"] (SetDefaults_KubeletConfiguration), which
// copies each hard memory.available threshold to
// allocatableMemory.available. The zero Config is therefore a kubelet with
// default settings: six hard thresholds on Linux, the five defaults plus
// allocatableMemory.available<100Mi. [Flags.Apply], [ParseThresholdFlag] and
// [ParseMapFlag] read the command-line syntax; [Threshold.String] and
// [Value.String] write it back. [WithContainerFs] derives the containerfs
// thresholds once the [Layout] is known. The signal tables ([Signal.Resource],
// [Signal.Filesystem], [Signal.NodeCondition]), the [Layout] and the
// [Filesystem] names are the vocabulary packages ranking and nodepressure
// share.
//
// # Evaluating
//
// Every step of the kubelet's synchronize is a pure function: [Met],
// [Merge], [FirstObservedAt], [MetGracePeriod], [NodeConditions],
// [NodeConditionsLastObservedAt], [NodeConditionsObservedSince],
// [UpdatedStats], [StarvedResources] and [KillGracePeriod]. An [Evaluator]
// chains them and keeps the state between cycles; [Evaluator.Observe] takes
// the time as an argument and reads no clock.
// Its [Result] carries the node conditions to report and, if a resource is
// starved, the threshold, signal and resource to reclaim and whether the
// threshold is soft, which is what a caller needs to choose a pod ranking
// and a kill grace period.
//
// # Guarantees
//
//   - An [Observation] with a nil Available is absent, exactly like a signal
//     with no entry, in every function that reads [Observations]: in the
//     current cycle ([Met], [UpdatedStats], [Evaluator.Observe],
//     [Evaluator.ReclaimSatisfied]) and as a previous observation
//     ([UpdatedStats], the Evaluator's memory of the last cycle).
//   - Percentages resolve exactly as upstream: float32 percentage widened to
//     float64, multiplied by the capacity and truncated, so 10% of 1000Mi is
//     104857601 bytes.
//   - Every validation of ParseThresholdConfig is reproduced; errors name the
//     flag, the signal and the value and wrap one sentinel per category
//     ([ErrUnsupportedSignal], [ErrInvalidThreshold], [ErrInvalidGracePeriod],
//     [ErrMissingGracePeriod], [ErrInvalidMinReclaim], [ErrMalformedPair],
//     [ErrSplitFsDisabled], [ErrConflictingThresholds]); every error starts
//     with "thresholds: " once. Non-fatal findings are warnings, returned
//     beside the result and apart from errors ([WithContainerFs]'s wrap
//     [ErrContainerFsOverride]). No input makes a function panic.
//   - Results are deterministic: no output depends on map iteration order.
//   - No function modifies its arguments, including the cached text inside a
//     resource.Quantity.
//   - No global state, no feature-gate registry, no logging; time comes from
//     arguments or the clock in [Options].
//
// One Evaluator cycle costs microseconds: O(t) threshold checks for t
// configured thresholds and O(n²) threshold comparisons for n met ones (both
// at most a few dozen).
//
// # Differences from upstream
//
//   - Map order. Upstream parses each flag map in Go map order, so the order
//     of thresholds and which of several invalid entries is reported are
//     random. Here keys are processed in lexicographic order and the first
//     error in the order hard, soft, grace periods, minimum reclaims,
//     missing grace periods is returned.
//   - Eligible order. Upstream's thresholdsMetGracePeriod ranges over a map,
//     and byEvictionPriority is not a strict ordering (it only moves the two
//     memory signals to the front and unknown signals to the back) and is
//     applied with the unstable sort.Sort. Here [MetGracePeriod] keeps the
//     order of the met thresholds and [CompareEvictionPriority] orders
//     memory.available, allocatableMemory.available, the other signals, then
//     unknown ones, hard before soft within each class, ties in
//     configuration order. With several starved resources (say nodefs and
//     pid) or a hard and a soft threshold of one memory signal, upstream
//     picks one at random; every choice made here is one of those upstream
//     can make (for lists of up to 12 thresholds upstream's insertion sort
//     puts the memory thresholds first in the reverse of their random input
//     order and keeps the others in input order).
//   - Conditions order. Upstream's nodeConditionsObservedSince ranges over a
//     map; [NodeConditionsObservedSince] returns MemoryPressure,
//     DiskPressure, PIDPressure in that order.
//   - Threshold identity. Upstream keys its first-observed map by the
//     Threshold struct, that is by the addresses of its quantities. Here
//     thresholds are identified by [Threshold.Equal] (logically equal
//     values and minimum reclaims), and [ThresholdTimes] is an ordered list.
//     [NewEvaluator] rejects two thresholds that are equivalent but for
//     their minimum reclaim, which upstream's merge silently conflates.
//   - Operator. Upstream stores an operator in each threshold and never
//     meets one whose operator is not LessThan. Here the operator is implied
//     by the signal, and a threshold on an unknown signal is never met.
//   - NaN. Upstream accepts "NaN%" as a threshold or minimum reclaim and then
//     converts NaN to an integer in a platform-specific way; it is rejected
//     here with [ErrInvalidThreshold] or [ErrInvalidMinReclaim]. Percentage
//     products outside the int64 range saturate instead of wrapping.
//   - Containerfs. Upstream's UpdateContainerFsThresholds appends a
//     placeholder threshold with an empty operator (never met) when the
//     source filesystem has no threshold, leaves all but the last
//     user-supplied containerfs threshold of each kind in place unchanged,
//     mutates its input and reports only the last conflict, as an error
//     beside a valid result. [WithContainerFs] omits placeholders, drops
//     every user containerfs threshold it does not replace, returns a new
//     slice and one warning per conflict, and no error.
//   - Transition period. The kubelet's config defaulting turns a zero
//     pressure transition period into 5m, while an explicit flag "0s"
//     survives and disables condition reporting. In [Options] zero means
//     the default and a negative value disables reporting.
//   - First cycle. The kubelet's synchronize derives the containerfs
//     thresholds during its first cycle but, through a shadowed variable,
//     evaluates that cycle without them. An [Evaluator] uses the thresholds
//     it is given from the first cycle on.
//   - Nil amounts. The kubelet's makeSignalObservations never records an
//     observation without an available amount; it leaves the signal out.
//     An [Observation] with a nil Available, which upstream would
//     dereference, is treated as that missing entry everywhere, so a
//     threshold whose previous observation had no available amount is
//     kept by [UpdatedStats] as upstream's thresholdsUpdatedStats keeps one
//     with no previous observation.
package thresholds
