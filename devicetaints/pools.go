package devicetaints

import (
	"cmp"
	"math"
	"slices"

	resourceapi "k8s.io/api/resource/v1"
)

// poolKey names a resource pool: a driver and a pool name.
type poolKey struct{ driver, pool string }

// sliceEntry is one stored ResourceSlice. A new entry is made each time a
// slice is stored, so that its address identifies the taints it held, as
// the address of the informer's object does upstream.
type sliceEntry struct {
	slice *resourceapi.ResourceSlice
}

// devRef is one device: its slice and its index in spec.devices.
type devRef struct {
	s   *sliceEntry
	dev int
}

func (d devRef) device() *resourceapi.Device { return &d.s.slice.Spec.Devices[d.dev] }

// pool holds the slices of one pool. Only the slices of the newest
// generation count, as upstream's controller reads them.
type pool struct {
	slices map[string]*sliceEntry // by slice name
	maxGen int64
	// cur are the slices of the newest generation by name, and index maps
	// a device name to the first device of that name in them (slice name
	// order, then device order); both nil when they must be rebuilt.
	cur   []*sliceEntry
	index map[string]devRef
}

// add stores slice, as upstream's pool.addSlice: a new slice can only raise
// the generation.
func (p *pool) add(slice *resourceapi.ResourceSlice) {
	if slice == nil {
		return
	}
	if p.slices == nil {
		p.slices = make(map[string]*sliceEntry)
		p.maxGen = math.MinInt64
	}
	p.slices[slice.Name] = &sliceEntry{slice: slice}
	p.maxGen = max(p.maxGen, slice.Spec.Pool.Generation)
	p.cur, p.index = nil, nil
}

// remove drops the slice named like slice, as upstream's pool.removeSlice:
// the generation is recomputed when slice's generation was the newest.
func (p *pool) remove(slice *resourceapi.ResourceSlice) {
	if slice == nil {
		return
	}
	delete(p.slices, slice.Name)
	if slice.Spec.Pool.Generation == p.maxGen {
		m := int64(math.MinInt64)
		for _, e := range p.slices {
			m = max(m, e.slice.Spec.Pool.Generation)
		}
		p.maxGen = m
	}
	p.cur, p.index = nil, nil
}

// current returns the slices of the newest generation in name order.
func (p *pool) current() []*sliceEntry {
	if p.cur == nil {
		p.cur = make([]*sliceEntry, 0, len(p.slices))
		for _, e := range p.slices {
			if e.slice.Spec.Pool.Generation == p.maxGen {
				p.cur = append(p.cur, e)
			}
		}
		slices.SortFunc(p.cur, func(a, b *sliceEntry) int { return cmp.Compare(a.slice.Name, b.slice.Name) })
	}
	return p.cur
}

// lookup finds a device of the newest generation by name. Two slices that
// publish the same device name are an error of the driver; upstream then
// takes either, depending on map order: here the one in the slice whose
// name sorts first.
func (p *pool) lookup(name string) (devRef, bool) {
	if p == nil {
		return devRef{}, false
	}
	if p.index == nil {
		p.index = make(map[string]devRef)
		for _, e := range p.current() {
			for i := range e.slice.Spec.Devices {
				if _, dup := p.index[e.slice.Spec.Devices[i].Name]; !dup {
					p.index[e.slice.Spec.Devices[i].Name] = devRef{s: e, dev: i}
				}
			}
		}
	}
	d, ok := p.index[name]
	return d, ok
}

// taintedDevice is one NoExecute taint of a device of the newest
// generation.
type taintedDevice struct {
	name  string
	taint *resourceapi.DeviceTaint
}

// noExecuteTaints lists the NoExecute taints of the pool's current devices,
// by device name. Upstream sorts them with an unstable sort after reading
// the slices in map order; here the order is stable: slice name, device,
// taint.
func (p *pool) noExecuteTaints() []taintedDevice {
	var out []taintedDevice
	for _, e := range p.current() {
		for i := range e.slice.Spec.Devices {
			d := &e.slice.Spec.Devices[i]
			for j := range d.Taints {
				if d.Taints[j].Effect == resourceapi.DeviceTaintEffectNoExecute {
					out = append(out, taintedDevice{name: d.Name, taint: &d.Taints[j]})
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b taintedDevice) int { return cmp.Compare(a.name, b.name) })
	return out
}

// modifiedDevices returns the names of the devices whose NoExecute taints
// differ between before and after (both sorted by device name), found by
// the same merge walk as upstream's handleSliceChange, which also reports
// some unchanged devices: a device that sorts after a newly tainted one is
// reported too. Reporting a device makes the controller re-decide the
// claims that use it.
func modifiedDevices(before, after []taintedDevice) map[string]struct{} {
	mod := make(map[string]struct{})
	o, n := 0, 0
	for o < len(before) || n < len(after) {
		o0, n0 := o, n
		for o < len(before) && n < len(after) && before[o].name == after[n].name {
			if !sameTaint(before[o].taint, after[n].taint) {
				mod[before[o].name] = struct{}{}
			}
			o++
			n++
		}
		next := ""
		if n < len(after) {
			next = after[n].name
		}
		for o < len(before) && before[o].name != next {
			mod[before[o].name] = struct{}{}
			o++
		}
		prev := ""
		if o < len(before) {
			prev = before[o].name
		}
		if n < len(after) && after[n].name != prev {
			mod[after[n].name] = struct{}{}
			n++
		}
		if o == o0 && n == n0 {
			// Only a device without a name (which the API server
			// rejects) gets here; upstream's walk never ends on it.
			if o < len(before) {
				mod[before[o].name] = struct{}{}
				o++
			} else {
				mod[after[n].name] = struct{}{}
				n++
			}
		}
	}
	return mod
}
