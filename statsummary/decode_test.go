package statsummary

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/evictkit/eviction/ranking"
	"github.com/evictkit/eviction/thresholds"
)

const gi = 1 << 30

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

func u64(v uint64) *uint64 { return &v }
func i64(v int64) *int64   { return &v }

// available returns the available bytes of an observed signal.
func available(t *testing.T, obs thresholds.Observations, sig thresholds.Signal) int64 {
	t.Helper()
	ob, ok := obs[sig]
	require.True(t, ok, "signal %s observed", sig)
	return ob.Available.Value()
}

func TestDecodeTestdata(t *testing.T) {
	at := time.Date(2026, 12, 1, 15, 40, 12, 0, time.UTC)
	tests := []struct {
		file, node                  string
		pods                        int
		nodefs, imagefs, containerf int64 // available bytes
	}{
		// Images and writable layers on the root filesystem: the runtime
		// reports the node's fs three times.
		{"imagefs-shared.json", "cp-1", 8, 31 * gi, 31 * gi, 31 * gi},
		// A dedicated image disk holding images and writable layers.
		{"imagefs-dedicated.json", "worker-7", 6, 62 * gi, 88 * gi, 88 * gi},
		// Split: images on their own disk, writable layers on the root.
		{"imagefs-split.json", "worker-12", 5, 9 * gi, 140 * gi, 9 * gi},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			s, err := Decode(readTestdata(t, tc.file))
			require.NoError(t, err)
			assert.Equal(t, tc.node, s.NodeName)
			assert.Len(t, s.Pods, tc.pods)
			obs := thresholds.MakeObservations(s.Node, thresholds.Linux)
			assert.Len(t, obs, 9, "every Linux signal is observed")
			assert.Equal(t, tc.nodefs, available(t, obs, thresholds.NodeFsAvailable))
			assert.Equal(t, tc.imagefs, available(t, obs, thresholds.ImageFsAvailable))
			assert.Equal(t, tc.containerf, available(t, obs, thresholds.ContainerFsAvailable))
			assert.Equal(t, int64(4194304), obs[thresholds.PIDAvailable].Capacity.Value())
			assert.True(t, obs[thresholds.MemoryAvailable].Time.Equal(at))
			// The "pods" system container, not "kubelet" or "runtime".
			require.NotNil(t, s.Node.PodsMemory)
			assert.Equal(t, uint64(15*gi)-*s.Node.PodsMemory.AvailableBytes, *s.Node.PodsMemory.WorkingSetBytes)
			assert.Nil(t, s.Node.CommitMemory, "a Linux node has no commit-memory container")
			for _, p := range s.Pods {
				assert.NotEmpty(t, p.Ref.UID)
				assert.NotEmpty(t, p.Usage.Containers, "pod %s", p.Ref.Name)
				assert.NotZero(t, p.Usage.MemoryWorkingSet)
				assert.NotZero(t, p.Usage.Processes)
			}
		})
	}
}

func TestDecodePodUsage(t *testing.T) {
	s, err := Decode(readTestdata(t, "imagefs-dedicated.json"))
	require.NoError(t, err)
	db := s.Pods[3]
	assert.Equal(t, PodRef{Namespace: "shop", Name: "db-0", UID: "c2b1c26b-e814-7dc9-af47-9f2936631b3e"}, db.Ref)
	want := ranking.Usage{
		MemoryWorkingSet: 3066036224,
		Processes:        31,
		EphemeralStorage: 76558336,
		Containers: []ranking.ContainerUsage{
			{Name: "postgres", MemoryWorkingSet: 3040870400,
				Rootfs: ranking.FSUsage{UsedBytes: 62914560, InodesUsed: 23}, Logs: ranking.FSUsage{UsedBytes: 12582912, InodesUsed: 1}},
			{Name: "exporter", MemoryWorkingSet: 25165824,
				Rootfs: ranking.FSUsage{UsedBytes: 8192, InodesUsed: 8}, Logs: ranking.FSUsage{UsedBytes: 1048576, InodesUsed: 1}},
		},
		Volumes: []ranking.VolumeUsage{
			{Name: "data-db-0", FSUsage: ranking.FSUsage{UsedBytes: 40802189312, InodesUsed: 32}},
			{Name: "dshm", FSUsage: ranking.FSUsage{UsedBytes: 67108864, InodesUsed: 13}},
			{Name: "kube-api-access-smw2q", FSUsage: ranking.FSUsage{UsedBytes: 12288, InodesUsed: 8}},
		},
	}
	assert.Equal(t, want, db.Usage)
	// The shared backing arrays are clipped: appending to one pod's
	// containers cannot overwrite the next pod's.
	assert.Equal(t, len(db.Usage.Containers), cap(db.Usage.Containers))
	assert.Equal(t, len(db.Usage.Volumes), cap(db.Usage.Volumes))
}

func TestDecodeNode(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	in := `{"node": {"nodeName": "n",
	  "systemContainers": [
	    {"name": "kubelet", "memory": {"availableBytes": 1, "workingSetBytes": 1}},
	    {"memory": {"availableBytes": 2}, "name": "pods"},
	    {"name": "pods", "memory": {"availableBytes": 3, "workingSetBytes": 3}},
	    {"name": "windows-global-commit-memory", "memory": {"time": "2026-12-01T10:00:00Z", "availableBytes": 4, "usageBytes": 5}},
	    null],
	  "memory": {"time": "2026-12-01T10:00:00Z", "availableBytes": 10, "workingSetBytes": 20, "usageBytes": 30, "rssBytes": 1},
	  "fs": {"time": null, "availableBytes": 1, "capacityBytes": 2, "usedBytes": 1, "inodesFree": 3, "inodes": 4, "inodesUsed": 1},
	  "runtime": {"imageFs": {"availableBytes": 5}, "containerFs": null},
	  "rlimit": {"time": "2026-12-01T12:00:00+02:00", "maxpid": 100, "curproc": 7}}}`
	s, err := Decode([]byte(in))
	require.NoError(t, err)
	want := thresholds.Summary{
		Memory: &thresholds.MemoryStats{Time: at, AvailableBytes: u64(10), WorkingSetBytes: u64(20), UsageBytes: u64(30)},
		// The first container named "pods" counts, even with its figures missing.
		PodsMemory:   &thresholds.MemoryStats{AvailableBytes: u64(2)},
		CommitMemory: &thresholds.MemoryStats{Time: at, AvailableBytes: u64(4), UsageBytes: u64(5)},
		NodeFs:       &thresholds.FsStats{AvailableBytes: u64(1), CapacityBytes: u64(2), InodesFree: u64(3), Inodes: u64(4)},
		ImageFs:      &thresholds.FsStats{AvailableBytes: u64(5)},
		Rlimit:       &thresholds.RlimitStats{Time: at, MaxPID: i64(100), NumOfRunningProcesses: i64(7)},
	}
	// Times are instants: compare them with Equal, the rest exactly.
	assert.True(t, s.Node.Rlimit.Time.Equal(want.Rlimit.Time))
	s.Node.Rlimit.Time = want.Rlimit.Time
	assert.Equal(t, want, s.Node)
	assert.Equal(t, "n", s.NodeName)
	assert.Empty(t, s.Pods)
}

func TestDecodeLenient(t *testing.T) {
	tests := []struct {
		name, in string
		want     ranking.Usage
	}{
		{"unknown fields of every type are skipped",
			`{"x": [1, -2.5e+3, true, false, null, {"y": "\u00e9\n"}], "pods": [{"extra": {"a": [[]]}, "memory": {"workingSetBytes": 7, "psi": {"some": {"avg10": 0.5}}}}]}`,
			ranking.Usage{MemoryWorkingSet: 7}},
		{"null figures read as zero",
			`{"pods": [{"memory": null, "process_stats": {"process_count": null}, "containers": null, "volume": null, "ephemeral-storage": null}]}`,
			ranking.Usage{}},
		{"a repeated key replaces the earlier value",
			`{"pods": [{"memory": {"workingSetBytes": 1}, "memory": {"rssBytes": 2},
			  "containers": [{"name": "a"}], "containers": [{"name": "b", "rootfs": {"usedBytes": 3}, "rootfs": {"inodesUsed": 4}}]}]}`,
			ranking.Usage{Containers: []ranking.ContainerUsage{{Name: "b", Rootfs: ranking.FSUsage{InodesUsed: 4}}}}},
		{"escaped keys and names",
			`{"pods": [{"c\u006fntainers": [{"name": "caf\u00e9 \ud83d\ude00", "logs": {"usedBytes": 0}}]}]}`,
			ranking.Usage{Containers: []ranking.ContainerUsage{{Name: "café 😀"}}}},
		{"other cases of a field name are unknown fields",
			`{"pods": [{"Memory": {"workingSetBytes": 1}, "memory": {"WorkingSetBytes": 2}}]}`,
			ranking.Usage{}},
		{"the largest counts",
			`{"pods": [{"memory": {"workingSetBytes": 18446744073709551615}, "volume": [{"name": "v", "usedBytes": 9223372036854775808}]}]}`,
			ranking.Usage{MemoryWorkingSet: 1<<64 - 1, Volumes: []ranking.VolumeUsage{{Name: "v", FSUsage: ranking.FSUsage{UsedBytes: 1 << 63}}}}},
		{"white space everywhere",
			" \t\r\n{ \"pods\" : [ { \"memory\" : { \"workingSetBytes\" : 9 } } ] } \n",
			ranking.Usage{MemoryWorkingSet: 9}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Decode([]byte(tc.in))
			require.NoError(t, err)
			require.Len(t, s.Pods, 1)
			assert.Equal(t, tc.want, s.Pods[0].Usage)
		})
	}
}

func TestDecodeEmpty(t *testing.T) {
	for _, in := range []string{`{}`, `null`, `{"node": null, "pods": null}`, `{"pods": []}`} {
		s, err := Decode([]byte(in))
		require.NoError(t, err, in)
		assert.Empty(t, s.Pods, in)
		assert.Equal(t, thresholds.Summary{}, s.Node, in)
		assert.Empty(t, thresholds.MakeObservations(s.Node, thresholds.Linux), in)
	}
}

// errorCases are inputs Decode rejects, with the sentinel and the message.
var errorCases = []struct {
	name, in string
	kind     error
	msg      string
}{
	{"negative working set", `{"pods":[{},{},{},{"containers":[{"memory":{"workingSetBytes":-5}}]}]}`,
		ErrNegative, "statsummary: pods[3].containers[0].memory.workingSetBytes: negative value -5"},
	{"fractional count", `{"pods":[{"process_stats":{"process_count":1.5}}]}`,
		ErrInvalidNumber, "statsummary: pods[0].process_stats.process_count: invalid number 1.5: not an integer"},
	{"count with an exponent", `{"node":{"fs":{"inodes":1e6}}}`,
		ErrInvalidNumber, "statsummary: node.fs.inodes: invalid number 1e6: not an integer"},
	{"count beyond uint64", `{"pods":[{"volume":[{"usedBytes":18446744073709551616}]}]}`,
		ErrInvalidNumber, "statsummary: pods[0].volume[0].usedBytes: invalid number 18446744073709551616: out of range"},
	{"maxpid beyond int64", `{"node":{"rlimit":{"maxpid":9223372036854775808}}}`,
		ErrInvalidNumber, "statsummary: node.rlimit.maxpid: invalid number 9223372036854775808: out of range"},
	{"negative curproc", `{"node":{"rlimit":{"curproc":-1}}}`,
		ErrNegative, "statsummary: node.rlimit.curproc: negative value -1"},
	{"count as a string", `{"node":{"memory":{"availableBytes":"5"}}}`,
		ErrWrongType, "statsummary: node.memory.availableBytes: wrong type: want number, got string"},
	{"name as a number", `{"pods":[{"podRef":{"uid":5}}]}`,
		ErrWrongType, "statsummary: pods[0].podRef.uid: wrong type: want string, got number"},
	{"pods as an object", `{"pods":{}}`,
		ErrWrongType, "statsummary: pods: wrong type: want array, got object"},
	{"stats as an array", `{"pods":[{"ephemeral-storage":[]}]}`,
		ErrWrongType, "statsummary: pods[0].ephemeral-storage: wrong type: want object, got array"},
	{"top level array", `[]`,
		ErrWrongType, "statsummary: document: wrong type: want object, got array"},
	{"boolean count", `{"pods":[{"memory":{"workingSetBytes":true}}]}`,
		ErrWrongType, "statsummary: pods[0].memory.workingSetBytes: wrong type: want number, got boolean"},
	{"bad time", `{"node":{"fs":{"time":"yesterday"}}}`,
		ErrInvalidTime, `statsummary: node.fs.time: invalid time "yesterday"`},
	{"time as a number", `{"node":{"rlimit":{"time":0}}}`,
		ErrWrongType, "statsummary: node.rlimit.time: wrong type: want string, got number"},
	{"empty input", ``,
		ErrSyntax, "statsummary: document: invalid JSON: want a value, got end of input at offset 0"},
	{"truncated", `{"pods":[{"memory":{"workingSetBytes":1`,
		ErrSyntax, "statsummary: pods[0].memory.workingSetBytes: invalid JSON: want ',' or '}', got end of input at offset 39"},
	{"trailing comma", `{"pods":[],}`,
		ErrSyntax, `statsummary: document: invalid JSON: want a string key, got '}' at offset 11`},
	{"trailing data", `{} {}`,
		ErrSyntax, "statsummary: document: invalid JSON: want the end of input after the top-level value, got '{' at offset 3"},
	{"bad literal in an unknown field", `{"we.ird":tru}`,
		ErrSyntax, `statsummary: ["we.ird"]: invalid JSON: invalid literal, want true at offset 10`},
	{"leading zero", `{"pods":[{"memory":{"workingSetBytes":01}}]}`,
		ErrSyntax, "statsummary: pods[0].memory.workingSetBytes: invalid JSON: want ',' or '}', got '1' at offset 39"},
	{"bad escape", `{"pods":[{"podRef":{"name":"a\x"}}]}`,
		ErrSyntax, `statsummary: pods[0].podRef.name: invalid JSON: invalid escape "\\x" at offset 29`},
	{"control character", "{\"node\":{\"nodeName\":\"a\tb\"}}",
		ErrSyntax, `statsummary: node.nodeName: invalid JSON: control character '\t' in string at offset 22`},
	{"a syntax error later wins over a type error", `{"pods":"x","node":{"fs":}}`,
		ErrSyntax, `statsummary: node.fs: invalid JSON: want a value, got '}' at offset 25`},
	{"long tokens are cut", `{"pods":[{"memory":{"workingSetBytes":-` + "1234567890123456789012345678901234567890123456789012345678901234567890" + `}}]}`,
		ErrNegative, "statsummary: pods[0].memory.workingSetBytes: negative value -123456789012345678901234567890123456789012345678901234567890123..."},
}

func TestDecodeErrors(t *testing.T) {
	for _, tc := range errorCases {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Decode([]byte(tc.in))
			require.Error(t, err)
			assert.Nil(t, s)
			assert.True(t, errors.Is(err, tc.kind), "%v wraps %v", err, tc.kind)
			assert.Equal(t, tc.msg, err.Error())
		})
	}
}

func TestDecodeDepth(t *testing.T) {
	nest := func(n int) []byte {
		b := []byte(`{"x":`)
		for range n {
			b = append(b, '[')
		}
		for range n {
			b = append(b, ']')
		}
		return append(b, '}')
	}
	_, err := Decode(nest(maxDepth - 1))
	require.NoError(t, err, "the top-level object and 9,999 arrays")
	_, err = Decode(nest(maxDepth))
	require.ErrorIs(t, err, ErrSyntax)
	assert.Contains(t, err.Error(), "nesting deeper than 10000")
}
