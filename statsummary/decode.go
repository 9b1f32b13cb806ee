package statsummary

import (
	"encoding/json"
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
)

// System container names (stats: SystemContainerPods,
// SystemContainerWindowsGlobalCommitMemory) whose memory eviction reads.
const (
	systemContainerPods         = "pods"
	systemContainerCommitMemory = "windows-global-commit-memory"
)

// maxDepth is encoding/json's nesting limit.
const maxDepth = 10000

// Decode parses the JSON of a kubelet stats summary (stats/v1alpha1
// Summary) and returns what eviction reads of it; the package documentation
// lists the fields. data is not retained. Unknown fields are skipped; the
// error of malformed input names its JSON path and wraps one of the
// package's sentinels.
func Decode(data []byte) (*Summary, error) {
	d := decoder{data: data}
	s := &Summary{}
	err := d.document(func() error {
		_, err := d.object(func(key []byte) error {
			switch string(key) {
			case "node":
				return d.node(s)
			case "pods":
				return d.pods(s)
			}
			return d.skip()
		})
		return err
	})
	if err != nil && !errors.Is(err, ErrSyntax) {
		// As with encoding/json, a syntax error anywhere in the input takes
		// precedence over the first error in its content.
		v := decoder{data: data}
		if serr := v.document(v.skip); serr != nil {
			err = serr
		}
	}
	if err != nil {
		return nil, err
	}
	s.index()
	return s, nil
}

// document reads the whole input as one value with value, allowing white
// space around it.
func (d *decoder) document(value func() error) error {
	d.skipSpace()
	if err := value(); err != nil {
		return err
	}
	if d.skipSpace(); d.pos < len(d.data) {
		return d.syntax("want the end of input after the top-level value, got %s", d.describe())
	}
	return nil
}

// decoder reads one JSON document. The containers and volumes of all pods
// are appended to one slice each; every pod records its range and Decode
// hands out the sub-slices when the pods are complete, so that the backing
// arrays grow a logarithmic number of times.
type decoder struct {
	data  []byte
	pos   int
	depth int

	containers []ranking.ContainerUsage
	volumes    []ranking.VolumeUsage
}

// span is a pod's range in the shared container or volume slice.
type span struct{ from, to int }

// pods reads pods[].
func (d *decoder) pods(s *Summary) error {
	s.Pods = s.Pods[:0]
	var containers, volumes []span
	d.containers, d.volumes = d.containers[:0], d.volumes[:0]
	null, err := d.array(func(i int) error {
		s.Pods = append(s.Pods, Pod{})
		containers = append(containers, span{len(d.containers), len(d.containers)})
		volumes = append(volumes, span{len(d.volumes), len(d.volumes)})
		return d.pod(&s.Pods[i], &containers[i], &volumes[i])
	})
	if err != nil {
		return err
	}
	if null {
		s.Pods = nil
		return nil
	}
	for i := range s.Pods {
		if c := containers[i]; c.to > c.from {
			s.Pods[i].Usage.Containers = d.containers[c.from:c.to:c.to]
		}
		if v := volumes[i]; v.to > v.from {
			s.Pods[i].Usage.Volumes = d.volumes[v.from:v.to:v.to]
		}
	}
	d.containers, d.volumes = nil, nil
	return nil
}

// pod reads one PodStats into p; its containers and volumes go to the shared
// slices, at the ranges c and v.
func (d *decoder) pod(p *Pod, c, v *span) error {
	u := &p.Usage
	_, err := d.object(func(key []byte) error {
		switch string(key) {
		case "podRef":
			p.Ref = PodRef{}
			_, err := d.object(func(key []byte) error {
				switch string(key) {
				case "name":
					return d.str(&p.Ref.Name)
				case "namespace":
					return d.str(&p.Ref.Namespace)
				case "uid":
					var uid string
					err := d.str(&uid)
					p.Ref.UID = types.UID(uid)
					return err
				}
				return d.skip()
			})
			return err
		case "memory":
			u.MemoryWorkingSet = 0
			return d.workingSet(&u.MemoryWorkingSet)
		case "process_stats":
			u.Processes = 0
			_, err := d.object(func(key []byte) error {
				if string(key) == "process_count" {
					return d.count(&u.Processes)
				}
				return d.skip()
			})
			return err
		case "ephemeral-storage":
			var f ranking.FSUsage
			err := d.fsUsage(&f)
			u.EphemeralStorage = f.UsedBytes
			return err
		case "containers":
			d.containers = d.containers[:c.from]
			_, err := d.array(func(int) error {
				d.containers = append(d.containers, ranking.ContainerUsage{})
				return d.container(&d.containers[len(d.containers)-1])
			})
			c.to = len(d.containers)
			return err
		case "volume":
			d.volumes = d.volumes[:v.from]
			_, err := d.array(func(int) error {
				d.volumes = append(d.volumes, ranking.VolumeUsage{})
				vu := &d.volumes[len(d.volumes)-1]
				_, err := d.object(func(key []byte) error {
					switch string(key) {
					case "name":
						return d.str(&vu.Name)
					case "usedBytes":
						return d.count(&vu.UsedBytes)
					case "inodesUsed":
						return d.count(&vu.InodesUsed)
					}
					return d.skip()
				})
				return err
			})
			v.to = len(d.volumes)
			return err
		}
		return d.skip()
	})
	return err
}

// container reads one ContainerStats of a pod.
func (d *decoder) container(c *ranking.ContainerUsage) error {
	_, err := d.object(func(key []byte) error {
		switch string(key) {
		case "name":
			return d.str(&c.Name)
		case "memory":
			c.MemoryWorkingSet = 0
			return d.workingSet(&c.MemoryWorkingSet)
		case "rootfs":
			c.Rootfs = ranking.FSUsage{}
			return d.fsUsage(&c.Rootfs)
		case "logs":
			c.Logs = ranking.FSUsage{}
			return d.fsUsage(&c.Logs)
		}
		return d.skip()
	})
	return err
}

// workingSet reads a MemoryStats of which only workingSetBytes counts.
func (d *decoder) workingSet(ws *uint64) error {
	_, err := d.object(func(key []byte) error {
		if string(key) == "workingSetBytes" {
			return d.count(ws)
		}
		return d.skip()
	})
	return err
}

// fsUsage reads the usedBytes and inodesUsed of an FsStats.
func (d *decoder) fsUsage(f *ranking.FSUsage) error {
	_, err := d.object(func(key []byte) error {
		switch string(key) {
		case "usedBytes":
			return d.count(&f.UsedBytes)
		case "inodesUsed":
			return d.count(&f.InodesUsed)
		}
		return d.skip()
	})
	return err
}

// node reads NodeStats.
func (d *decoder) node(s *Summary) error {
	n := &s.Node
	s.NodeName = ""
	*n = thresholds.Summary{}
	_, err := d.object(func(key []byte) error {
		switch string(key) {
		case "nodeName":
			return d.str(&s.NodeName)
		case "systemContainers":
			n.PodsMemory, n.CommitMemory = nil, nil
			var seenPods, seenCommit bool
			_, err := d.array(func(int) error {
				var name string
				var mem *thresholds.MemoryStats
				_, err := d.object(func(key []byte) error {
					switch string(key) {
					case "name":
						return d.str(&name)
					case "memory":
						m, err := d.memory()
						mem = m
						return err
					}
					return d.skip()
				})
				switch {
				case name == systemContainerPods && !seenPods:
					seenPods, n.PodsMemory = true, mem
				case name == systemContainerCommitMemory && !seenCommit:
					seenCommit, n.CommitMemory = true, mem
				}
				return err
			})
			return err
		case "memory":
			m, err := d.memory()
			n.Memory = m
			return err
		case "fs":
			f, err := d.fs()
			n.NodeFs = f
			return err
		case "runtime":
			n.ImageFs, n.ContainerFs = nil, nil
			_, err := d.object(func(key []byte) error {
				var err error
				switch string(key) {
				case "imageFs":
					n.ImageFs, err = d.fs()
				case "containerFs":
					n.ContainerFs, err = d.fs()
				default:
					err = d.skip()
				}
				return err
			})
			return err
		case "rlimit":
			r, err := d.rlimit()
			n.Rlimit = r
			return err
		}
		return d.skip()
	})
	return err
}

// memory reads a node-level MemoryStats; null is nil.
func (d *decoder) memory() (*thresholds.MemoryStats, error) {
	var m thresholds.MemoryStats
	null, err := d.object(func(key []byte) error {
		switch string(key) {
		case "time":
			return d.time(&m.Time)
		case "availableBytes":
			return d.optCount(&m.AvailableBytes)
		case "workingSetBytes":
			return d.optCount(&m.WorkingSetBytes)
		case "usageBytes":
			return d.optCount(&m.UsageBytes)
		}
		return d.skip()
	})
	if null || err != nil {
		return nil, err
	}
	return &m, nil
}

// fs reads a node-level FsStats; null is nil.
func (d *decoder) fs() (*thresholds.FsStats, error) {
	var f thresholds.FsStats
	null, err := d.object(func(key []byte) error {
		switch string(key) {
		case "time":
			return d.time(&f.Time)
		case "availableBytes":
			return d.optCount(&f.AvailableBytes)
		case "capacityBytes":
			return d.optCount(&f.CapacityBytes)
		case "inodesFree":
			return d.optCount(&f.InodesFree)
		case "inodes":
			return d.optCount(&f.Inodes)
		}
		return d.skip()
	})
	if null || err != nil {
		return nil, err
	}
	return &f, nil
}

// rlimit reads RlimitStats; null is nil.
func (d *decoder) rlimit() (*thresholds.RlimitStats, error) {
	var r thresholds.RlimitStats
	null, err := d.object(func(key []byte) error {
		switch string(key) {
		case "time":
			return d.time(&r.Time)
		case "maxpid":
			return d.optInt(&r.MaxPID)
		case "curproc":
			return d.optInt(&r.NumOfRunningProcesses)
		}
		return d.skip()
	})
	if null || err != nil {
		return nil, err
	}
	return &r, nil
}

// str reads a string; null leaves *s as it is, as encoding/json does.
func (d *decoder) str(s *string) error {
	switch d.peek() {
	case '"':
		v, err := d.stringValue()
		if err == nil {
			*s = v
		}
		return err
	case 'n':
		return d.null()
	}
	return d.wrongType("string")
}

// count reads a non-negative integer; null leaves *u as it is.
func (d *decoder) count(u *uint64) error {
	switch c := d.peek(); {
	case c == '-' || c >= '0' && c <= '9':
		v, err := d.uint(1<<64 - 1)
		if err == nil {
			*u = v
		}
		return err
	case c == 'n':
		return d.null()
	}
	return d.wrongType("number")
}

// optCount reads a non-negative integer into a fresh *uint64; null is nil.
func (d *decoder) optCount(p **uint64) error {
	if d.peek() == 'n' {
		*p = nil
		return d.null()
	}
	var u uint64
	if err := d.count(&u); err != nil {
		return err
	}
	*p = &u
	return nil
}

// optInt reads a non-negative int64 into a fresh *int64; null is nil.
func (d *decoder) optInt(p **int64) error {
	switch c := d.peek(); {
	case c == 'n':
		*p = nil
		return d.null()
	case c == '-' || c >= '0' && c <= '9':
		u, err := d.uint(1<<63 - 1)
		if err != nil {
			return err
		}
		v := int64(u)
		*p = &v
		return nil
	}
	return d.wrongType("number")
}

// time reads a metav1.Time: an RFC 3339 string, or null for the zero time.
func (d *decoder) time(t *time.Time) error {
	switch d.peek() {
	case 'n':
		*t = time.Time{}
		return d.null()
	case '"':
		start := d.pos
		s, err := d.stringValue()
		if err != nil {
			return err
		}
		v, perr := time.Parse(time.RFC3339, s)
		if perr != nil {
			return errorf(ErrInvalidTime, " %s", excerpt(d.data[start:d.pos]))
		}
		*t = v
		return nil
	}
	return d.wrongType("string")
}

// unquote decodes a string token with escapes or non-ASCII bytes exactly as
// encoding/json does (invalid UTF-8 becomes U+FFFD).
func unquote(tok []byte) (string, bool) {
	var s string
	if err := json.Unmarshal(tok, &s); err != nil {
		return "", false
	}
	return s, true
}
