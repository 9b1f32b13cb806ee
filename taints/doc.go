// Package taints works with node taints as plain values: it parses and formats the
// `kubectl taint` syntax, validates taints the way the API server does, and offers the set
// operations that controllers and kubectl apply to a node's taint list.
//
// It mirrors, for Kubernetes v1.37.2:
//   - k8s.io/kubernetes pkg/util/taints (parseTaint, ParseTaints, TaintExists,
//     TaintKeyExists, TaintSetDiff, TaintSetFilter, DeleteTaint, DeleteTaintsByKey,
//     AddOrUpdateTaint, RemoveTaint, CheckIfTaintsAlreadyExists, CheckTaintValidation);
//   - k8s.io/kubectl pkg/cmd/taint (parseTaints, reorganizeTaints, the conflict check of
//     TaintOptions.Validate and the overwrite check of updateTaints);
//   - k8s.io/api core/v1 taint.go (MatchTaint, ToString) and well_known_taints.go;
//   - k8s.io/kubernetes pkg/apis/core/validation (validateNodeTaints, validateTaintEffect);
//   - k8s.io/kubernetes pkg/controller/nodelifecycle (nodeConditionToTaintKeyStatusMap,
//     taintKeyToNodeConditionMap, the taint templates).
//
// # Guarantees
//
//   - No function modifies its arguments; every function that returns a list returns a fresh
//     slice the caller owns (callers deep-copy nodes themselves).
//   - Identity is (Key, Effect), compared byte-exactly ([Match]); [Equal] adds Value and
//     TimeAdded.
//   - [Parse] and [ParseSpecs] accept exactly what kubectl accepts and fail on the same first
//     error; [Parse]([Format](t)) == t for every valid taint with an effect.
//   - Errors wrap one sentinel each ([ErrInvalidSpec], [ErrInvalidKey], [ErrInvalidValue],
//     [ErrInvalidEffect], [ErrDuplicate], [ErrConflict], [ErrAlreadyExists], [ErrNotFound])
//     and keep kubectl's wording after the "taints: " prefix. Nothing panics on bad input.
//   - No package-level state: well-known taints are constants or functions returning fresh
//     values.
//
// # Strings
//
// [Format] prints "key=value:Effect", "key:Effect", "key=value:" or "key"; [Spec] and [Specs]
// do the same through fmt's %s. [ParseSpecs] splits `kubectl taint` arguments into additions
// and removals ("key-", "key:Effect-", "key=value:Effect-"), and [Apply] applies them to a
// node's list with kubectl's overwrite, conflict and not-found rules and its verb
// ([Modified], [Tainted], [Untainted]).
//
// # Sets
//
// [Exists], [KeyExists], [Diff], [Filter], [AddOrUpdate], [Remove], [RemoveKey] and
// [ExistingKeys] work on []v1.Taint. They scan linearly: taint lists are short (a node rarely
// carries more than a handful), so O(n·m) beats building maps.
//
// # Validation
//
// [ValidateList] returns the field.ErrorList the API server returns for a node's taints;
// [Validate] is the lighter single-taint check used by tools.
//
// # Well-known taints
//
// [KeyNotReady], [KeyUnreachable], [KeyUnschedulable], [KeyMemoryPressure],
// [KeyDiskPressure], [KeyNetworkUnavailable], [KeyPIDPressure], [KeyOutOfService] and the
// cloud keys. [ForCondition] is the node lifecycle controller's table "condition status →
// NoSchedule taint"; [ConditionTaints] applies it to a node, [IsConditionTaint] says which
// taints the controller manages, and [NotReadyNoExecute] / [UnreachableNoExecute] are the
// NoExecute taints it adds.
//
// # Differences from upstream
//
//   - Lists instead of nodes: [AddOrUpdate] and [Remove] take and return []v1.Taint where
//     upstream's AddOrUpdateTaint and RemoveTaint deep-copy a whole *v1.Node; they never
//     return an error (upstream's is always nil).
//   - [Diff] returns values, not pointers to copies as TaintSetDiff does; nil when empty,
//     as upstream.
//   - [Apply] returns the list and verb instead of writing into the node, and reports the
//     node-name error through [ApplyOptions.NodeName].
//   - Errors carry a "taints: " prefix and a sentinel; upstream returns bare fmt.Errorf
//     strings. The text after the prefix is upstream's.
//   - [ValidateList] reports node taint errors with the same types, paths, values and
//     details, but does not mark key errors as covered by declarative validation (an
//     API-server-internal flag).
//   - [Equal] compares TimeAdded with [time.Time.Equal]; upstream's semantic DeepEqual
//     compares the UTC times with ==, which gives the same answer.
package taints
