package thresholds

import "errors"

// Error categories. Every error returned by this package wraps exactly one of
// these sentinels; test for them with [errors.Is].
var (
	// ErrUnsupportedSignal reports a signal name that is not one of the nine
	// eviction signals (see [Signals]).
	ErrUnsupportedSignal = errors.New("unsupported eviction signal")
	// ErrInvalidThreshold reports an --eviction-hard or --eviction-soft value
	// that is not a positive quantity or a percentage between 0% and 100%.
	ErrInvalidThreshold = errors.New("invalid eviction threshold")
	// ErrInvalidGracePeriod reports an --eviction-soft-grace-period value that
	// is not a non-negative Go duration.
	ErrInvalidGracePeriod = errors.New("invalid eviction grace period")
	// ErrMissingGracePeriod reports a soft threshold whose signal has no
	// --eviction-soft-grace-period entry.
	ErrMissingGracePeriod = errors.New("grace period must be specified for the soft eviction threshold")
	// ErrInvalidMinReclaim reports an --eviction-minimum-reclaim value that is
	// not a non-negative quantity or a positive percentage.
	ErrInvalidMinReclaim = errors.New("invalid eviction minimum reclaim")
	// ErrMalformedPair reports a flag segment without its key/value separator
	// ('<' for thresholds, '=' for grace periods and minimum reclaims).
	ErrMalformedPair = errors.New("malformed pair")
	// ErrContainerFsOverride is wrapped by the warnings (not errors)
	// [WithContainerFs] returns when its input already holds containerfs
	// thresholds, which it replaces.
	ErrContainerFsOverride = errors.New("containerfs thresholds are derived, user value ignored")
	// ErrSplitFsDisabled is the fatal error [WithContainerFs] returns for a
	// split image/container layout while the KubeletSeparateDiskGC feature is
	// turned off.
	ErrSplitFsDisabled = errors.New("KubeletSeparateDiskGC is turned off but we still have a split filesystem")
	// ErrConflictingThresholds reports two thresholds that are equal except
	// for their minimum reclaim, which [NewEvaluator] rejects.
	ErrConflictingThresholds = errors.New("conflicting thresholds")
)
