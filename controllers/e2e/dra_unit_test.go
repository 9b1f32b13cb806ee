package e2e

import (
	"strings"
	"testing"
	"time"

	resourceapi "k8s.io/api/resource/v1"
)

// The judges on the device-taint eviction's changes, without a cluster.

var (
	devNone  = []deviceUse{{driver: draDriver, pool: "p", device: "d0"}}
	devThree = []deviceUse{{driver: draDriver, pool: "p", device: "d1", tols: []resourceapi.DeviceToleration{tolerateDevice(ptr(int64(3)))}}}
	devEver  = []deviceUse{{driver: draDriver, pool: "p", device: "d2", tols: []resourceapi.DeviceToleration{tolerateDevice(nil)}}}
	// A toleration without an effect: kube-controller-manager v1.37.2
	// counts only NoExecute ones, so it does not delay the eviction.
	devNoEffect = []deviceUse{{driver: draDriver, pool: "p", device: "d3", tols: []resourceapi.DeviceToleration{{Key: deviceTaintKey, Operator: resourceapi.DeviceTolerationOpExists}}}}
)

func podAt(d time.Duration, what string, devs []deviceUse) event {
	e := at(d, what, draNode)
	e.devs = devs
	return e
}

// ruleRun is a reference run: a NoExecute rule on pool p, added at 0.4 s
// with timeAdded 0 s (whole seconds); pod none goes at once, pod three three
// seconds after timeAdded, pod forever stays; the rule's status says two
// pods are pending, then, ten seconds after the last eviction, that the
// evictions completed.
func ruleRun() []event {
	rule := at(400*ms, "rule r +"+deviceTaintKey+":NoExecute", "")
	rule.taint = &deviceTaint{driver: draDriver, pool: "p", taint: resourceapi.DeviceTaint{Key: deviceTaintKey, Effect: resourceapi.DeviceTaintEffectNoExecute}, added: time.Time{}}
	return []event{
		podAt(100*ms, "pod ns/none created", devNone),
		podAt(150*ms, "pod ns/three created", devThree),
		podAt(200*ms, "pod ns/forever created", devEver),
		rule,
		at(450*ms, "rule r EvictionInProgress=True PodsPendingEviction: 2 pods need to be evicted in 1 namespace.", ""),
		podAt(460*ms, "pod ns/none DisruptionTarget=True", devNone),
		at(470*ms, `event device-taint-eviction-controller Pod ns/none: Normal DeviceTaintManagerEviction "Marking for deletion"`, ""),
		podAt(480*ms, "pod ns/none deleted", devNone),
		podAt(3020*ms, "pod ns/three DisruptionTarget=True", devThree),
		podAt(3040*ms, "pod ns/three deleted", devThree),
		at(13050*ms, "rule r EvictionInProgress=False Completed: 2 pods evicted since starting the controller.", ""),
	}
}

func TestDeviceTaintJudges(t *testing.T) {
	if p := compareRuns(ruleRun(), ruleRun()); len(p) != 0 {
		t.Fatalf("a run against itself: %q", p)
	}
	if p := checkTimes(ruleRun(), testSettings, nil); len(p) != 0 {
		t.Fatalf("the reference run's times: %q", p)
	}
	for _, tc := range []struct {
		name   string
		change func([]event) []event
		times  bool   // judged by checkTimes, else by compareRuns
		want   string // "" for no problem
	}{
		{"an eviction before the toleration from timeAdded runs out", func(e []event) []event {
			return moveTo(e, "pod ns/three DisruptionTarget", 2500*ms)
		}, true, `"pod ns/three DisruptionTarget=True" at 2.50s, outside`},
		{"an eviction counted from when the taint was seen, not its timeAdded", func(e []event) []event {
			return moveTo(e, "pod ns/three DisruptionTarget", 3600*ms)
		}, true, `"pod ns/three DisruptionTarget=True" at 3.60s, outside`},
		{"a second status sooner than ten seconds after the first", func(e []event) []event {
			return moveTo(e, "rule r EvictionInProgress=False", 5*s)
		}, true, `"rule r EvictionInProgress=False Completed: 2 pods evicted since starting the controller." at 5.00s, outside`},
		{"a first status long after the rule", func(e []event) []event {
			return moveTo(e, "rule r EvictionInProgress=True", 2*s)
		}, true, `"rule r EvictionInProgress=True PodsPendingEviction: 2 pods need to be evicted in 1 namespace." at 2.00s, outside`},
		{"a pod that tolerates the taint forever evicted", func(e []event) []event {
			return append(e, podAt(500*ms, "pod ns/forever DisruptionTarget=True", devEver))
		}, false, `extra "pod ns/forever DisruptionTarget=True"`},
		{"another status message", func(e []event) []event {
			e[4].what = "rule r EvictionInProgress=True PodsPendingEviction: 1 pod needs to be evicted in 1 namespace."
			return e
		}, false, `missing "rule r EvictionInProgress=True PodsPendingEviction: 2 pods need to be evicted in 1 namespace."`},
		{"an eviction written before the taint", func(e []event) []event {
			for i := range e {
				e[i].rv = uint64(10 + i)
			}
			e[find(e, "pod ns/none DisruptionTarget")].rv = 1
			return e
		}, false, `"rule r +` + deviceTaintKey + `:NoExecute" came after "pod ns/none DisruptionTarget=True"`},
		{"the statuses of one rule swapped", func(e []event) []event {
			for i := range e {
				e[i].rv = uint64(10 + i)
			}
			e[4].rv, e[10].rv = e[10].rv, e[4].rv
			return e
		}, false, `came after "rule r EvictionInProgress=False`},
		{"Marking and DisruptionTarget in either order", func(e []event) []event {
			i := find(e, "event device-taint-eviction-controller Pod ns/none")
			e[i].at, e[i-1].at = e[i-1].at, e[i].at
			e[i], e[i-1] = e[i-1], e[i]
			return e
		}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.change(ruleRun())
			var p []string
			if tc.times {
				p = checkTimes(got, testSettings, nil)
			} else {
				p = compareRuns(ruleRun(), got)
			}
			if tc.want == "" {
				if len(p) != 0 {
					t.Errorf("problems %q, want none", p)
				}
				return
			}
			if len(p) == 0 || !strings.Contains(strings.Join(p, "\n"), tc.want) {
				t.Errorf("problems %q, want one containing %q", p, tc.want)
			}
		})
	}
}

func TestDeviceTaintEvicts(t *testing.T) {
	taint := deviceTaint{driver: draDriver, pool: "p", taint: resourceapi.DeviceTaint{Key: deviceTaintKey, Effect: resourceapi.DeviceTaintEffectNoExecute}}
	for _, tc := range []struct {
		name  string
		devs  []deviceUse
		after time.Duration
		ok    bool
	}{
		{"no toleration", devNone, 0, true},
		{"three seconds", devThree, 3 * s, true},
		{"forever", devEver, 0, false},
		{"a toleration without an effect counts for nothing", devNoEffect, 0, true},
		{"another pool", []deviceUse{{driver: draDriver, pool: "q", device: "d0"}}, 0, false},
		{"the shortest of two devices", append(append([]deviceUse{}, devThree...), devNone...), 0, true},
	} {
		after, ok := taint.evicts(tc.devs)
		if after != tc.after || ok != tc.ok {
			t.Errorf("%s: evicts = %v, %v; want %v, %v", tc.name, after, ok, tc.after, tc.ok)
		}
	}
	none := taint
	none.taint.Effect = resourceapi.DeviceTaintEffectNone
	if _, ok := none.evicts(devNone); ok {
		t.Error("a None taint evicts")
	}
}
