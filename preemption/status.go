package preemption

import (
	"errors"
	"strconv"
	"strings"
)

// Code is the outcome of a fit check, of a victim search on one node or of a
// whole preemption attempt. The values mirror the scheduler framework codes
// this package needs.
type Code int

const (
	// Success means the preemptor fits (fit check), victims were found
	// (victim search) or a node was chosen (preemption).
	Success Code = iota
	// Unschedulable means the preemptor does not fit, but removing pods
	// from the node may change that.
	Unschedulable
	// UnschedulableAndUnresolvable means removing pods cannot make the
	// preemptor fit (for example it requests more than the node has).
	UnschedulableAndUnresolvable
	// Error means an evaluation failed for a reason other than fit.
	Error
)

// String returns the framework name of the code.
func (c Code) String() string {
	switch c {
	case Success:
		return "Success"
	case Unschedulable:
		return "Unschedulable"
	case UnschedulableAndUnresolvable:
		return "UnschedulableAndUnresolvable"
	case Error:
		return "Error"
	}
	return "Code(" + strconv.Itoa(int(c)) + ")"
}

// Status is a [Code] with the reasons behind it, in the order the scheduler
// reports them ("Too many pods", "Insufficient cpu", ...).
type Status struct {
	// Code is the outcome.
	Code Code
	// Reasons explain a failure; none for Success.
	Reasons []string
}

// IsSuccess reports whether s has code [Success].
func (s Status) IsSuccess() bool { return s.Code == Success }

// Message returns the reasons joined by ", ", as the scheduler prints them.
func (s Status) Message() string { return strings.Join(s.Reasons, ", ") }

// String returns the code followed by the message.
func (s Status) String() string {
	if len(s.Reasons) == 0 {
		return s.Code.String()
	}
	return s.Code.String() + ": " + s.Message()
}

// Reasons the package reports, worded as upstream words them.
const (
	reasonNoVictims       = "No preemption victims found for incoming pod"
	reasonNotHelpful      = "Preemption is not helpful for scheduling"
	reasonTooManyPods     = "Too many pods"
	reasonNoCandidateNode = "no candidate node for preemption"
	reasonStrictPDB       = "preemption would violate a PodDisruptionBudget"
)

// Sentinel errors, one per category. Every error this package returns starts
// with "preemption: ", names the offending input and wraps one of them; test
// with [errors.Is].
var (
	// ErrInvalidInput reports a nil preemptor, node or pod, a nil
	// PodDisruptionBudget given to [NewPDBs], a node without a name, the
	// zero NodeSnapshot, two snapshots with the same node name, or a
	// [NodeSource] that gives the snapshot of another node.
	ErrInvalidInput = errors.New("invalid input")
	// ErrInvalidOptions reports options upstream's validation rejects.
	ErrInvalidOptions = errors.New("invalid options")
	// ErrNotEligible reports a preemptor that may not preempt now
	// (upstream: Unschedulable, nomination left unchanged).
	ErrNotEligible = errors.New("preemptor not eligible")
	// ErrNoNodes reports an empty node list (upstream: Error).
	ErrNoNodes = errors.New("no nodes available")
	// ErrNoCandidate reports that no node can host the preemptor even
	// after preemption (upstream: Unschedulable).
	ErrNoCandidate = errors.New("no candidate node")
	// ErrNodeEvaluation reports that evaluating some nodes failed and no
	// candidate was found (upstream: Error), or that a [NodeSource] could
	// not give a snapshot the decision needs outside the dry run.
	ErrNodeEvaluation = errors.New("node evaluation failed")
	// ErrCandidateFilter reports an error returned by
	// [Options.CandidateFilter] or a candidate it returned without victims.
	ErrCandidateFilter = errors.New("candidate filter failed")
)
