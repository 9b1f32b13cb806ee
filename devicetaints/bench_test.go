package devicetaints_test

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/devicetaints"
)

func BenchmarkTolerates(b *testing.B) {
	taint := taint("gpu", "broken", noExec)
	tols := []resourceapi.DeviceToleration{tol("fpga", exists, "", noExec), tol("gpu", equal, "ok", noExec), tol("gpu", exists, "", noExec, 30)}
	b.ReportAllocs()
	for b.Loop() {
		for _, t := range tols {
			devicetaints.Tolerates(t, taint)
		}
	}
}

// benchCluster is n pods, each with its own claim on one device of pools
// of 100 devices; a third tolerate every NoExecute taint for 300 s, a
// third forever, a third not at all.
func benchCluster(n int) ([]*resourceapi.ResourceSlice, []*resourceapi.ResourceClaim, []*v1.Pod) {
	var slices []*resourceapi.ResourceSlice
	for p := range (n + 99) / 100 {
		var devs []resourceapi.Device
		for d := range 100 {
			devs = append(devs, device(fmt.Sprintf("gpu-%d", d)))
		}
		slices = append(slices, slice(fmt.Sprintf("s%d", p), fmt.Sprintf("pool-%d", p), 1, devs...))
	}
	var claims []*resourceapi.ResourceClaim
	var pods []*v1.Pod
	for i := range n {
		p := pod(fmt.Sprintf("p%05d", i), fmt.Sprintf("c%05d", i))
		var tols []resourceapi.DeviceToleration
		switch i % 3 {
		case 0:
			tols = append(tols, tol("", exists, "", noExec, 300))
		case 1:
			tols = append(tols, tol("", exists, "", noExec))
		}
		c := claim(fmt.Sprintf("c%05d", i), []*v1.Pod{p}, result(fmt.Sprintf("pool-%d", i/100), fmt.Sprintf("gpu-%d", i%100), tols...))
		c.UID = types.UID(fmt.Sprintf("claim-%05d", i))
		claims, pods = append(claims, c), append(pods, p)
	}
	return slices, claims, pods
}

func BenchmarkSnapshot(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		slices, claims, pods := benchCluster(n)
		rules := []devicetaints.Rule{rule("maint", "", taint("maint", "", noExec))}
		b.Run(fmt.Sprintf("claims=%d/NewSnapshot", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				devicetaints.NewSnapshot(slices, claims, rules, devicetaints.Options{})
			}
		})
		s := devicetaints.NewSnapshot(slices, claims, rules, devicetaints.Options{})
		b.Run(fmt.Sprintf("claims=%d/Pod", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range pods {
					s.Pod(p)
				}
			}
		})
	}
}

// BenchmarkControllerRule: a rule tainting every device is added and
// removed, each followed by a Step that computes the rule's status.
func BenchmarkControllerRule(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		slices, claims, pods := benchCluster(n)
		c := devicetaints.NewController(devicetaints.Options{})
		for _, s := range slices {
			c.SliceChanged(nil, s)
		}
		for _, cl := range claims {
			c.ClaimChanged(nil, cl)
		}
		for _, p := range pods {
			c.PodChanged(nil, p)
		}
		r := rule("maint", "", taint("maint", "", noExec))
		before := t0.Add(-time.Hour)
		b.Run(fmt.Sprintf("claims=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				c.RuleChanged(nil, &r)
				c.Step(before)
				c.RuleChanged(&r, nil)
				c.Step(before)
			}
		})
	}
}
