package statsummary

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
)

// The wire format, as the kubelet writes it: the stats/v1alpha1 field names
// of what Decode reads, plus a figure it does not read in each object.

// wireTime writes a time as metav1.Time does (null for the zero time, else
// RFC 3339) but in its own location and to the nanosecond, so that every
// time Decode accepts survives the round trip (metav1.Time writes UTC
// seconds, which cannot express years beyond 9999 in UTC).
type wireTime time.Time

func (t wireTime) MarshalJSON() ([]byte, error) {
	if time.Time(t).IsZero() {
		return []byte("null"), nil
	}
	return json.Marshal(time.Time(t).Format(time.RFC3339Nano))
}

type wireSummary struct {
	Node wireNode  `json:"node"`
	Pods []wirePod `json:"pods"`
}

type wireNode struct {
	NodeName         string          `json:"nodeName"`
	SystemContainers []wireContainer `json:"systemContainers,omitempty"`
	Memory           *wireMemory     `json:"memory,omitempty"`
	Fs               *wireFs         `json:"fs,omitempty"`
	Runtime          *wireRuntime    `json:"runtime,omitempty"`
	Rlimit           *wireRlimit     `json:"rlimit,omitempty"`
}

type wireRuntime struct {
	ImageFs     *wireFs `json:"imageFs,omitempty"`
	ContainerFs *wireFs `json:"containerFs,omitempty"`
}

type wireRlimit struct {
	Time    wireTime `json:"time"`
	MaxPID  *int64   `json:"maxpid,omitempty"`
	Curproc *int64   `json:"curproc,omitempty"`
}

type wireMemory struct {
	Time            wireTime `json:"time"`
	AvailableBytes  *uint64  `json:"availableBytes,omitempty"`
	UsageBytes      *uint64  `json:"usageBytes,omitempty"`
	WorkingSetBytes *uint64  `json:"workingSetBytes,omitempty"`
	RSSBytes        uint64   `json:"rssBytes"`
}

type wireFs struct {
	Time           wireTime `json:"time"`
	AvailableBytes *uint64  `json:"availableBytes,omitempty"`
	CapacityBytes  *uint64  `json:"capacityBytes,omitempty"`
	UsedBytes      *uint64  `json:"usedBytes,omitempty"`
	InodesFree     *uint64  `json:"inodesFree,omitempty"`
	Inodes         *uint64  `json:"inodes,omitempty"`
	InodesUsed     *uint64  `json:"inodesUsed,omitempty"`
}

type wirePod struct {
	PodRef struct {
		Name      string `json:"name"`
		Namespace string `json:"namespace"`
		UID       string `json:"uid"`
	} `json:"podRef"`
	StartTime        wireTime        `json:"startTime"`
	Containers       []wireContainer `json:"containers"`
	Memory           *wireMemory     `json:"memory,omitempty"`
	VolumeStats      []wireVolume    `json:"volume,omitempty"`
	EphemeralStorage *wireFs         `json:"ephemeral-storage,omitempty"`
	ProcessStats     *struct {
		ProcessCount *uint64 `json:"process_count,omitempty"`
	} `json:"process_stats,omitempty"`
}

type wireContainer struct {
	Name   string      `json:"name"`
	Memory *wireMemory `json:"memory,omitempty"`
	Rootfs *wireFs     `json:"rootfs,omitempty"`
	Logs   *wireFs     `json:"logs,omitempty"`
}

type wireVolume struct {
	wireFs
	Name string `json:"name,omitempty"`
}

// encode writes s in the wire format.
func encode(s *Summary) []byte {
	var w wireSummary
	w.Node.NodeName = s.NodeName
	memory := func(m *thresholds.MemoryStats) *wireMemory {
		if m == nil {
			return nil
		}
		return &wireMemory{Time: wireTime(m.Time), AvailableBytes: m.AvailableBytes, UsageBytes: m.UsageBytes,
			WorkingSetBytes: m.WorkingSetBytes, RSSBytes: 1}
	}
	fs := func(f *thresholds.FsStats) *wireFs {
		if f == nil {
			return nil
		}
		return &wireFs{Time: wireTime(f.Time), AvailableBytes: f.AvailableBytes, CapacityBytes: f.CapacityBytes,
			InodesFree: f.InodesFree, Inodes: f.Inodes, UsedBytes: u64(1)}
	}
	n := &s.Node
	w.Node.Memory = memory(n.Memory)
	w.Node.SystemContainers = []wireContainer{{Name: "kubelet", Memory: &wireMemory{AvailableBytes: u64(1), WorkingSetBytes: u64(2)}}}
	if n.PodsMemory != nil {
		w.Node.SystemContainers = append(w.Node.SystemContainers, wireContainer{Name: systemContainerPods, Memory: memory(n.PodsMemory)})
	}
	if n.CommitMemory != nil {
		w.Node.SystemContainers = append(w.Node.SystemContainers, wireContainer{Name: systemContainerCommitMemory, Memory: memory(n.CommitMemory)})
	}
	w.Node.Fs = fs(n.NodeFs)
	if n.ImageFs != nil || n.ContainerFs != nil {
		w.Node.Runtime = &wireRuntime{ImageFs: fs(n.ImageFs), ContainerFs: fs(n.ContainerFs)}
	}
	if r := n.Rlimit; r != nil {
		w.Node.Rlimit = &wireRlimit{Time: wireTime(r.Time), MaxPID: r.MaxPID, Curproc: r.NumOfRunningProcesses}
	}
	usage := func(f ranking.FSUsage) *wireFs {
		return &wireFs{UsedBytes: u64(f.UsedBytes), InodesUsed: u64(f.InodesUsed), CapacityBytes: u64(9)}
	}
	for _, p := range s.Pods {
		var wp wirePod
		wp.PodRef.Name, wp.PodRef.Namespace, wp.PodRef.UID = p.Ref.Name, p.Ref.Namespace, string(p.Ref.UID)
		u := p.Usage
		wp.Memory = &wireMemory{WorkingSetBytes: u64(u.MemoryWorkingSet), RSSBytes: 3}
		wp.ProcessStats = &struct {
			ProcessCount *uint64 `json:"process_count,omitempty"`
		}{u64(u.Processes)}
		wp.EphemeralStorage = &wireFs{UsedBytes: u64(u.EphemeralStorage)}
		for _, c := range u.Containers {
			wp.Containers = append(wp.Containers, wireContainer{Name: c.Name,
				Memory: &wireMemory{WorkingSetBytes: u64(c.MemoryWorkingSet)}, Rootfs: usage(c.Rootfs), Logs: usage(c.Logs)})
		}
		for _, v := range u.Volumes {
			wp.VolumeStats = append(wp.VolumeStats, wireVolume{Name: v.Name, wireFs: *usage(v.FSUsage)})
		}
		w.Pods = append(w.Pods, wp)
	}
	data, err := json.MarshalIndent(w, "", "  ")
	if err != nil {
		panic(err)
	}
	return data
}

// normalized returns the content of s with times in UTC and empty slices
// nil, so that summaries with the same content compare equal.
func normalized(s *Summary) Summary {
	n := Summary{NodeName: s.NodeName}
	utc := func(t time.Time) time.Time {
		if t.IsZero() {
			return time.Time{}
		}
		return t.UTC()
	}
	if m := s.Node.Memory; m != nil {
		c := *m
		c.Time = utc(c.Time)
		n.Node.Memory = &c
	}
	if m := s.Node.PodsMemory; m != nil {
		c := *m
		c.Time = utc(c.Time)
		n.Node.PodsMemory = &c
	}
	if m := s.Node.CommitMemory; m != nil {
		c := *m
		c.Time = utc(c.Time)
		n.Node.CommitMemory = &c
	}
	fs := func(f *thresholds.FsStats) *thresholds.FsStats {
		if f == nil {
			return nil
		}
		c := *f
		c.Time = utc(c.Time)
		return &c
	}
	n.Node.NodeFs, n.Node.ImageFs, n.Node.ContainerFs = fs(s.Node.NodeFs), fs(s.Node.ImageFs), fs(s.Node.ContainerFs)
	if r := s.Node.Rlimit; r != nil {
		c := *r
		c.Time = utc(c.Time)
		n.Node.Rlimit = &c
	}
	for _, p := range s.Pods {
		if len(p.Usage.Containers) == 0 {
			p.Usage.Containers = nil
		}
		if len(p.Usage.Volumes) == 0 {
			p.Usage.Volumes = nil
		}
		n.Pods = append(n.Pods, p)
	}
	return n
}

// diffSummary describes how a and b differ in content, or returns "".
func diffSummary(a, b *Summary) string {
	na, nb := normalized(a), normalized(b)
	if reflect.DeepEqual(na, nb) {
		return ""
	}
	ja, _ := json.Marshal(na)
	jb, _ := json.Marshal(nb)
	return fmt.Sprintf("\n%s\n%s", ja, jb)
}

// genSummary draws a summary with any figures: strings with quotes,
// escapes and non-ASCII runes, counts over the whole uint64 range (pid
// counts over int64's non-negative half), times at whole seconds (what the
// wire format keeps), any figure absent.
func genSummary(t *rapid.T) *Summary {
	str := rapid.OneOf(rapid.SampledFrom([]string{"", "a", "kube-system", "etcd-cp-1", `q"uote\`, "é😀", "tab\there"}), rapid.String())
	count := rapid.OneOf(rapid.Uint64Range(0, 1000), rapid.Uint64(), rapid.Just(uint64(1<<63)), rapid.Just(uint64(1<<64-1)))
	opt := func(label string) *uint64 {
		if rapid.Bool().Draw(t, label+"?") {
			return nil
		}
		return u64(count.Draw(t, label))
	}
	optInt := func(label string) *int64 {
		if rapid.Bool().Draw(t, label+"?") {
			return nil
		}
		return i64(rapid.Int64Range(0, 1<<63-1).Draw(t, label))
	}
	at := func(label string) time.Time {
		if rapid.IntRange(0, 4).Draw(t, label+"?") == 0 {
			return time.Time{}
		}
		return time.Unix(rapid.Int64Range(0, 4e9).Draw(t, label), 0)
	}
	memory := func(label string) *thresholds.MemoryStats {
		if rapid.IntRange(0, 3).Draw(t, label+"?") == 0 {
			return nil
		}
		return &thresholds.MemoryStats{Time: at(label + ".time"), AvailableBytes: opt(label + ".available"),
			WorkingSetBytes: opt(label + ".workingSet"), UsageBytes: opt(label + ".usage")}
	}
	fs := func(label string) *thresholds.FsStats {
		if rapid.IntRange(0, 3).Draw(t, label+"?") == 0 {
			return nil
		}
		return &thresholds.FsStats{Time: at(label + ".time"), AvailableBytes: opt(label + ".available"),
			CapacityBytes: opt(label + ".capacity"), InodesFree: opt(label + ".inodesFree"), Inodes: opt(label + ".inodes")}
	}
	s := &Summary{NodeName: str.Draw(t, "nodeName")}
	s.Node.Memory = memory("memory")
	s.Node.PodsMemory = memory("pods")
	s.Node.CommitMemory = memory("commit")
	s.Node.NodeFs, s.Node.ImageFs, s.Node.ContainerFs = fs("nodefs"), fs("imagefs"), fs("containerfs")
	if rapid.Bool().Draw(t, "rlimit?") {
		s.Node.Rlimit = &thresholds.RlimitStats{Time: at("rlimit.time"), MaxPID: optInt("maxpid"), NumOfRunningProcesses: optInt("curproc")}
	}
	fsUsage := func(label string) ranking.FSUsage {
		return ranking.FSUsage{UsedBytes: count.Draw(t, label+".used"), InodesUsed: count.Draw(t, label+".inodes")}
	}
	for i := range rapid.IntRange(0, 6).Draw(t, "pods") {
		p := Pod{Ref: PodRef{Namespace: str.Draw(t, "ns"), Name: str.Draw(t, "name"), UID: types.UID(str.Draw(t, "uid"))}}
		p.Usage = ranking.Usage{MemoryWorkingSet: count.Draw(t, "ws"), Processes: count.Draw(t, "procs"), EphemeralStorage: count.Draw(t, "eph")}
		for range rapid.IntRange(0, 3).Draw(t, fmt.Sprint("containers", i)) {
			p.Usage.Containers = append(p.Usage.Containers, ranking.ContainerUsage{Name: str.Draw(t, "c"),
				MemoryWorkingSet: count.Draw(t, "c.ws"), Rootfs: fsUsage("rootfs"), Logs: fsUsage("logs")})
		}
		for range rapid.IntRange(0, 3).Draw(t, fmt.Sprint("volumes", i)) {
			p.Usage.Volumes = append(p.Usage.Volumes, ranking.VolumeUsage{Name: str.Draw(t, "v"), FSUsage: fsUsage("volume")})
		}
		s.Pods = append(s.Pods, p)
	}
	return s
}

// Decoding the encoding of a summary gives the summary back: decode∘encode
// is the identity on everything Decode reads.
func TestPropertyRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := genSummary(t)
		got, err := Decode(encode(s))
		if err != nil {
			t.Fatalf("Decode: %v\n%s", err, encode(s))
		}
		if msg := diffSummary(s, got); msg != "" {
			t.Fatalf("round trip: %s", msg)
		}
		// Every pod finds its own entry by namespace, name and UID (the last
		// of identical ones).
		for i, p := range s.Pods {
			want := i
			for j := i + 1; j < len(s.Pods); j++ {
				if s.Pods[j].Ref == p.Ref {
					want = j
				}
			}
			pod := apiPod(p.Ref.Namespace, p.Ref.Name, p.Ref.UID, nil)
			if j, ok := got.find(pod); !ok || (j != want && p.Ref.UID != "") {
				t.Fatalf("pod %d %+v: found %d %v, want %d", i, p.Ref, j, ok, want)
			}
		}
	})
}
