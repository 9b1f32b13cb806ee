package preemption

import (
	"fmt"
	"math/rand/v2"
	"runtime"

	v1 "k8s.io/api/core/v1"
)

// Options tunes a preemption decision. The zero value is upstream's default
// DefaultPreemption plugin with NodeResourcesFit as the only filter.
//
// Every hook may be called from several goroutines at once when
// [Options.Workers] is not 1, and must not modify its arguments.
type Options struct {
	// Sampling is DefaultPreemptionArgs; nil means 10% and 100 nodes.
	Sampling *Sampling

	// Offset returns where the dry run starts among the n potential nodes.
	// A value outside [0, n) is reduced modulo n. Nil means a uniform random
	// offset, as upstream; tests pin it with [FixedOffset].
	Offset func(n int32) int32

	// Workers bounds how many nodes [Preempt] evaluates at once; 0 or less
	// means GOMAXPROCS. The result does not depend on it.
	Workers int

	// PriorStatus is the outcome of the failed scheduling pass for each node
	// (upstream's NodeToStatus). Only nodes with [Unschedulable] are
	// considered for preemption, and a node missing from a non-nil map
	// counts as [UnschedulableAndUnresolvable], as upstream. Nil means the
	// package computes every node's status itself with its fit model
	// (NodeResourcesFit, nominated pods and Filters).
	PriorStatus map[string]Code

	// IsEligibleVictim can veto a lower-priority pod as a victim on node.
	// Nil means every lower-priority pod is eligible.
	IsEligibleVictim func(node *NodeSnapshot, victim, preemptor *v1.Pod) bool

	// MoreImportant reports whether victim a is more important than b, so
	// that a is reprieved first. Nil means higher priority first, then the
	// earlier start time (MoreImportantVictim for single pods). The sorts
	// are stable: ties keep the snapshot order, and among the victims the
	// PDB-violating ones first (see [SelectVictims]).
	MoreImportant func(a, b *v1.Pod) bool

	// Filters run after the resource check on every fit check, in order;
	// the first that does not fit rejects the node as Unschedulable, with
	// its reason.
	// Use them for plugins whose failures preemption can resolve (host
	// ports, pod anti-affinity, topology spread, volume limits). Nodes
	// that fail for reasons preemption cannot fix belong in PriorStatus as
	// UnschedulableAndUnresolvable.
	Filters []Filter

	// IgnoredResources and IgnoredResourceGroups name extended resources
	// (or their domain prefix, e.g. "example.com") that the resource check
	// skips, as in NodeResourcesFitArgs.
	IgnoredResources      []string
	IgnoredResourceGroups []string

	// ScoreFuncs, when set, replace the default node-pick criteria: each
	// maps a candidate to a score, higher is better, and the next function
	// only breaks ties of the previous one (OrderedScoreFuncs).
	ScoreFuncs []ScoreFunc

	// CandidateFilter, when set, sees the dry-run candidates before the
	// pick and returns those that may be used, like a preemption-aware
	// scheduler extender. Returning an error, or a candidate without
	// victims, fails the attempt with ErrCandidateFilter.
	CandidateFilter func(preemptor *v1.Pod, candidates []Candidate) ([]Candidate, error)

	// StrictPDB, beyond upstream, never picks a candidate whose victims
	// violate a PodDisruptionBudget (NumPDBViolations > 0). When every
	// candidate does, the attempt fails with ErrNoCandidate.
	StrictPDB bool
}

// Sampling bounds how many candidate nodes the dry run looks for
// (DefaultPreemptionArgs).
type Sampling struct {
	// MinCandidateNodesPercentage is a percentage of the potential nodes,
	// 0 to 100.
	MinCandidateNodesPercentage int32
	// MinCandidateNodesAbsolute is a lower bound on the count, at least 0.
	// It may not be 0 together with MinCandidateNodesPercentage.
	MinCandidateNodesAbsolute int32
}

// DefaultSampling is upstream's default DefaultPreemptionArgs.
func DefaultSampling() Sampling {
	return Sampling{MinCandidateNodesPercentage: 10, MinCandidateNodesAbsolute: 100}
}

// Validate reports the checks ValidateDefaultPreemptionArgs makes, wrapped in
// [ErrInvalidOptions].
func (s Sampling) Validate() error {
	switch {
	case s.MinCandidateNodesPercentage < 0 || s.MinCandidateNodesPercentage > 100:
		return fmt.Errorf("preemption: minCandidateNodesPercentage %d not in [0, 100]: %w", s.MinCandidateNodesPercentage, ErrInvalidOptions)
	case s.MinCandidateNodesAbsolute < 0:
		return fmt.Errorf("preemption: minCandidateNodesAbsolute %d is negative: %w", s.MinCandidateNodesAbsolute, ErrInvalidOptions)
	case s.MinCandidateNodesPercentage == 0 && s.MinCandidateNodesAbsolute == 0:
		return fmt.Errorf("preemption: minCandidateNodesPercentage and minCandidateNodesAbsolute are both 0: %w", ErrInvalidOptions)
	}
	return nil
}

// NumCandidates returns how many candidates the dry run collects among n
// potential nodes: n·percentage/100 (int32 arithmetic, as upstream), raised
// to the absolute minimum, capped at n.
func (s Sampling) NumCandidates(n int32) int32 {
	c := n * s.MinCandidateNodesPercentage / 100
	c = max(c, s.MinCandidateNodesAbsolute)
	return min(c, n)
}

// FixedOffset returns an [Options.Offset] that always starts at k (mod n).
func FixedOffset(k int32) func(n int32) int32 {
	return func(int32) int32 { return k }
}

// ScoreFunc scores a candidate for [PickNodeExplained]; higher is better.
type ScoreFunc func(c Candidate) int64

func (o *Options) sampling() Sampling {
	if o.Sampling == nil {
		return DefaultSampling()
	}
	return *o.Sampling
}

func (o *Options) validate() error {
	return o.sampling().Validate()
}

func (o *Options) workers() int {
	if o.Workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return o.Workers
}

// offset returns the start index among n > 0 potential nodes.
func (o *Options) offset(n int32) int32 {
	if o.Offset == nil {
		return rand.Int32N(n)
	}
	k := o.Offset(n) % n
	if k < 0 {
		k += n
	}
	return k
}
