package devicetaints_test

import (
	"testing"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/utils/ptr"

	"github.com/evictkit/eviction/devicetaints"
)

func TestTolerates(t *testing.T) {
	gpu := taint("gpu", "broken", noExec)
	cases := []struct {
		name  string
		tol   resourceapi.DeviceToleration
		taint resourceapi.DeviceTaint
		want  bool
	}{
		{"equal key, value and effect", tol("gpu", equal, "broken", noExec), gpu, true},
		{"empty operator means Equal", tol("gpu", "", "broken", noExec), gpu, true},
		{"equal with another value", tol("gpu", equal, "ok", noExec), gpu, false},
		{"equal with an empty value against a value", tol("gpu", equal, "", noExec), gpu, false},
		{"equal with empty values on both sides", tol("gpu", equal, "", noExec), taint("gpu", "", noExec), true},
		{"exists ignores the value", tol("gpu", exists, "anything", noExec), gpu, true},
		{"another key", tol("fpga", exists, "", noExec), gpu, false},
		{"empty key with Exists matches every key", tol("", exists, "", noExec), gpu, true},
		{"empty key with Equal matches every key whose value is equal", tol("", equal, "broken", noExec), gpu, true},
		{"empty key with Equal and another value", tol("", equal, "", noExec), gpu, false},
		{"empty effect matches NoExecute", tol("gpu", exists, "", ""), gpu, true},
		{"empty effect matches None", tol("gpu", exists, "", ""), taint("gpu", "", none), true},
		{"another effect", tol("gpu", exists, "", noSch), gpu, false},
		{"None tolerates None", tol("gpu", exists, "", none), taint("gpu", "", none), true},
		{"an unknown operator tolerates nothing", tol("gpu", "exists", "", noExec), gpu, false},
		{"the empty toleration with Exists tolerates everything", tol("", exists, "", ""), taint("x", "y", "Future"), true},
		{"seconds play no part", tol("gpu", exists, "", noExec, -5), gpu, true},
		{"time added plays no part", tol("gpu", exists, "", noExec), taint("gpu", "broken", noExec, nil), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := devicetaints.Tolerates(tc.tol, tc.taint); got != tc.want {
				t.Errorf("Tolerates(%+v, %+v) = %v, want %v", tc.tol, tc.taint, got, tc.want)
			}
		})
	}
}

func TestSelectorMatches(t *testing.T) {
	id := devicetaints.DeviceID{Driver: "d", Pool: "p", Device: "x"}
	cases := []struct {
		name string
		sel  *devicetaints.Selector
		want bool
	}{
		{"nil selects nothing", nil, false},
		{"empty selects everything", &devicetaints.Selector{}, true},
		{"driver", &devicetaints.Selector{Driver: ptr.To("d")}, true},
		{"another driver", &devicetaints.Selector{Driver: ptr.To("e")}, false},
		{"pool of any driver", &devicetaints.Selector{Pool: ptr.To("p")}, true},
		{"device by name in any pool", &devicetaints.Selector{Device: ptr.To("x")}, true},
		{"all three", &devicetaints.Selector{Driver: ptr.To("d"), Pool: ptr.To("p"), Device: ptr.To("x")}, true},
		{"all three, another device", &devicetaints.Selector{Driver: ptr.To("d"), Pool: ptr.To("p"), Device: ptr.To("y")}, false},
		{"an empty string is a value", &devicetaints.Selector{Pool: ptr.To("")}, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.sel.Matches(id); got != tc.want {
				t.Errorf("Matches = %v, want %v", got, tc.want)
			}
		})
	}
	if got := id.String(); got != "d/p/x" {
		t.Errorf("String() = %q", got)
	}
}
