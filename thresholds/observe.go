package thresholds

import (
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
)

// Observation is one measurement of a signal: how much is available, out of
// what capacity, at what time. Capacity is what percentages resolve against;
// for memory it is available + working set, not the machine's memory. Time
// is the time of the statistics it was derived from and may be zero.
//
// An Observation with a nil Available counts as absent everywhere: every
// function that reads [Observations], for the current cycle or a previous
// one, treats it exactly like a signal with no entry, which is what the
// kubelet sees when its statistics lack a figure.
type Observation struct {
	// Available is the amount left; it may be negative for pid.available.
	Available *resource.Quantity
	// Capacity is the total the available amount is part of; nil counts as
	// zero.
	Capacity *resource.Quantity
	// Time is when the statistics were collected.
	Time time.Time
}

// Observations holds at most one observation per signal. A signal without
// an observation, or whose observation has a nil Available, is absent: it
// never meets a threshold and never counts as a previous observation.
type Observations map[Signal]Observation

// get returns the observation of sig if it is present, that is if it has an
// available amount. Every read of Observations goes through get.
func (o Observations) get(sig Signal) (Observation, bool) {
	ob, ok := o[sig]
	return ob, ok && ob.Available != nil
}

// present returns a shallow copy of o without its absent observations.
func (o Observations) present() Observations {
	out := make(Observations, len(o))
	for sig, ob := range o {
		if ob.Available != nil {
			out[sig] = ob
		}
	}
	return out
}

// MemoryStats is the part of the kubelet summary API's MemoryStats that
// eviction reads.
type MemoryStats struct {
	// Time is when the statistics were collected.
	Time time.Time
	// AvailableBytes is memory available.
	AvailableBytes *uint64
	// WorkingSetBytes is the working set (Linux and other systems).
	WorkingSetBytes *uint64
	// UsageBytes is the commit charge (Windows commit-memory container).
	UsageBytes *uint64
}

// FsStats is the part of the kubelet summary API's FsStats that eviction
// reads.
type FsStats struct {
	// Time is when the statistics were collected.
	Time time.Time
	// AvailableBytes is bytes available to non-root users.
	AvailableBytes *uint64
	// CapacityBytes is the filesystem size.
	CapacityBytes *uint64
	// InodesFree is the number of free inodes.
	InodesFree *uint64
	// Inodes is the total number of inodes.
	Inodes *uint64
}

// RlimitStats is the part of the kubelet summary API's RlimitStats that
// eviction reads.
type RlimitStats struct {
	// Time is when the statistics were collected.
	Time time.Time
	// MaxPID is the kernel's PID limit.
	MaxPID *int64
	// NumOfRunningProcesses is the number of processes (threads) running.
	NumOfRunningProcesses *int64
}

// Summary is the part of the kubelet's stats summary that eviction signals
// are derived from. Any field may be nil.
type Summary struct {
	// Memory is the node's memory (Node.Memory).
	Memory *MemoryStats
	// PodsMemory is the "pods" system container's memory.
	PodsMemory *MemoryStats
	// CommitMemory is the Windows "windows-global-commit-memory" system
	// container's memory.
	CommitMemory *MemoryStats
	// NodeFs is the node's root filesystem (Node.Fs).
	NodeFs *FsStats
	// ImageFs is the runtime's image filesystem (Node.Runtime.ImageFs).
	ImageFs *FsStats
	// ContainerFs is the runtime's container filesystem
	// (Node.Runtime.ContainerFs).
	ContainerFs *FsStats
	// Rlimit is the node's process limits (Node.Rlimit).
	Rlimit *RlimitStats
}

// MakeObservations derives the signal observations from a stats summary, as
// the kubelet's makeSignalObservations does on os. A signal is observed only
// when both of its source fields are present:
//
//	memory.available             Memory: available / available + working set
//	                             (Windows: CommitMemory: available / available + usage)
//	allocatableMemory.available  PodsMemory: available / available + working set
//	nodefs.*, imagefs.*,         available bytes / capacity bytes,
//	containerfs.*                inodes free / inodes
//	pid.available                MaxPID - running processes / MaxPID (may be negative)
//
// Byte counts are converted with int64() like the kubelet does.
func MakeObservations(s Summary, os OS) Observations {
	out := Observations{}
	memory := s.Memory
	usage := func(m *MemoryStats) *uint64 { return m.WorkingSetBytes }
	if os.normalize() == Windows {
		memory = s.CommitMemory
		usage = func(m *MemoryStats) *uint64 { return m.UsageBytes }
	}
	if m := memory; m != nil && m.AvailableBytes != nil && usage(m) != nil {
		out[MemoryAvailable] = bytesObservation(*m.AvailableBytes, *m.AvailableBytes+*usage(m), m.Time)
	}
	if m := s.PodsMemory; m != nil && m.AvailableBytes != nil && m.WorkingSetBytes != nil {
		out[AllocatableMemoryAvailable] = bytesObservation(*m.AvailableBytes, *m.AvailableBytes+*m.WorkingSetBytes, m.Time)
	}
	fs := func(f *FsStats, bytes, inodes Signal) {
		if f == nil {
			return
		}
		if f.AvailableBytes != nil && f.CapacityBytes != nil {
			out[bytes] = bytesObservation(*f.AvailableBytes, *f.CapacityBytes, f.Time)
		}
		if f.InodesFree != nil && f.Inodes != nil {
			out[inodes] = countObservation(int64(*f.InodesFree), int64(*f.Inodes), f.Time)
		}
	}
	fs(s.NodeFs, NodeFsAvailable, NodeFsInodesFree)
	fs(s.ImageFs, ImageFsAvailable, ImageFsInodesFree)
	fs(s.ContainerFs, ContainerFsAvailable, ContainerFsInodesFree)
	if r := s.Rlimit; r != nil && r.MaxPID != nil && r.NumOfRunningProcesses != nil {
		out[PIDAvailable] = countObservation(*r.MaxPID-*r.NumOfRunningProcesses, *r.MaxPID, r.Time)
	}
	return out
}

func bytesObservation(available, capacity uint64, at time.Time) Observation {
	return Observation{
		Available: resource.NewQuantity(int64(available), resource.BinarySI),
		Capacity:  resource.NewQuantity(int64(capacity), resource.BinarySI),
		Time:      at,
	}
}

func countObservation(available, capacity int64, at time.Time) Observation {
	return Observation{
		Available: resource.NewQuantity(available, resource.DecimalSI),
		Capacity:  resource.NewQuantity(capacity, resource.DecimalSI),
		Time:      at,
	}
}
