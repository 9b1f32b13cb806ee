package thresholds

import (
	"fmt"
	"slices"
)

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
// the others are dropped, and for each of them a warning wrapping
// [ErrContainerFsOverride] that names it is returned beside the thresholds.
// Warnings are not errors: the thresholds are valid and complete. Derived
// copies that replaced nothing are appended in the order hard available,
// soft available, hard inodes, soft inodes.
//
// With l.SplitContainerImageFs and l.DisableSeparateDiskGC both set, the
// result is nil and err wraps [ErrSplitFsDisabled].
func WithContainerFs(ts []Threshold, l Layout) (out []Threshold, warnings []error, err error) {
	if l.SplitContainerImageFs && l.DisableSeparateDiskGC {
		return nil, nil, fmt.Errorf("thresholds: layout with split image and container filesystems: %w", ErrSplitFsDisabled)
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
	for i, t := range ts {
		s := slot{t.Signal, t.IsHard()}
		if isContainerFs(t.Signal) {
			kind := "soft"
			if s.hard {
				kind = "hard"
			}
			warnings = append(warnings, fmt.Errorf("thresholds: %s threshold %q: %w", kind, t.String(), ErrContainerFsOverride))
			last[s] = i
		}
		if sig, ok := rename[t.Signal]; ok {
			t.Signal = sig
			derived[slot{sig, s.hard}] = t
		}
	}
	out = make([]Threshold, 0, len(ts)+len(derived))
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
	return slices.Clip(out), warnings, nil
}
