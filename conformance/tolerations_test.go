package conformance_test

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1helpers "k8s.io/component-helpers/scheduling/corev1"
	"k8s.io/klog/v2"
	v1helper "k8s.io/kubernetes/pkg/apis/core/v1/helper"
	"k8s.io/kubernetes/pkg/controller/tainteviction"
	"k8s.io/kubernetes/pkg/features"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/helper"
	testingclock "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"

	"github.com/evictkit/eviction/conformance/internal/gen"
	tecore "github.com/evictkit/eviction/tainteviction"
	"github.com/evictkit/eviction/tolerations"
)

// gates runs f with the TaintTolerationComparisonOperators gate off
// (upstream's default) and on.
func gates(t *testing.T, f func(t *testing.T, gate bool)) {
	withGate(t, features.TaintTolerationComparisonOperators, "gate", []bool{false, true}, f)
}

// logger is handed to upstream functions that take one; TestMain discards
// klog's output.
var logger = klog.Background()

func TestTolerates(t *testing.T) {
	gates(t, func(t *testing.T, gate bool) {
		rapid.Check(t, func(t *rapid.T) {
			taint := gen.Taint().Draw(t, "taint")
			tol := gen.TolerationNear([]v1.Taint{taint}).Draw(t, "toleration")
			want := tol.ToleratesTaint(logger, &taint, gate)
			got := tolerations.Tolerates(&tol, &taint, tolerations.Options{ComparisonOperators: gate})
			if got != want {
				t.Fatalf("Tolerates(%s, %s): upstream %v, evictkit %v", show(tol), show(taint), want, got)
			}
		})
	})
}

func TestAnyTolerates(t *testing.T) {
	gates(t, func(t *testing.T, gate bool) {
		rapid.Check(t, func(t *rapid.T) {
			taint := gen.Taint().Draw(t, "taint")
			tols := gen.TolerationsNear([]v1.Taint{taint}, 4).Draw(t, "tolerations")
			want := corev1helpers.TolerationsTolerateTaint(logger, tols, &taint, gate)
			got := tolerations.AnyTolerates(tols, &taint, tolerations.Options{ComparisonOperators: gate})
			if got != want {
				t.Fatalf("AnyTolerates(%s, %s): upstream %v, evictkit %v", show(tols), show(taint), want, got)
			}
		})
	})
}

func TestFindUntolerated(t *testing.T) {
	filters := map[string]func(*v1.Taint) bool{
		"nil":                    nil,
		"NoScheduleOrNoExecute":  helper.DoNotScheduleTaintsFilterFunc(),
		"NoExecute":              func(t *v1.Taint) bool { return t.Effect == v1.TaintEffectNoExecute },
		"PreferNoScheduleOrNone": func(t *v1.Taint) bool { return t.Effect == v1.TaintEffectPreferNoSchedule || t.Effect == "" },
	}
	gates(t, func(t *testing.T, gate bool) {
		for name, filter := range filters {
			t.Run("filter="+name, func(t *testing.T) {
				rapid.Check(t, func(t *rapid.T) {
					taints := gen.Taints(5).Draw(t, "taints")
					tols := gen.TolerationsNear(taints, 4).Draw(t, "tolerations")
					wantTaint, wantFound := corev1helpers.FindMatchingUntoleratedTaint(logger, taints, tols, filter, gate)
					gotTaint, gotFound := tolerations.FindUntolerated(taints, tols, filter, tolerations.Options{ComparisonOperators: gate})
					if gotFound != wantFound || !reflect.DeepEqual(gotTaint, wantTaint) {
						t.Fatalf("FindUntolerated(%s, %s): upstream (%s, %v), evictkit (%s, %v)",
							show(taints), show(tols), show(wantTaint), wantFound, show(gotTaint), gotFound)
					}
				})
			})
		}
	})
}

func TestMatching(t *testing.T) {
	gates(t, func(t *testing.T, gate bool) {
		rapid.Check(t, func(t *rapid.T) {
			taints := gen.Taints(5).Draw(t, "taints")
			tols := gen.TolerationsNear(taints, 4).Draw(t, "tolerations")
			// GetMatchingTolerations reads the process-wide gate set by gates.
			wantAll, wantUsed := v1helper.GetMatchingTolerations(logger, taints, tols)
			gotUsed, gotAll := tolerations.Matching(taints, tols, tolerations.Options{ComparisonOperators: gate})
			if gotAll != wantAll || !reflect.DeepEqual(gotUsed, wantUsed) {
				t.Fatalf("Matching(%s, %s): upstream (%s, %v), evictkit (%s, %v)",
					show(taints), show(tols), show(wantUsed), wantAll, show(gotUsed), gotAll)
			}
		})
	})
}

// maxExactSeconds is the largest toleration that upstream turns into a
// duration without wrapping around int64 nanoseconds.
const maxExactSeconds = int64(1<<63-1) / int64(time.Second)

func TestMinTolerationTime(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tols := gen.Tolerations(4).Draw(t, "tolerations")
		want := tainteviction.GetMinTolerationTime(tols)
		gotD, gotForever := tolerations.MinTolerationTime(tols)
		if wraps(tols) {
			// Deliberate difference (overflow-safe seconds): upstream
			// multiplies in int64 nanoseconds and wraps, giving a negative
			// duration (read as forever) or, from 18446744074 s, a tiny
			// positive one (evict almost at once). The library tolerates
			// forever.
			if gotD != 0 || !gotForever {
				t.Fatalf("MinTolerationTime(%s): evictkit (%v, %v), want (0, true) (upstream wraps to %v)", show(tols), gotD, gotForever, want)
			}
			return
		}
		var wantD time.Duration
		wantForever := want < 0
		if !wantForever {
			wantD = want
		}
		if gotD != wantD || gotForever != wantForever {
			t.Fatalf("MinTolerationTime(%s): upstream %v (= (%v, %v)), evictkit (%v, %v)",
				show(tols), want, wantD, wantForever, gotD, gotForever)
		}
	})
}

// wraps reports whether upstream's getMinTolerationTime wraps around for
// tols: no toleration with seconds ≤ 0, and the smallest seconds too large
// for a time.Duration.
func wraps(tols []v1.Toleration) bool {
	minSec := int64(-1)
	for _, tol := range tols {
		if s := tol.TolerationSeconds; s != nil {
			if *s <= 0 {
				return false
			}
			if minSec < 0 || *s < minSec {
				minSec = *s
			}
		}
	}
	return minSec > maxExactSeconds
}

// overflows reports whether the NoExecute decision for tols on taints hits
// the overflow-safe-seconds difference: every NoExecute taint tolerated and
// upstream's minimum over the used tolerations wraps.
func overflows(taints []v1.Taint, tols []v1.Toleration) bool {
	all, used := v1helper.GetMatchingTolerations(logger, tainteviction.GetNoExecuteTaints(taints), tols)
	return all && wraps(used)
}

// mapQueue is a timed queue reduced to what Reconcile needs: items by key,
// run at once when fireAt is not after createdAt (upstream's queue starts
// such work at once and drops its key when it returns).
type mapQueue struct {
	items map[string][2]time.Time
	ran   []string
}

func (q *mapQueue) Add(key string, createdAt, fireAt time.Time) bool {
	if _, ok := q.items[key]; ok {
		return false
	}
	if !fireAt.After(createdAt) {
		q.ran = append(q.ran, key)
		return true
	}
	q.items[key] = [2]time.Time{createdAt, fireAt}
	return true
}

func (q *mapQueue) Cancel(key string) bool {
	_, ok := q.items[key]
	delete(q.items, key)
	return ok
}

// TestNoExecuteDecision drives upstream's processPodOnNode (through a
// TimedWorkerQueue on a fake clock that is never stepped, so nothing runs
// but the evictions started at once) and the library's NoExecuteDecision +
// Reconcile (its action applied to a map) with the same sequence of (taints, tolerations,
// now) for one pod, and compares the queued eviction and the evictions
// started at once after every step.
func TestNoExecuteDecision(t *testing.T) {
	gates(t, func(t *testing.T, gate bool) {
		rapid.Check(t, func(t *rapid.T) {
			checkNoExecuteSequence(t, gate)
		})
	})
}

func checkNoExecuteSequence(t *rapid.T, gate bool) {
	key := types.NamespacedName{Namespace: "ns", Name: "p"}
	var upRan []string
	upQ := tainteviction.CreateWorkerQueueWithClock(func(_ context.Context, _ time.Time, args *tainteviction.WorkArgs) error {
		upRan = append(upRan, args.KeyFromWorkArgs())
		return nil
	}, testingclock.NewFakeClock(gen.Epoch))
	ours := &mapQueue{items: map[string][2]time.Time{}}
	now := gen.Epoch
	var history []string
	for step := range rapid.IntRange(1, 5).Draw(t, "steps") {
		taints := gen.Taints(3).Draw(t, fmt.Sprintf("taints%d", step))
		tols := gen.TolerationsNear(taints, 3).Draw(t, fmt.Sprintf("tolerations%d", step))
		now = now.Add(time.Duration(rapid.IntRange(-1, 3).Draw(t, fmt.Sprintf("advance%d", step))) * time.Second)

		if noExecute := tainteviction.GetNoExecuteTaints(taints); len(noExecute) == 0 {
			// Upstream's node handler cancels instead of calling
			// processPodOnNode when the node has no NoExecute taint left.
			upQ.CancelWork(logger, key.String())
		} else {
			tainteviction.ProcessPodOnNode(context.Background(), upQ, key, "node", tols, noExecute, now)
		}
		upQ.WaitRunning()

		d := tolerations.NoExecuteDecision(taints, tols, tolerations.Options{ComparisonOperators: gate})
		if overflows(taints, tols) {
			// Deliberate difference (overflow-safe seconds): upstream wraps
			// the toleration time around int64 nanoseconds and schedules
			// the eviction at the wrapped time (or never, when it wraps
			// negative); the library tolerates forever. From here on the
			// two schedules legitimately differ, so the sequence ends.
			if d.Kind != tolerations.Never {
				t.Fatalf("step %d: NoExecuteDecision(%s, %s) = %v, want never (upstream wraps around)", step, show(taints), show(tols), d)
			}
			return
		}
		var existing *tecore.Scheduled
		if it, ok := ours.items[key.String()]; ok {
			existing = &tecore.Scheduled{CreatedAt: it[0], FireAt: it[1]}
		}
		a := tecore.Reconcile(d, existing, now)
		if a.Cancel {
			ours.Cancel(key.String())
		}
		if a.Add {
			ours.Add(key.String(), a.CreatedAt, a.FireAt)
		}
		history = append(history, fmt.Sprintf("step %d at %v: taints %s, tolerations %s: evictkit decision %v, action %v",
			step, now.Sub(gen.Epoch), show(taints), show(tols), d, a))

		var want, got string
		if w := upQ.GetWorkerUnsafe(key.String()); w != nil {
			want = fmt.Sprintf("queued (created %v, fire %v)", w.CreatedAt.Sub(gen.Epoch), w.FireAt.Sub(gen.Epoch))
		}
		if it, ok := ours.items[key.String()]; ok {
			got = fmt.Sprintf("queued (created %v, fire %v)", it[0].Sub(gen.Epoch), it[1].Sub(gen.Epoch))
		}
		want += fmt.Sprintf(", %d started at once", len(upRan))
		got += fmt.Sprintf(", %d started at once", len(ours.ran))
		if got != want {
			t.Fatalf("after step %d: upstream %s, evictkit %s\n%s", step, want, got, strings.Join(history, "\n"))
		}
	}
}
