package conformance_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	statsapi "k8s.io/kubelet/pkg/apis/stats/v1alpha1"
	"k8s.io/kubernetes/pkg/kubelet/eviction"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/statsummary"
	"github.com/evictkit/eviction/thresholds"
)

// summaryVolumes are the volumes a pod of a generated summary may declare
// (and report stats for): local ones and others.
var summaryVolumes = []v1.Volume{
	{Name: "host", VolumeSource: v1.VolumeSource{HostPath: &v1.HostPathVolumeSource{Path: "/x"}}},
	{Name: "scratch", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}},
	{Name: "ram", VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{Medium: v1.StorageMediumMemory}}},
	{Name: "config", VolumeSource: v1.VolumeSource{ConfigMap: &v1.ConfigMapVolumeSource{}}},
	{Name: "secret", VolumeSource: v1.VolumeSource{Secret: &v1.SecretVolumeSource{}}},
	{Name: "data", VolumeSource: v1.VolumeSource{PersistentVolumeClaim: &v1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}},
}

// upstreamSummary draws a kubelet stats summary in upstream's types: every
// pointer may be nil, counts span uint64 (pid counts the non-negative
// int64s), names repeat (system containers, pod UIDs, volume names), and the
// fields eviction does not read are filled too.
func upstreamSummary(t *rapid.T) *statsapi.Summary {
	count := rapid.OneOf(rapid.Uint64Range(0, 64), rapid.Uint64Range(0, 1<<40), rapid.Uint64(), rapid.Just(uint64(1<<63)))
	opt := func(label string) *uint64 {
		if rapid.IntRange(0, 4).Draw(t, label+"?") == 0 {
			return nil
		}
		v := count.Draw(t, label)
		return &v
	}
	optInt := func(label string) *int64 {
		if rapid.IntRange(0, 4).Draw(t, label+"?") == 0 {
			return nil
		}
		v := rapid.OneOf(rapid.Int64Range(0, 1<<22), rapid.Int64Range(0, 1<<63-1)).Draw(t, label)
		return &v
	}
	at := func(label string) metav1.Time {
		if rapid.IntRange(0, 5).Draw(t, label+"?") == 0 {
			return metav1.Time{}
		}
		return metav1.NewTime(gen.Epoch.Add(time.Duration(rapid.IntRange(0, 1e6).Draw(t, label)) * time.Second))
	}
	memory := func(label string) *statsapi.MemoryStats {
		if rapid.IntRange(0, 4).Draw(t, label+"?") == 0 {
			return nil
		}
		return &statsapi.MemoryStats{Time: at(label + ".time"), AvailableBytes: opt(label + ".available"),
			UsageBytes: opt(label + ".usage"), WorkingSetBytes: opt(label + ".workingSet"), RSSBytes: opt(label + ".rss"),
			PageFaults: opt(label + ".faults")}
	}
	fs := func(label string) *statsapi.FsStats {
		if rapid.IntRange(0, 4).Draw(t, label+"?") == 0 {
			return nil
		}
		return &statsapi.FsStats{Time: at(label + ".time"), AvailableBytes: opt(label + ".available"),
			CapacityBytes: opt(label + ".capacity"), UsedBytes: opt(label + ".used"), InodesFree: opt(label + ".inodesFree"),
			Inodes: opt(label + ".inodes"), InodesUsed: opt(label + ".inodesUsed")}
	}
	cpu := func(label string) *statsapi.CPUStats {
		if rapid.Bool().Draw(t, label+"?") {
			return nil
		}
		return &statsapi.CPUStats{Time: at(label + ".time"), UsageNanoCores: opt(label + ".nanoCores"),
			PSI: &statsapi.PSIStats{Some: statsapi.PSIData{Total: 7, Avg10: 0.25}}}
	}
	str := rapid.OneOf(rapid.SampledFrom([]string{"", "a", "b", "kube-system", `q"uote\`, "é<&>"}), rapid.String())

	s := &statsapi.Summary{}
	n := &s.Node
	n.NodeName = str.Draw(t, "nodeName")
	n.StartTime = at("node.start")
	sys := []string{statsapi.SystemContainerKubelet, statsapi.SystemContainerRuntime, statsapi.SystemContainerPods,
		statsapi.SystemContainerWindowsGlobalCommitMemory, statsapi.SystemContainerMisc}
	for i := range rapid.IntRange(0, 5).Draw(t, "systemContainers") {
		n.SystemContainers = append(n.SystemContainers, statsapi.ContainerStats{
			Name: rapid.SampledFrom(sys).Draw(t, "sys.name"), Memory: memory(fmt.Sprint("sys", i)), CPU: cpu("sys.cpu")})
	}
	n.CPU, n.Memory, n.Fs = cpu("node.cpu"), memory("node.memory"), fs("nodefs")
	if rapid.IntRange(0, 4).Draw(t, "runtime?") > 0 {
		n.Runtime = &statsapi.RuntimeStats{ImageFs: fs("imagefs"), ContainerFs: fs("containerfs")}
	}
	if rapid.IntRange(0, 4).Draw(t, "rlimit?") > 0 {
		n.Rlimit = &statsapi.RlimitStats{Time: at("rlimit.time"), MaxPID: optInt("maxpid"), NumOfRunningProcesses: optInt("curproc")}
	}
	n.Swap = &statsapi.SwapStats{Time: at("swap.time"), SwapUsageBytes: opt("swap")}
	uids := []string{"u0", "u1", "u2", "u3", "static-3f2a9c"}
	for i := range rapid.IntRange(0, 6).Draw(t, "pods") {
		p := statsapi.PodStats{
			PodRef: statsapi.PodReference{Name: rapid.SampledFrom([]string{"p0", "p1", "p2"}).Draw(t, "name"),
				Namespace: rapid.SampledFrom([]string{"default", "kube-system"}).Draw(t, "namespace"),
				UID:       rapid.OneOf(rapid.SampledFrom(uids), str).Draw(t, "uid")},
			StartTime: at("pod.start"), CPU: cpu("pod.cpu"), Memory: memory("pod.memory"),
			EphemeralStorage: fs("ephemeral"),
		}
		if rapid.IntRange(0, 4).Draw(t, "process?") > 0 {
			p.ProcessStats = &statsapi.ProcessStats{ProcessCount: opt("processes")}
		}
		for j := range rapid.IntRange(0, 3).Draw(t, fmt.Sprint("containers", i)) {
			p.Containers = append(p.Containers, statsapi.ContainerStats{
				Name: rapid.OneOf(rapid.SampledFrom([]string{"c0", "c1", "i0"}), str).Draw(t, "c.name"), StartTime: at("c.start"),
				CPU: cpu("c.cpu"), Memory: memory(fmt.Sprint("c", j)), Rootfs: fs("rootfs"), Logs: fs("logs"),
				Accelerators: []statsapi.AcceleratorStats{{Make: "nvidia", MemoryUsed: 1}}})
		}
		for range rapid.IntRange(0, 4).Draw(t, fmt.Sprint("volumes", i)) {
			v := statsapi.VolumeStats{Name: rapid.SampledFrom(summaryVolumes).Draw(t, "v").Name}
			if f := fs("volume"); f != nil {
				v.FsStats = *f
			}
			if v.Name == "data" {
				v.PVCRef = &statsapi.PVCReference{Name: "data", Namespace: p.PodRef.Namespace}
			}
			p.VolumeStats = append(p.VolumeStats, v)
		}
		s.Pods = append(s.Pods, p)
	}
	return s
}

// readPod is what the kubelet's eviction code reads of one PodStats, read
// with upstream's own readers (memoryUsage, processUsage, diskUsage,
// inodeUsage; the pod-limit check's read of ephemeral-storage), in the
// library's shape: every figure as the int64 upstream converts it to.
func readPod(p statsapi.PodStats) ranking.Usage {
	fsRead := func(f *statsapi.FsStats) ranking.FSUsage {
		return ranking.FSUsage{UsedBytes: uint64(eviction.DiskUsage(f).Value()), InodesUsed: uint64(eviction.InodeUsage(f).Value())}
	}
	u := ranking.Usage{
		MemoryWorkingSet: uint64(eviction.MemoryUsage(p.Memory).Value()),
		Processes:        eviction.ProcessUsage(p.ProcessStats),
	}
	if e := p.EphemeralStorage; e != nil && e.UsedBytes != nil {
		u.EphemeralStorage = uint64(resource.NewQuantity(int64(*e.UsedBytes), resource.BinarySI).Value())
	}
	for _, c := range p.Containers {
		u.Containers = append(u.Containers, ranking.ContainerUsage{Name: c.Name,
			MemoryWorkingSet: uint64(eviction.MemoryUsage(c.Memory).Value()), Rootfs: fsRead(c.Rootfs), Logs: fsRead(c.Logs)})
	}
	for _, v := range p.VolumeStats {
		u.Volumes = append(u.Volumes, ranking.VolumeUsage{Name: v.Name, FSUsage: fsRead(&v.FsStats)})
	}
	return u
}

// renderObservations writes observations as sorted "signal: available/capacity at time" lines.
func renderUpstreamObservations(obs eviction.SignalObservations) []string {
	var out []string
	for s, o := range obs {
		out = append(out, fmt.Sprintf("%s: %s/%s at %d", s, o.Available().String(), o.Capacity().String(), o.Time().Unix()))
	}
	slices.Sort(out)
	return out
}

func renderObservations(obs thresholds.Observations) []string {
	var out []string
	for s, o := range obs {
		out = append(out, fmt.Sprintf("%s: %s/%s at %d", s, o.Available.String(), o.Capacity.String(), o.Time.Unix()))
	}
	slices.Sort(out)
	return out
}

// diskSourceSets are the fsStatsType lists the kubelet's rank functions
// measure (buildSignalToRankFunc, every layout), with the library's Sources.
var diskSourceSets = []struct {
	up   []eviction.FsStatsType
	ours ranking.Sources
}{
	{[]eviction.FsStatsType{eviction.FsStatsImages, eviction.FsStatsRoot, eviction.FsStatsLogs, eviction.FsStatsLocalVolumeSource},
		ranking.SourceImages | ranking.SourceRoot | ranking.SourceLogs | ranking.SourceLocalVolumes},
	{[]eviction.FsStatsType{eviction.FsStatsLogs, eviction.FsStatsLocalVolumeSource}, ranking.SourceLogs | ranking.SourceLocalVolumes},
	{[]eviction.FsStatsType{eviction.FsStatsRoot, eviction.FsStatsImages}, ranking.SourceRoot | ranking.SourceImages},
	{[]eviction.FsStatsType{eviction.FsStatsLogs, eviction.FsStatsLocalVolumeSource, eviction.FsStatsRoot},
		ranking.SourceLogs | ranking.SourceLocalVolumes | ranking.SourceRoot},
	{[]eviction.FsStatsType{eviction.FsStatsImages}, ranking.SourceImages},
}

// checkSummary decodes data with the library and with encoding/json into
// upstream's types and compares what eviction reads: the node signals, each
// pod's figures and reference, the kubelet's UID keying and the disk usage
// the rank functions add up for a pod spec.
func checkSummary(t tester, data []byte, specs func(ref statsapi.PodReference) *v1.Pod) {
	t.Helper()
	ours, err := statsummary.Decode(data)
	if err != nil {
		t.Fatalf("Decode: %v\n%s", err, data)
	}
	var up statsapi.Summary
	if err := json.Unmarshal(data, &up); err != nil {
		t.Fatalf("encoding/json: %v", err)
	}
	if goruntime.GOOS != "windows" {
		want, _ := eviction.MakeSignalObservations(logger, &up)
		if w, g := renderUpstreamObservations(want), renderObservations(thresholds.MakeObservations(ours.Node, thresholds.Linux)); !slices.Equal(w, g) {
			t.Fatalf("observations:\nupstream %q\nevictkit %q\n%s", w, g, data)
		}
	}
	// Windows reads the first "windows-global-commit-memory" system
	// container (helpers_windows.go, not built here): compare the figures.
	var commit *statsapi.MemoryStats
	for _, c := range up.Node.SystemContainers {
		if c.Name == statsapi.SystemContainerWindowsGlobalCommitMemory {
			commit = c.Memory
			break
		}
	}
	if got := ours.Node.CommitMemory; (commit == nil) != (got == nil) ||
		commit != nil && (show(commit.AvailableBytes) != show(got.AvailableBytes) || show(commit.UsageBytes) != show(got.UsageBytes) ||
			!commit.Time.Time.Equal(got.Time)) {
		t.Fatalf("commit memory: upstream %s, evictkit %s", show(commit), show(got))
	}
	if ours.NodeName != up.Node.NodeName {
		t.Fatalf("node name: upstream %q, evictkit %q", up.Node.NodeName, ours.NodeName)
	}
	if len(ours.Pods) != len(up.Pods) {
		t.Fatalf("%d pods, upstream %d", len(ours.Pods), len(up.Pods))
	}
	for i, p := range up.Pods {
		got := ours.Pods[i]
		if ref := (statsummary.PodRef{Namespace: p.PodRef.Namespace, Name: p.PodRef.Name, UID: types.UID(p.PodRef.UID)}); got.Ref != ref {
			t.Fatalf("pods[%d].podRef: upstream %+v, evictkit %+v", i, ref, got.Ref)
		}
		if want := readPod(p); show(want) != show(got.Usage) {
			t.Fatalf("pods[%d] as eviction reads it:\nupstream %s\nevictkit %s", i, show(want), show(got.Usage))
		}
		pod := specs(p.PodRef)
		for _, set := range diskSourceSets {
			want, _ := eviction.PodDiskUsage(p, pod, set.up)
			for _, res := range []v1.ResourceName{v1.ResourceEphemeralStorage, thresholds.ResourceInodes} {
				w, g := want[res], ranking.DiskUsage(pod, got.Usage, set.ours, res)
				if w.Cmp(g) != 0 {
					t.Fatalf("pods[%d] disk usage %s of %v: upstream %s, evictkit %s", i, res, set.up, w.String(), g.String())
				}
			}
		}
	}
	// The kubelet's keying: cachedStatsFunc against ByUID.
	stats := eviction.CachedStatsFunc(up.Pods)
	byUID := ours.ByUID()
	for _, p := range up.Pods {
		want, _ := stats(&v1.Pod{ObjectMeta: metav1.ObjectMeta{UID: types.UID(p.PodRef.UID)}})
		if got := byUID[types.UID(p.PodRef.UID)]; show(readPod(want)) != show(got) {
			t.Fatalf("uid %q: upstream %s, evictkit %s", p.PodRef.UID, show(readPod(want)), show(got))
		}
	}
}

func TestStatsSummary(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		up := upstreamSummary(t)
		var data []byte
		var err error
		if rapid.Bool().Draw(t, "indent") {
			data, err = json.MarshalIndent(up, "", "  ")
		} else {
			data, err = json.Marshal(up)
		}
		if err != nil {
			t.Fatal(err)
		}
		specs := map[string]*v1.Pod{}
		checkSummary(t, data, func(ref statsapi.PodReference) *v1.Pod {
			key := ref.Namespace + "/" + ref.Name
			if specs[key] == nil {
				pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}}
				for _, v := range summaryVolumes {
					if rapid.Bool().Draw(t, "spec.volume?") {
						pod.Spec.Volumes = append(pod.Spec.Volumes, v)
					}
				}
				specs[key] = pod
			}
			return specs[key]
		})
		// decode∘encode is the identity on what eviction reads: the decoded
		// summary equals the original one, not only encoding/json's reading
		// of the same bytes.
		ours, _ := statsummary.Decode(data)
		for i, p := range up.Pods {
			if show(readPod(p)) != show(ours.Pods[i].Usage) {
				t.Fatalf("pods[%d]: original %s, decoded %s", i, show(readPod(p)), show(ours.Pods[i].Usage))
			}
		}
		want, _ := eviction.MakeSignalObservations(logger, up)
		if w, g := renderUpstreamObservations(want), renderObservations(thresholds.MakeObservations(ours.Node, thresholds.Linux)); !slices.Equal(w, g) {
			t.Fatalf("observations of the original:\nupstream %q\nevictkit %q", w, g)
		}
	})
}

// TestStatsSummaryTestdata compares the library's realistic summaries, each
// pod with every volume it reports declared as an emptyDir.
func TestStatsSummaryTestdata(t *testing.T) {
	files, err := filepath.Glob("../statsummary/testdata/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test data: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var up statsapi.Summary
			if err := json.Unmarshal(data, &up); err != nil {
				t.Fatal(err)
			}
			checkSummary(t, data, func(ref statsapi.PodReference) *v1.Pod {
				pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ref.Namespace, Name: ref.Name}}
				for _, p := range up.Pods {
					if p.PodRef == ref {
						for _, v := range p.VolumeStats {
							pod.Spec.Volumes = append(pod.Spec.Volumes, v1.Volume{Name: v.Name,
								VolumeSource: v1.VolumeSource{EmptyDir: &v1.EmptyDirVolumeSource{}}})
						}
					}
				}
				return pod
			})
		})
	}
}

// TestStatsSummaryExceptions asserts the library's answer beside
// encoding/json's where the two differ on purpose.
func TestStatsSummaryExceptions(t *testing.T) {
	for _, tc := range []struct{ name, in string }{
		// maxpid and curproc are int64 upstream; the kernel never reports a
		// negative one, and the library rejects it like every negative count.
		{"negative maxpid", `{"node":{"rlimit":{"maxpid":-1,"curproc":5}}}`},
		{"negative curproc", `{"node":{"rlimit":{"maxpid":10,"curproc":-5}}}`},
	} {
		var up statsapi.Summary
		if err := json.Unmarshal([]byte(tc.in), &up); err != nil {
			t.Fatalf("%s: encoding/json no longer accepts it: %v", tc.name, err)
		}
		if _, err := statsummary.Decode([]byte(tc.in)); !errors.Is(err, statsummary.ErrNegative) {
			t.Fatalf("%s: evictkit %v, want ErrNegative", tc.name, err)
		}
	}
	// Field names: encoding/json matches them in any case, the library
	// exactly as the kubelet writes them.
	in := `{"pods":[{"Memory":{"WorkingSetBytes":5}}]}`
	var up statsapi.Summary
	if err := json.Unmarshal([]byte(in), &up); err != nil || up.Pods[0].Memory == nil || *up.Pods[0].Memory.WorkingSetBytes != 5 {
		t.Fatalf("encoding/json no longer folds case: %v %s", err, show(up))
	}
	s, err := statsummary.Decode([]byte(in))
	if err != nil || s.Pods[0].Usage.MemoryWorkingSet != 0 {
		t.Fatalf("evictkit: %v %s", err, show(s))
	}
}
