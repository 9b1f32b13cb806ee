// This file is not part of Kubernetes. github.com/evictkit/eviction/conformance
// adds it to this package with `go test -overlay` so that its differential
// tests can call the package's unexported helpers. It only names them.

package eviction

import (
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type (
	SignalObservations       = signalObservations
	SignalObservation        = signalObservation
	StatsFunc                = statsFunc
	ThresholdsObservedAt     = thresholdsObservedAt
	NodeConditionsObservedAt = nodeConditionsObservedAt
	ByEvictionPriority       = byEvictionPriority
)

var (
	ThresholdsMet                = thresholdsMet
	MergeThresholds              = mergeThresholds
	ThresholdsFirstObservedAt    = thresholdsFirstObservedAt
	NodeConditions               = nodeConditions
	NodeConditionsLastObservedAt = nodeConditionsLastObservedAt
	NodeConditionsObservedSince  = nodeConditionsObservedSince
	ThresholdsMetGracePeriod     = thresholdsMetGracePeriod
	ThresholdsUpdatedStats       = thresholdsUpdatedStats
	GetReclaimableThreshold      = getReclaimableThreshold
	MakeSignalObservations       = makeSignalObservations
	CachedStatsFunc              = cachedStatsFunc
	BuildSignalToRankFunc        = buildSignalToRankFunc
	EvictionMessage              = evictionMessage
)

// NewSignalObservation builds the unexported observation type.
func NewSignalObservation(available, capacity *resource.Quantity, at time.Time) SignalObservation {
	return signalObservation{available: available, capacity: capacity, time: metav1.NewTime(at)}
}

// Available, Capacity and Time read an observation back.
func (o signalObservation) Available() *resource.Quantity { return o.available }
func (o signalObservation) Capacity() *resource.Quantity  { return o.capacity }
func (o signalObservation) Time() time.Time               { return o.time.Time }
