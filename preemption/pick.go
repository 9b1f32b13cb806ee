package preemption

import (
	"math"
	"strconv"
	"time"

	v1 "k8s.io/api/core/v1"

	"github.com/evictkit/eviction/podresources"
)

// Candidate is a node on which the preemptor can run once its victims are
// evicted.
type Candidate struct {
	// Node is the node name.
	Node string
	// Victims are the pods to evict there.
	Victims Victims
}

// Criterion names the rule of [PickNodeExplained] that separated the chosen
// node from the others.
type Criterion int

const (
	// CriterionNone means there was no candidate.
	CriterionNone Criterion = iota
	// CriterionSingle means there was exactly one candidate, returned
	// without scoring.
	CriterionSingle
	// CriterionPDBViolations is "fewest PodDisruptionBudget violations".
	CriterionPDBViolations
	// CriterionHighestPriority is "the lowest priority of the most
	// important victim".
	CriterionHighestPriority
	// CriterionPrioritySum is "the smallest sum of victim priorities",
	// each shifted by 2³¹ so that more victims never sum lower.
	CriterionPrioritySum
	// CriterionVictimCount is "fewest victims".
	CriterionVictimCount
	// CriterionStartTime is "the latest start time among the victims of
	// the highest priority" (the most recently started work is lost).
	CriterionStartTime
	// CriterionOrder means every criterion tied and the first candidate in
	// order won (upstream: whichever node its map iteration yields first).
	CriterionOrder
	// CriterionScoreFunc means a caller score function decided; see
	// [Decision.ScoreFunc].
	CriterionScoreFunc
)

// String describes the criterion in words.
func (c Criterion) String() string {
	switch c {
	case CriterionNone:
		return "no candidate"
	case CriterionSingle:
		return "only candidate"
	case CriterionPDBViolations:
		return "fewest PDB violations"
	case CriterionHighestPriority:
		return "lowest highest-victim priority"
	case CriterionPrioritySum:
		return "smallest victim priority sum"
	case CriterionVictimCount:
		return "fewest victims"
	case CriterionStartTime:
		return "latest start time of the highest-priority victims"
	case CriterionOrder:
		return "first in candidate order"
	case CriterionScoreFunc:
		return "custom score function"
	}
	return "Criterion(" + strconv.Itoa(int(c)) + ")"
}

// Decision explains the result of [PickNodeExplained].
type Decision struct {
	// Criterion is the rule that left a single node.
	Criterion Criterion
	// ScoreFunc is the index of the deciding score function when Criterion
	// is CriterionScoreFunc.
	ScoreFunc int
	// RunnerUp is the best node the deciding rule eliminated (the highest
	// score among the losers, first in order), or the second node still
	// tied for CriterionOrder; "" when there was at most one candidate.
	RunnerUp string
}

// String reads like "fewest victims (runner-up n2)".
func (d Decision) String() string {
	s := d.Criterion.String()
	if d.Criterion == CriterionScoreFunc {
		s += " " + strconv.Itoa(d.ScoreFunc)
	}
	if d.RunnerUp != "" {
		s += " (runner-up " + d.RunnerUp + ")"
	}
	return s
}

// PickNode chooses the node to preempt on among candidates, as
// pickOneNodeForPreemption does with the default criteria. Each criterion
// keeps only the best candidates and the first one that leaves a single
// candidate decides:
//
//  1. fewest PodDisruptionBudget violations;
//  2. lowest priority of Victims.Pods[0] (the most important victim);
//  3. smallest sum of victim priorities, each shifted by 2³¹;
//  4. fewest victims;
//  5. latest start time of the earliest-started victim among those with the
//     highest priority (a missing start time reads as now);
//  6. the first remaining candidate in slice order.
//
// It returns the zero Candidate when candidates is empty.
func PickNode(candidates []Candidate, now time.Time) Candidate {
	c, _ := PickNodeExplained(candidates, now, nil)
	return c
}

// PickNodeExplained is [PickNode] that also says which criterion decided and
// which node came second. Non-nil scoreFuncs replace the default criteria
// (each maps a candidate to a score, higher is better; the next one only
// breaks ties), as a plugin's OrderedScoreFuncs do upstream.
func PickNodeExplained(candidates []Candidate, now time.Time, scoreFuncs []ScoreFunc) (Candidate, Decision) {
	switch len(candidates) {
	case 0:
		return Candidate{}, Decision{Criterion: CriterionNone}
	case 1:
		return candidates[0], Decision{Criterion: CriterionSingle}
	}
	var score func(stage, i int) int64
	stages := len(scoreFuncs)
	if stages > 0 {
		score = func(stage, i int) int64 { return scoreFuncs[stage](candidates[i]) }
	} else {
		keys := make([][5]int64, len(candidates))
		for i := range candidates {
			keys[i] = pickKeys(&candidates[i].Victims, now)
		}
		stages = len(keys[0])
		score = func(stage, i int) int64 { return keys[i][stage] }
	}

	left := make([]int, len(candidates))
	for i := range left {
		left[i] = i
	}
	kept := make([]int, 0, len(candidates))
	for stage := range stages {
		best := int64(math.MinInt64)
		kept = kept[:0]
		for _, i := range left {
			switch s := score(stage, i); {
			case s > best:
				best = s
				kept = append(kept[:0], i)
			case s == best:
				kept = append(kept, i)
			}
		}
		if len(kept) == 1 {
			d := Decision{Criterion: CriterionPDBViolations + Criterion(stage)}
			if len(scoreFuncs) > 0 {
				d = Decision{Criterion: CriterionScoreFunc, ScoreFunc: stage}
			}
			d.RunnerUp = runnerUp(candidates, left, kept[0], func(i int) int64 { return score(stage, i) })
			return candidates[kept[0]], d
		}
		left, kept = kept, left
	}
	return candidates[left[0]], Decision{Criterion: CriterionOrder, RunnerUp: candidates[left[1]].Node}
}

// runnerUp returns the node with the best score among left other than
// winner, first in order on ties.
func runnerUp(candidates []Candidate, left []int, winner int, score func(int) int64) string {
	best, name := int64(math.MinInt64), ""
	found := false
	for _, i := range left {
		if i == winner {
			continue
		}
		if s := score(i); !found || s > best {
			best, name, found = s, candidates[i].Node, true
		}
	}
	return name
}

// pickKeys computes the five default scores of a candidate at once.
func pickKeys(v *Victims, now time.Time) [5]int64 {
	if len(v.Pods) == 0 {
		// Upstream never builds a candidate without victims; evicting
		// nothing ranks best on every priority criterion.
		return [5]int64{-int64(v.NumPDBViolations), math.MaxInt64, 0, 0, math.MinInt64}
	}
	var sum int64
	for _, p := range v.Pods {
		sum += int64(podresources.Priority(p)) + math.MaxInt32 + 1
	}
	return [5]int64{
		-int64(v.NumPDBViolations),
		-int64(podresources.Priority(v.Pods[0])),
		-sum,
		-int64(len(v.Pods)),
		earliestTopStart(v.Pods, now).UnixNano(),
	}
}

// earliestTopStart is GetEarliestPodStartTime: the earliest start time among
// the victims that have the highest priority.
func earliestTopStart(pods []*v1.Pod, now time.Time) time.Time {
	top, earliest := podresources.Priority(pods[0]), victimStart(pods[0], now)
	for _, p := range pods {
		switch prio := podresources.Priority(p); {
		case prio == top:
			if t := victimStart(p, now); t.Before(earliest) {
				earliest = t
			}
		case prio > top:
			top, earliest = prio, victimStart(p, now)
		}
	}
	return earliest
}

func victimStart(p *v1.Pod, now time.Time) time.Time {
	if p == nil || p.Status.StartTime == nil {
		return now
	}
	return p.Status.StartTime.Time
}
