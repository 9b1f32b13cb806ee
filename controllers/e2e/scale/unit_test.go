package scale

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

const auditSample = `{"kind":"Event","verb":"patch","user":{"username":"scale-controllers"},"objectRef":{"resource":"pods","subresource":"status","namespace":"scale","name":"p-00001-01"},"responseStatus":{"code":200},"stageTimestamp":"2026-12-02T10:00:01.000000Z"}
{"kind":"Event","verb":"delete","user":{"username":"scale-controllers"},"objectRef":{"resource":"pods","namespace":"scale","name":"p-00001-01"},"responseStatus":{"code":200},"stageTimestamp":"2026-12-02T10:00:02.000000Z"}
{"kind":"Event","verb":"delete","user":{"username":"scale-controllers"},"objectRef":{"resource":"pods","namespace":"scale","name":"p-00001-02"},"responseStatus":{"code":200},"stageTimestamp":"2026-12-02T10:00:03.000000Z"}
{"kind":"Event","verb":"patch","user":{"username":"scale-controllers"},"objectRef":{"resource":"nodes","name":"n-00001"},"responseStatus":{"code":409},"stageTimestamp":"2026-12-02T10:00:04.000000Z"}
{"kind":"Event","verb":"list","user":{"username":"scale-controllers"},"objectRef":{"resource":"nodes"},"responseStatus":{"code":200},"stageTimestamp":"2026-12-02T09:59:00.000000Z"}
{"kind":"Event","verb":"update","user":{"username":"kwok"},"objectRef":{"resource":"leases"},"responseStatus":{"code":200},"stageTimestamp":"2026-12-02T10:00:03.000000Z"}

`

func TestCountAuditByVerbAndResourceForOneUserSinceATime(t *testing.T) {
	since := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	got, err := countAudit(strings.NewReader(auditSample), controllersUser, since)
	require.NoError(t, err)
	assert.Equal(t, Requests{"patch pods/status": 1, "delete pods": 2, "refused patch nodes": 1}, got)
	assert.Equal(t, 3, got.Writes(), "a patch refused with a conflict wrote nothing")
	assert.Equal(t, 3, got.DecisionWrites(), "no Event among them")
	assert.Equal(t, 4, got.Total())

	all, err := countAudit(strings.NewReader(auditSample), controllersUser, time.Time{})
	require.NoError(t, err)
	assert.Equal(t, 5, all.Total(), "the list before since counts when since is zero")
	assert.Equal(t, 3, all.Writes(), "a list is no write")
}

func TestCountAuditNamesTheBadLine(t *testing.T) {
	_, err := countAudit(strings.NewReader(auditSample+"{not json\n"), controllersUser, time.Time{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "line 8")
}

const metricsSample = `# HELP apiserver_request_duration_seconds [STABLE] Response latency
# TYPE apiserver_request_duration_seconds histogram
apiserver_request_duration_seconds_bucket{component="apiserver",resource="pods",verb="PATCH",le="0.005"} 50
apiserver_request_duration_seconds_bucket{component="apiserver",resource="pods",verb="PATCH",le="0.1"} 99
apiserver_request_duration_seconds_bucket{component="apiserver",resource="pods",verb="PATCH",le="+Inf"} 100
apiserver_request_duration_seconds_sum{component="apiserver",resource="pods",verb="PATCH"} 2
apiserver_request_duration_seconds_count{component="apiserver",resource="pods",verb="PATCH"} 100
apiserver_request_duration_seconds_bucket{component="apiserver",resource="pods",verb="WATCH",le="+Inf"} 7
apiserver_request_duration_seconds_sum{component="apiserver",resource="pods",verb="WATCH"} 700
apiserver_request_duration_seconds_count{component="apiserver",resource="pods",verb="WATCH"} 7
apiserver_request_total{code="200"} 5
`

func TestLatencyBetweenTwoScrapesLeavesWatchesOut(t *testing.T) {
	l, err := parseLatency(strings.NewReader(metricsSample))
	require.NoError(t, err)
	got := l.since(latency{buckets: map[float64]float64{}})
	assert.Equal(t, Latency{Requests: 100, Mean: 20 * time.Millisecond, P99: 100 * time.Millisecond}, got)
	assert.Equal(t, Latency{}, l.since(l), "nothing ended between two equal scrapes")
}

func TestLatencyNamesTheBadLine(t *testing.T) {
	_, err := parseLatency(strings.NewReader(`apiserver_request_duration_seconds_count{verb="GET"} many` + "\n"))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "many")
}

func FuzzCountAudit(f *testing.F) {
	f.Add([]byte(auditSample))
	f.Add([]byte(`{"verb":"get","user":{"username":"scale-controllers"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := countAudit(strings.NewReader(string(b)), controllersUser, time.Time{})
		if err == nil && r.Writes() > r.Total() {
			t.Fatalf("%d writes of %d requests", r.Writes(), r.Total())
		}
	})
}

func FuzzParseLatency(f *testing.F) {
	f.Add([]byte(metricsSample))
	f.Add([]byte(`apiserver_request_duration_seconds_bucket{le="x"} 1`))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := parseLatency(strings.NewReader(string(b)))
		if err == nil {
			_ = l.since(latency{buckets: map[float64]float64{}})
		}
	})
}

func TestPodsCycleThroughTheirTolerations(t *testing.T) {
	s := Shape{Nodes: 3, PodsPerNode: 10, Zones: 3}
	count := map[role]int{}
	for j := range 10 {
		p := s.pod(1, j)
		assert.Equal(t, "n-00001", p.Spec.NodeName)
		r := roleOf(j)
		count[r]++
		switch r {
		case tolerateAll:
			assert.Equal(t, []v1.Toleration{{Operator: v1.TolerationOpExists}}, p.Spec.Tolerations)
		default:
			require.Len(t, p.Spec.Tolerations, 2)
			d, ok := r.tolerationOf()
			for _, tol := range p.Spec.Tolerations {
				if ok {
					require.NotNil(t, tol.TolerationSeconds)
					assert.Equal(t, int64(d/time.Second), *tol.TolerationSeconds)
				} else {
					assert.Nil(t, tol.TolerationSeconds)
				}
			}
		}
	}
	assert.Equal(t, map[role]int{tolerateAll: 1, tolerateShort: 6, tolerateLong: 2, tolerateForever: 1}, count)
	assert.Equal(t, "zone-1", s.zoneOf(4))
}

func TestScenariosPredictTheirEvictionsFromTheShape(t *testing.T) {
	s := Shape{Nodes: 30, PodsPerNode: 10, Zones: 3}
	want := map[string]int{
		"zone":  10 * 8, // ten nodes of a zone, the short and long tolerating pods
		"flap":  3 * 6,  // every tenth node, the short tolerating pods
		"taint": 15 * 9, // half the nodes, every pod but the one tolerating all
	}
	for _, sc := range scenarios {
		if sc.racy {
			assert.Nil(t, sc.expect, "%s: a racy scenario predicts nothing", sc.name)
			continue
		}
		assert.Len(t, sc.expect(s, sc.affected(s)), want[sc.name], sc.name)
	}
}

func TestWrongEvictionsNamesExtraAndMissingPods(t *testing.T) {
	got := wrongEvictions([]string{"a", "c"}, map[string]bool{"a": true, "b": true})
	assert.Equal(t, []string{
		"1 pods evicted that the scenario keeps: c",
		"1 pods not evicted that the scenario evicts: b",
	}, got)
	assert.Empty(t, wrongEvictions([]string{"a"}, map[string]bool{"a": true}))
}

func TestEarlyEvictionsJudgeByTheTaintsTimeAdded(t *testing.T) {
	taintAt := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	changes := []taintChange{{Node: "n-00001", Key: v1.TaintNodeUnreachable, Added: true, TimeAdded: taintAt}}
	evictions := []eviction{
		{Pod: "p-00001-01", Node: "n-00001", At: taintAt.Add(shortTolerance + 300*time.Millisecond)}, // on time
		{Pod: "p-00001-07", Node: "n-00001", At: taintAt.Add(10 * time.Second)},                      // tolerates 60 s: early
		{Pod: "p-00001-09", Node: "n-00001", At: taintAt},                                            // tolerates for ever: not judged here
	}
	got := earlyEvictions(evictions, changes)
	require.Len(t, got, 1)
	assert.Contains(t, got[0], "1 pods evicted before")
	assert.Contains(t, got[0], "p-00001-07")

	user := []taintChange{{Node: "n-00001", Key: userTaint.Key, Added: true, TimeAdded: taintAt}}
	assert.Empty(t, earlyEvictions(evictions, user), "a user's taint is tolerated by none of them")
}

func TestCompareCatchesOtherPodsOtherTaintsAndMoreWrites(t *testing.T) {
	ref := Result{
		EvictedPods: []string{"a", "b"}, Evicted: 2,
		NodeTaints: map[string][]string{"n1": {"+" + v1.TaintNodeUnreachable, "-" + v1.TaintNodeUnreachable}},
		Requests:   Requests{"delete pods": 2, "patch pods/status": 2, "create events": 1},
	}
	assert.Empty(t, compare(ref, ref, false))
	moreEvents := ref
	moreEvents.Requests = Requests{"delete pods": 2, "patch pods/status": 2, "create events": 2}
	assert.Empty(t, compare(ref, moreEvents, false), "Events are compared apart: kcm's recorder drops them when busy")

	got := ref
	got.EvictedPods = []string{"a", "c"}
	got.NodeTaints = map[string][]string{"n1": {"+" + v1.TaintNodeUnreachable}, "n2": {"+" + v1.TaintNodeNotReady}}
	got.Requests = Requests{"delete pods": 2, "patch pods/status": 3}
	problems := compare(ref, got, false)
	require.Len(t, problems, 3)
	assert.Contains(t, problems[0], "1 only by kcm (b), 1 only by ours (c)")
	assert.Contains(t, problems[1], "2 nodes' NoExecute taints differ")
	assert.Contains(t, problems[2], "ours 2.50, kcm 2.00")

	// A racy scenario compares the writes per eviction alone.
	racy := compare(ref, got, true)
	require.Len(t, racy, 1)
	assert.Contains(t, racy[0], "ours 2.50, kcm 2.00")
}

func TestParallelCallsEachOnceAndStopsAtAnError(t *testing.T) {
	var calls atomic.Int64
	require.NoError(t, parallel(4, 100, func(int) error { calls.Add(1); return nil }))
	assert.EqualValues(t, 100, calls.Load())

	boom := errors.New("boom")
	calls.Store(0)
	err := parallel(1, 100, func(i int) error {
		calls.Add(1)
		if i == 3 {
			return boom
		}
		return nil
	})
	assert.ErrorIs(t, err, boom)
	assert.EqualValues(t, 4, calls.Load(), "one worker starts nothing after the error")
}

func TestParseEnvReadsPairsAndNamesTheBadOne(t *testing.T) {
	env, err := parseEnv("GOMAXPROCS=1,GOGC=200")
	require.NoError(t, err)
	assert.Equal(t, []string{"GOMAXPROCS=1", "GOGC=200"}, env)

	env, err = parseEnv("")
	require.NoError(t, err)
	assert.Empty(t, env)

	_, err = parseEnv("GOMAXPROCS=1,GOGC")
	assert.ErrorContains(t, err, `"GOGC" is not NAME=VALUE`)
	_, err = parseEnv("=1")
	assert.ErrorContains(t, err, `"=1" is not NAME=VALUE`)
}

func TestZoneBoundCoversMarkingAndEvictingAtTheRateLimit(t *testing.T) {
	zone, ok := scenarioNamed("zone")
	require.True(t, ok)
	// The last evictions measured on 2 cores: kube-controller-manager's at
	// 1,000 nodes of 10 pods, and ours at 3,000, where marking a zone of
	// 1,000 nodes Unknown and evicting its pods at 100 requests a second
	// took longer than silence, grace and the eviction rate allow.
	assert.Greater(t, zone.bound(Shape{Nodes: 1000, PodsPerNode: 10, Zones: 3}), 3*time.Minute+14*time.Second)
	assert.Greater(t, zone.bound(Shape{Nodes: 3000, PodsPerNode: 10, Zones: 3}), 5*time.Minute+59*time.Second)
}
