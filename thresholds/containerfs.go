package thresholds

import (
	"errors"
	"fmt"
	"slices"
)

// Layout describes how a node's filesystems are arranged, as the kubelet
// learns it on its first eviction cycle.
type Layout struct {
	// DedicatedImageFs is true when images live on a filesystem other than
	// the kubelet's root (nodefs).
	DedicatedImageFs bool
	// SplitContainerImageFs is true when container writable layers live on
	// a filesystem other than images.
	SplitContainerImageFs bool
	// DisableSeparateDiskGC models the KubeletSeparateDiskGC feature gate
	// turned off (it is on by default since v1.31); a split layout is then
	// a fatal error.
	DisableSeparateDiskGC bool
}

// ContainerFsSource returns the filesystem whose thresholds containerfs
// inherits under l: nodefs for a single filesystem or a split layout,
// imagefs for a dedicated image filesystem holding writable layers too.
// ok is false for the inconsistent layout "split but no dedicated imagefs",
// where the kubelet derives nothing.
func (l Layout) ContainerFsSource() (available, inodesFree Signal, ok bool) {
	switch {
	case l.DedicatedImageFs && !l.SplitContainerImageFs:
		return ImageFsAvailable, ImageFsInodesFree, true
	case l.DedicatedImageFs == l.SplitContainerImageFs:
		return NodeFsAvailable, NodeFsInodesFree, true
	}
	return "", "", false
}

// WithContainerFs derives the containerfs.available and containerfs.inodesFree
// thresholds from the filesystem that holds container writable layers, as the
// kubelet's UpdateContainerFsThresholds does once the layout is known: for
// each of the two signals, a hard copy of the source's (last) hard threshold
// and a soft copy of its (last) soft threshold, each with the source's value
// and minimum reclaim, the soft copy also with its grace period. ts is not
// modified; the result is a new slice.
//
// Containerfs thresholds already in ts are never used: the last one of each
// kind (hard or soft) is replaced in place by the derived copy of that kind,
// the others are dropped, and a non-fatal error wrapping [ErrContainerFsOverride] that
// names each of them is returned along with the thresholds. Derived copies
// that replaced nothing are appended in the order hard available, soft
// available, hard inodes, soft inodes.
//
// With l.SplitContainerImageFs and l.DisableSeparateDiskGC both set, the
// result is nil and an error wrapping [ErrSplitFsDisabled].
func WithContainerFs(ts []Threshold, l Layout) ([]Threshold, error) {
	if l.SplitContainerImageFs && l.DisableSeparateDiskGC {
		return nil, fmt.Errorf("thresholds: %w", ErrSplitFsDisabled)
	}
	// slot identifies one derived threshold: signal and hardness.
	type slot struct {
		sig  Signal
		hard bool
	}
	isContainerFs := func(s Signal) bool { return s == ContainerFsAvailable || s == ContainerFsInodesFree }
	srcAvail, srcInodes, derive := l.ContainerFsSource()
	var rename map[Signal]Signal // source signal → containerfs signal; nil derives nothing
	if derive {
		rename = map[Signal]Signal{srcAvail: ContainerFsAvailable, srcInodes: ContainerFsInodesFree}
	}
	derived := map[slot]Threshold{} // the copy of the last source threshold of each slot
	last := map[slot]int{}          // the index of the last user threshold of each slot
	var errs []error
	for i, t := range ts {
		s := slot{t.Signal, t.IsHard()}
		if isContainerFs(t.Signal) {
			kind := "soft"
			if s.hard {
				kind = "hard"
			}
			errs = append(errs, fmt.Errorf("thresholds: found %s for %s eviction: %w", t.Signal, kind, ErrContainerFsOverride))
			last[s] = i
		}
		if sig, ok := rename[t.Signal]; ok {
			t.Signal = sig
			derived[slot{sig, s.hard}] = t
		}
	}
	out := make([]Threshold, 0, len(ts)+len(derived))
	for i, t := range ts {
		if derive && isContainerFs(t.Signal) {
			// The last user threshold of each slot is replaced in place; the
			// others are dropped, where upstream leaves a placeholder that is
			// never met (no source) or keeps the user value (not the last).
			s := slot{t.Signal, t.IsHard()}
			c, ok := derived[s]
			if !ok || last[s] != i {
				continue
			}
			t = c
		}
		out = append(out, t)
	}
	for _, d := range []slot{
		{ContainerFsAvailable, true}, {ContainerFsAvailable, false},
		{ContainerFsInodesFree, true}, {ContainerFsInodesFree, false},
	} {
		if _, replaced := last[d]; !replaced {
			if c, ok := derived[d]; ok {
				out = append(out, c)
			}
		}
	}
	return slices.Clip(out), errors.Join(errs...)
}

// ReclaimAction is a node-level garbage collection the kubelet runs before
// evicting pods for a filesystem signal.
type ReclaimAction string

// Node-level reclaim actions, named after the kubelet's garbage collectors.
const (
	// DeleteAllUnusedContainers removes dead containers.
	DeleteAllUnusedContainers ReclaimAction = "DeleteAllUnusedContainers"
	// DeleteUnusedImages removes images no container uses.
	DeleteUnusedImages ReclaimAction = "DeleteUnusedImages"
)

// NodeReclaimActions returns, in the order the kubelet runs them, the
// garbage collections that may relieve pressure on sig under layout l:
//
//	layout            nodefs.*            imagefs.*           containerfs.*
//	single fs         containers, images  containers, images  as nodefs
//	imagefs           none                containers, images  as imagefs
//	imagefs + split   containers          images              as nodefs
//
// Memory and PID signals have none. After running them the kubelet re-reads
// the statistics and skips pod eviction if no configured threshold is met
// with minimum reclaim enforced ([Evaluator.ReclaimSatisfied]). With no
// action, pods are evicted.
func NodeReclaimActions(sig Signal, l Layout) []ReclaimAction {
	both := []ReclaimAction{DeleteAllUnusedContainers, DeleteUnusedImages}
	imagefs := l.DedicatedImageFs && !l.SplitContainerImageFs
	split := l.DedicatedImageFs && l.SplitContainerImageFs
	switch sig {
	case ContainerFsAvailable:
		sig = NodeFsAvailable
		if imagefs {
			sig = ImageFsAvailable
		}
	case ContainerFsInodesFree:
		sig = NodeFsInodesFree
		if imagefs {
			sig = ImageFsInodesFree
		}
	}
	switch sig {
	case NodeFsAvailable, NodeFsInodesFree:
		switch {
		case imagefs:
			return nil
		case split:
			return []ReclaimAction{DeleteAllUnusedContainers}
		}
		return both
	case ImageFsAvailable, ImageFsInodesFree:
		if split {
			return []ReclaimAction{DeleteUnusedImages}
		}
		return both
	}
	return nil
}
