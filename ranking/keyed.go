package ranking

import (
	"cmp"
	"math"
	"math/big"
	"slices"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// keyed sorts pods by sort keys computed once per pod. The keys are small and hold no
// pointers (cheap to move, an unscanned allocation, none for up to smallKeys pods); the pods
// are touched again only to break full ties on identity.
type keyed struct {
	pods   []*v1.Pod     // the input, unchanged until the sort is done
	keys   []key         // keys[i] belongs to pods[i] until sorted
	words  []uint64      // scratch for sortPacked, len(pods) or allocated there
	exacts *exactMetrics // metrics that a key cannot hold exactly; usually none
}

// exactMetrics holds the metrics that keys cannot hold exactly. It sits behind a pointer so
// that appending to it, which stores a heap pointer, does not make the keys escape to the
// heap: escape analysis does not tell one field of keyed from another.
type exactMetrics struct{ list []resource.Quantity }

// smallKeys is the number of pods the ranking functions sort without allocating: as many as
// a node holds at the kubelet's default maxPods (110), with room to spare.
const smallKeys = 128

// smallBuffers is the memory the ranking functions keep on the stack for up to smallKeys pods.
type smallBuffers struct {
	keys  [smallKeys]key
	words [smallKeys]uint64
}

// key is one pod's sort key. Smaller sorts first on every field except metric.
type key struct {
	// lead packs the leading criteria (stats found, exceeds requests, priority).
	lead uint64
	// metric is the ceiling of the usage figure, saturated to int64; larger sorts first.
	metric int64
	// exact is 1 + the index in exacts of the metric's exact value, or 0 when metric is exact.
	exact int32
	// idx is the pod's input position: it finds the pod and breaks the last ties.
	idx int32
}

// newKeyed prepares zero keys for pods, in small when they fit. Positions are int32: a slice
// of 2^31 pods would hold 16 GiB of pointers alone.
func newKeyed(pods []*v1.Pod, small *smallBuffers) *keyed {
	var keys []key
	var words []uint64
	if len(pods) <= smallKeys {
		keys, words = small.keys[:len(pods)], small.words[:len(pods)]
	} else {
		keys = make([]key, len(pods))
	}
	s := &keyed{pods: pods, keys: keys, words: words}
	for i := range s.keys {
		s.keys[i].idx = int32(i)
	}
	return s
}

// setMetric stores q, which the caller owns, as k's metric.
func (s *keyed) setMetric(k *key, q resource.Quantity) {
	if v, ok := q.AsInt64(); ok {
		k.metric = v
		return
	}
	k.metric = ceilInt64(q)
	if q.CmpInt64(k.metric) == 0 {
		return
	}
	if s.exacts == nil {
		s.exacts = new(exactMetrics)
	}
	s.exacts.list = append(s.exacts.list, q)
	k.exact = int32(len(s.exacts.list))
}

// exactMetric returns k's metric as an exact quantity.
func (s *keyed) exactMetric(k *key) resource.Quantity {
	if k.exact > 0 {
		return s.exacts.list[k.exact-1].DeepCopy()
	}
	var q resource.Quantity
	q.Set(k.metric)
	return q
}

// compare orders keys: by lead, then metric (larger first), then [keyed.tie].
func (s *keyed) compare(a, b key) int {
	if a.lead != b.lead {
		return cmp.Compare(a.lead, b.lead)
	}
	if a.metric != b.metric {
		return cmp.Compare(b.metric, a.metric) // larger first
	}
	return s.tie(a, b)
}

// tie orders two keys whose lead and metric fields are equal: by exact metric (larger
// first), then [keyed.tieAt]. With the comparison of lead and metric in compare, it is a
// strict weak ordering of keys, total over distinct positions.
func (s *keyed) tie(a, b key) int {
	if a.exact|b.exact != 0 {
		qa, qb := s.exactMetric(&a), s.exactMetric(&b)
		if c := qb.Cmp(qa); c != 0 {
			return c
		}
	}
	return s.tieAt(a.idx, b.idx)
}

// tieAt orders the pods at input positions i and j, whose keys are equal: by identity, then
// position.
func (s *keyed) tieAt(i, j int32) int {
	if c := compareIdentity(s.pods[i], s.pods[j]); c != 0 {
		return c
	}
	return cmp.Compare(i, j)
}

// sort sorts the keys into the order of compare and rearranges the pods to match. Keys that
// pack into integers are sorted as integers (see sortPacked); others with a comparison sort.
// Both give the one order of compare, which is total.
func (s *keyed) sort() {
	if p, ok := s.packing(); ok {
		s.sortPacked(p)
	} else {
		slices.SortFunc(s.keys, s.compare)
	}
	s.permute()
}

// permute rearranges the pods into the order of the sorted keys, in place: position j
// receives the pod at keys[j].idx. It reads only the idx fields. Each cycle is followed once;
// visited keys are marked with idx = -1.
func (s *keyed) permute() {
	for i := range s.keys {
		if s.keys[i].idx < 0 {
			continue
		}
		first := s.pods[i]
		j := i
		for {
			from := int(s.keys[j].idx)
			s.keys[j].idx = -1
			if from == i {
				s.pods[j] = first
				break
			}
			s.pods[j] = s.pods[from]
			j = from
		}
	}
}

// compareIdentity orders pods by namespace, name and UID; nil pods sort first.
func compareIdentity(a, b *v1.Pod) int {
	switch {
	case a == b:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	if c := strings.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return strings.Compare(string(a.UID), string(b.UID))
}

// ceilInt64 returns the ceiling of q saturated to the int64 range. It computes with math/big
// because Quantity.Value mis-rounds large negative values held in big-decimal form, and it
// never builds a power of ten larger than the value's own digits, so a request such as
// "1e8000000" costs no more than its parsing did.
func ceilInt64(q resource.Quantity) int64 {
	d := q.AsDec() // q is a copy; converting it in place is harmless
	u := new(big.Int).Set(d.UnscaledBig())
	scale := int64(d.Scale()) // the value is u × 10^-scale
	switch {
	case u.Sign() == 0:
		return 0
	case scale < -19: // |value| ≥ 10^20
		return saturate(u.Sign())
	case scale < 0:
		u.Mul(u, pow10(-scale))
	case scale > int64(u.BitLen())*31/100+1: // |value| < 1
		if u.Sign() > 0 {
			return 1
		}
		return 0
	case scale > 0:
		var rem big.Int
		u.QuoRem(u, pow10(scale), &rem)
		if rem.Sign() > 0 { // truncation already rounded negative values up
			u.Add(u, big.NewInt(1))
		}
	}
	if u.IsInt64() {
		return u.Int64()
	}
	return saturate(u.Sign())
}

func pow10(n int64) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(n), nil) }

// saturate returns the int64 bound on the side of sign.
func saturate(sign int) int64 {
	if sign > 0 {
		return math.MaxInt64
	}
	return math.MinInt64
}

// uintQuantity returns u exactly (no int64 wrap).
func uintQuantity(u uint64) resource.Quantity {
	half := resource.NewQuantity(int64(u>>1), resource.DecimalSI)
	q := half.DeepCopy()
	q.Add(*half)
	q.Add(*resource.NewQuantity(int64(u&1), resource.DecimalSI))
	return q
}
