package ranking

import (
	"fmt"
	"math"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/evictkit/eviction/thresholds"
)

// ForMemory sorts pods in place into the order the kubelet evicts them under memory pressure
// (signals memory.available and allocatableMemory.available; upstream: rankMemoryPressure),
// first = evicted first:
//
//  1. pods without stats (usage reports false);
//  2. pods whose memory working set exceeds their memory request ([Request]) before
//     pods that do not;
//  3. lower [Priority] first;
//  4. larger working set minus request first (the difference may be negative);
//  5. ties: namespace, then name, then UID, then input order.
//
// The pods themselves are not modified. Each pod's request and usage are computed once per
// call; the sort is O(n log n) comparisons of precomputed keys (or a sort of integers, see
// the package documentation) and allocates at most 3 times, not at all for up to 128 pods.
func ForMemory(pods []*v1.Pod, usage UsageFunc, opts Options) {
	var small smallBuffers
	s := newKeyed(pods, &small)
	for i, p := range pods {
		opts.memoryKey(s, &s.keys[i], p, usage)
	}
	s.sort()
}

// ForDisk sorts pods in place into the order the kubelet evicts them under pressure on
// resource res of filesystem fs on a node with the given layout (upstream: the rank function
// buildSignalToRankFunc picks, rankDiskPressureFunc), first = evicted first:
//
//  1. pods without stats;
//  2. pods whose usage of res exceeds their request for res ([Request]) first;
//  3. lower [Priority] first;
//  4. larger usage of res minus the ephemeral-storage request first;
//  5. ties: namespace, then name, then UID, then input order.
//
// Usage is [DiskUsage] over [DiskSources](fs, layout). res picks the figure: ephemeral-storage
// means bytes (signals *.available), [thresholds.ResourceInodes] means inodes (*.inodesFree);
// other names read zero usage, as upstream's rank function would. On the zero layout (one
// filesystem) every fs ranks alike.
//
// For inodes this reproduces two upstream quirks: step 2 compares inodes with the pod's
// request for a resource named "inodes", which valid pods cannot set, so every pod using an
// inode exceeds; and step 4 subtracts the ephemeral-storage request in bytes from an inode
// count, so a pod with a large storage request sorts after one without.
//
// With a split layout the imagefs ranking measures images only, which no pod is charged for:
// nobody exceeds, and pods sort by priority and then by smallest ephemeral-storage request.
func ForDisk(pods []*v1.Pod, usage UsageFunc, res v1.ResourceName, fs thresholds.Filesystem, layout thresholds.Layout, opts Options) {
	src := DiskSources(fs, layout)
	var small smallBuffers
	s := newKeyed(pods, &small)
	for i, p := range pods {
		opts.diskKey(s, &s.keys[i], p, usage, src, res)
	}
	s.sort()
}

// ForPIDs sorts pods in place into the order the kubelet evicts them under PID pressure
// (signal pid.available; upstream: rankPIDPressure), first = evicted first:
//
//  1. lower [Priority] first;
//  2. within a priority, pods without stats first;
//  3. more processes first;
//  4. ties: namespace, then name, then UID, then input order.
//
// No [Options] field changes it, so it takes none.
func ForPIDs(pods []*v1.Pod, usage UsageFunc) {
	var small smallBuffers
	s := newKeyed(pods, &small)
	for i, p := range pods {
		pidKey(s, &s.keys[i], p, usage)
	}
	s.sort()
}

// ForSignal sorts pods in place with the ranking the kubelet uses for eviction signal sig on a
// node with the given layout (upstream: buildSignalToRankFunc): memory.available and
// allocatableMemory.available use [ForMemory]; pid.available uses [ForPIDs]; the nodefs,
// imagefs and containerfs signals use [ForDisk] with the signal's filesystem
// ([thresholds.Signal.Filesystem]) and resource ([thresholds.Signal.Resource]:
// ephemeral-storage for .available, inodes for .inodesFree). An unknown signal leaves pods
// untouched and returns an error wrapping [thresholds.ErrUnsupportedSignal].
func ForSignal(pods []*v1.Pod, usage UsageFunc, sig thresholds.Signal, layout thresholds.Layout, opts Options) error {
	res, ok := sig.Resource()
	if !ok {
		return fmt.Errorf("ranking: signal %q: %w", sig, thresholds.ErrUnsupportedSignal)
	}
	switch res {
	case v1.ResourceMemory:
		ForMemory(pods, usage, opts)
	case thresholds.ResourcePIDs:
		ForPIDs(pods, usage)
	default:
		fs, _ := sig.Filesystem()
		ForDisk(pods, usage, res, fs, layout, opts)
	}
	return nil
}

const (
	leadFound       = 1 << 33 // set for pods with stats: pods without sort first
	leadNotExceeded = 1 << 32 // set for pods within their request: exceeders sort first
)

// biased maps a priority onto uint32 so that unsigned order is priority order.
func biased(p int32) uint64 { return uint64(uint32(p) ^ 1<<31) }

// memoryKey fills k for p under memory pressure: the working set against the memory request.
func (o Options) memoryKey(s *keyed, k *key, p *v1.Pod, usage UsageFunc) {
	k.lead = biased(Priority(p))
	if u, found := lookup(usage, p); found {
		req := Request(p, v1.ResourceMemory, o)
		s.setExcess(k, quantityOf(u.MemoryWorkingSet), req, req)
	}
}

// diskKey fills k for p under pressure on res: the usage of res over src against the request
// for res, less the ephemeral-storage request (upstream subtracts that one even for inodes).
func (o Options) diskKey(s *keyed, k *key, p *v1.Pod, usage UsageFunc, src Sources, res v1.ResourceName) {
	k.lead = biased(Priority(p))
	if u, found := lookup(usage, p); found {
		storage := Request(p, v1.ResourceEphemeralStorage, o)
		req := storage
		if res != v1.ResourceEphemeralStorage {
			req = Request(p, res, o)
		}
		s.setExcess(k, DiskUsage(p, u, src, res), req, storage)
	}
}

// setExcess completes the key of a pod with stats whose usage is use (the caller's to
// consume): it exceeds when use is above req, and its metric is use - base.
func (s *keyed) setExcess(k *key, use, req, base resource.Quantity) {
	k.lead |= leadFound
	if use.Cmp(req) <= 0 {
		k.lead |= leadNotExceeded
	}
	use.Sub(base)
	s.setMetric(k, use)
}

// pidKey fills k for p under PID pressure: priority, then stats found, then process count.
func pidKey(s *keyed, k *key, p *v1.Pod, usage UsageFunc) {
	k.lead = biased(Priority(p)) << 1
	u, found := lookup(usage, p)
	if !found {
		return
	}
	k.lead |= 1
	if u.Processes <= math.MaxInt64 {
		k.metric = int64(u.Processes)
		return
	}
	s.setMetric(k, uintQuantity(u.Processes))
}
