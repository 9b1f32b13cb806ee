package taints

import "errors"

// Sentinel errors, one per category. Every error returned by this package wraps exactly one of
// them; test with [errors.Is]. The message itself keeps the wording kubectl prints, prefixed
// with "taints: ".
var (
	// ErrInvalidSpec reports a taint spec of the wrong shape: more than one ':' or '=', or an
	// addition without an effect.
	ErrInvalidSpec = errors.New("invalid taint spec")
	// ErrInvalidKey reports a key that is not a qualified name (label key).
	ErrInvalidKey = errors.New("invalid taint key")
	// ErrInvalidValue reports a value that is not a valid label value.
	ErrInvalidValue = errors.New("invalid taint value")
	// ErrInvalidEffect reports an effect other than NoSchedule, PreferNoSchedule or NoExecute.
	ErrInvalidEffect = errors.New("invalid taint effect")
	// ErrDuplicate reports two additions with the same (Key, Effect).
	ErrDuplicate = errors.New("duplicated taint")
	// ErrConflict reports a taint that one command both adds and removes.
	ErrConflict = errors.New("conflicting taint changes")
	// ErrAlreadyExists reports an addition whose (Key, Effect) the node already has while
	// overwriting is off.
	ErrAlreadyExists = errors.New("taint already exists")
	// ErrNotFound reports a removal that matches no taint.
	ErrNotFound = errors.New("taint not found")
)

// kindError carries an exact message and the sentinel of its category.
type kindError struct {
	msg  string
	kind error
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

func newError(kind error, msg string) error {
	return &kindError{msg: "taints: " + msg, kind: kind}
}
