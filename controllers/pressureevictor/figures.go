package pressureevictor

import (
	"errors"
	"fmt"
	"math"

	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/statsummary"
	"github.com/evictkit/eviction/thresholds"
)

// ErrAbsurdFigure is wrapped by the error of a cycle skipped because the
// summary holds a count of 2^63 or more, which no node has: the kubelet's
// arithmetic (and the library's, which mirrors it) reads such a count as
// negative, so that "all the memory there is" would read as none.
var ErrAbsurdFigure = errors.New("absurd figure")

// checkFigures returns an error wrapping ErrAbsurdFigure that names the
// first figure of s, by its JSON path, that is 2^63 or more.
func checkFigures(s *statsummary.Summary) error {
	var path string
	var value uint64
	check := func(p string, v uint64) bool {
		if v > math.MaxInt64 {
			path, value = p, v
			return true
		}
		return false
	}
	ptr := func(p string, v *uint64) bool { return v != nil && check(p, *v) }
	memory := func(p string, m *thresholds.MemoryStats) bool {
		return m != nil && (ptr(p+".availableBytes", m.AvailableBytes) || ptr(p+".workingSetBytes", m.WorkingSetBytes) || ptr(p+".usageBytes", m.UsageBytes))
	}
	fs := func(p string, f *thresholds.FsStats) bool {
		return f != nil && (ptr(p+".availableBytes", f.AvailableBytes) || ptr(p+".capacityBytes", f.CapacityBytes) ||
			ptr(p+".inodesFree", f.InodesFree) || ptr(p+".inodes", f.Inodes))
	}
	used := func(p string, u ranking.FSUsage) bool {
		return check(p+".usedBytes", u.UsedBytes) || check(p+".inodesUsed", u.InodesUsed)
	}
	n := s.Node
	found := memory("node.memory", n.Memory) || memory(`node.systemContainers["pods"].memory`, n.PodsMemory) ||
		memory(`node.systemContainers["windows-global-commit-memory"].memory`, n.CommitMemory) ||
		fs("node.fs", n.NodeFs) || fs("node.runtime.imageFs", n.ImageFs) || fs("node.runtime.containerFs", n.ContainerFs)
	for i := 0; !found && i < len(s.Pods); i++ {
		p := fmt.Sprintf("pods[%d]", i)
		u := s.Pods[i].Usage
		found = check(p+".memory.workingSetBytes", u.MemoryWorkingSet) || check(p+".process_stats.process_count", u.Processes) ||
			check(p+".ephemeral-storage.usedBytes", u.EphemeralStorage)
		for j := 0; !found && j < len(u.Containers); j++ {
			c := fmt.Sprintf("%s.containers[%d]", p, j)
			found = check(c+".memory.workingSetBytes", u.Containers[j].MemoryWorkingSet) || used(c+".rootfs", u.Containers[j].Rootfs) || used(c+".logs", u.Containers[j].Logs)
		}
		for j := 0; !found && j < len(u.Volumes); j++ {
			found = used(fmt.Sprintf("%s.volume[%d]", p, j), u.Volumes[j].FSUsage)
		}
	}
	if !found {
		return nil
	}
	return fmt.Errorf("pressureevictor: summary of node %q: %s is %d, 2^63 or more, which no node has: %w", s.NodeName, path, value, ErrAbsurdFigure)
}
