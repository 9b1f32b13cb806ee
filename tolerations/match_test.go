package tolerations

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// toleratesCases are shared with the fuzz seeds and the benchmarks. gate is
// Options.ComparisonOperators.
var toleratesCases = []struct {
	name  string
	tol   v1.Toleration
	taint v1.Taint
	gate  bool
	want  bool
}{
	{"exists, same key and effect", tol("foo", exists, "", noSched), taint("foo", "", noSched), false, true},
	{"exists ignores the taint value", tol("foo", exists, "", noSched), taint("foo", "bar", noSched), false, true},
	{"empty key exists matches any key", tol("", exists, "", noSched), taint("foo", "bar", noSched), false, true},
	{"empty key exists, other effect", tol("", exists, "", noSched), taint("foo", "bar", noExec), false, false},
	{"equal, same value", tol("foo", equal, "bar", noSched), taint("foo", "bar", noSched), false, true},
	{"equal, other value", tol("foo", equal, "bar", noSched), taint("foo", "baz", noSched), false, false},
	{"equal, other effect", tol("foo", equal, "bar", noSched), taint("foo", "bar", noExec), false, false},
	{"empty operator and effect", tol("foo", "", "bar", ""), taint("foo", "bar", prefer), false, true},
	{"lowercase exists is unknown", tol("foo", "exists", "", ""), taint("foo", "", noSched), false, false},
	{"empty key equal empty value, valueless taint", tol("", equal, "", ""), taint("k", "", noSched), false, true},
	{"empty key equal empty value, taint with value", tol("", equal, "", ""), taint("k", "v", noSched), false, false},
	{"gt, gate on", tol("k", gt, "5", ""), taint("k", "6", noSched), true, true},
	{"gt, gate off", tol("k", gt, "5", ""), taint("k", "6", noSched), false, false},
	{"lt, gate off", tol("k", lt, "7", ""), taint("k", "6", noSched), false, false},
	{"gt equal values", tol("sla", gt, "950", ""), taint("sla", "950", noSched), true, false},
	{"gt 750 vs 950", tol("sla", gt, "750", ""), taint("sla", "950", noSched), true, true},
	{"lt 950 vs 800", tol("sla", lt, "950", ""), taint("sla", "800", noSched), true, true},
	{"lt 800 vs 950", tol("sla", lt, "800", ""), taint("sla", "950", noSched), true, false},
	{"lt equal values", tol("sla", lt, "950", ""), taint("sla", "950", noSched), true, false},
	{"leading zero", tol("k", gt, "5", ""), taint("k", "06", noSched), true, false},
	{"plus sign", tol("k", gt, "5", ""), taint("k", "+6", noSched), true, false},
	{"leading space", tol("k", gt, "5", ""), taint("k", " 6", noSched), true, false},
	{"negative zero", tol("k", lt, "5", ""), taint("k", "-0", noSched), true, false},
	{"letters", tol("k", gt, "5", ""), taint("k", "abc", noSched), true, false},
	{"empty", tol("k", lt, "5", ""), taint("k", "", noSched), true, false},
	{"max int64", tol("k", gt, "0", ""), taint("k", "9223372036854775807", noSched), true, true},
	{"max int64 + 1", tol("k", gt, "5", ""), taint("k", "9223372036854775808", noSched), true, false},
	{"min int64", tol("k", lt, "0", ""), taint("k", "-9223372036854775808", noSched), true, true},
	{"min int64 - 1", tol("k", lt, "0", ""), taint("k", "-9223372036854775809", noSched), true, false},
	{"negative bound", tol("k", gt, "-100", ""), taint("k", "-50", noSched), true, true},
	{"negative taint below bound", tol("k", gt, "-50", ""), taint("k", "-100", noSched), true, false},
	{"toleration not canonical", tol("k", gt, "0100", ""), taint("k", "200", noSched), true, false},
	{"lt/gt still check the key", tol("k", gt, "1", ""), taint("other", "2", noSched), true, false},
	{"lt/gt still check the effect", tol("k", gt, "1", noExec), taint("k", "2", noSched), true, false},
	{"lt/gt with empty key", tol("", gt, "1", ""), taint("any", "2", noSched), true, true},
	{"zero is canonical", tol("k", lt, "1", ""), taint("k", "0", noSched), true, true},
	{"hex is not a number", tol("k", lt, "100", ""), taint("k", "0x1F", noSched), true, false},
	{"exists ignores an invalid value", tol("foo", exists, "ignored", ""), taint("foo", "bar", noExec), false, true},
	{"empty effect matches an empty taint effect", tol("k", exists, "", ""), taint("k", "", ""), false, true},
	{"keys are case-sensitive", tol("Foo", exists, "", ""), taint("foo", "", noSched), false, false},
	{"unknown operator In", tol("k", "In", "v", ""), taint("k", "v", noSched), true, false},
	{"operator Equal spelled lowercase", tol("k", "equal", "v", ""), taint("k", "v", noSched), false, false},
}

func TestTolerates(t *testing.T) {
	for _, tc := range toleratesCases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Tolerates(&tc.tol, &tc.taint, Options{ComparisonOperators: tc.gate}))
			assert.Equal(t, tc.want, upstreamTolerates(&tc.tol, &tc.taint, tc.gate), "k8s.io/api disagrees with the case")
		})
	}
}

func TestToleratesIgnoresTimes(t *testing.T) {
	now := metav1.Now()
	tl := tol("k", exists, "", noExec, 0)
	tn := v1.Taint{Key: "k", Effect: noExec, TimeAdded: &now}
	assert.True(t, Tolerates(&tl, &tn, Options{}))
}

func TestToleratesNil(t *testing.T) {
	tl, tn := tol("", exists, "", ""), taint("k", "", noSched)
	assert.False(t, Tolerates(nil, &tn, Options{}))
	assert.False(t, Tolerates(&tl, nil, Options{}))
	assert.False(t, AnyTolerates([]v1.Toleration{tl}, nil, Options{}))
}

func TestAnyTolerates(t *testing.T) {
	tn := taint("k", "v", noExec)
	assert.False(t, AnyTolerates(nil, &tn, Options{}), "empty list")
	assert.False(t, AnyTolerates([]v1.Toleration{tol("k", equal, "w", "")}, &tn, Options{}))
	assert.True(t, AnyTolerates([]v1.Toleration{tol("k", equal, "w", ""), tol("k", exists, "", noExec)}, &tn, Options{}))
	// With the comparison-operators gate off (the default), makes a Lt/Gt-only pod untolerated.
	byNumber := []v1.Toleration{tol("k", gt, "5", "")}
	num := taint("k", "6", noExec)
	assert.True(t, AnyTolerates(byNumber, &num, Options{ComparisonOperators: true}))
	assert.False(t, AnyTolerates(byNumber, &num, Options{}))
}

func TestFindUntolerated(t *testing.T) {
	// Only the taints the filter includes count; the first untolerated one is returned.
	taints := []v1.Taint{taint("a", "", noSched), taint("b", "", prefer), taint("c", "", noExec)}
	tols := []v1.Toleration{tol("a", exists, "", "")}
	tests := []struct {
		name      string
		include   func(*v1.Taint) bool
		taints    []v1.Taint
		tols      []v1.Toleration
		wantTaint v1.Taint
		wantFound bool
	}{
		{"scheduler filter", NoScheduleOrNoExecute, taints, tols, taint("c", "", noExec), true},
		{"no filter", nil, taints, tols, taint("b", "", prefer), true},
		{"all tolerated", nil, taints, []v1.Toleration{tol("", exists, "", "")}, v1.Taint{}, false},
		{"filter excludes the untolerated", func(t *v1.Taint) bool { return t.Effect == noSched }, taints, tols, v1.Taint{}, false},
		{"no taints", nil, nil, nil, v1.Taint{}, false},
		{"no tolerations: first taint", nil, taints, nil, taint("a", "", noSched), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, found := FindUntolerated(tc.taints, tc.tols, tc.include, Options{})
			assert.Equal(t, tc.wantFound, found)
			assert.Equal(t, tc.wantTaint, got)
		})
	}
}

func TestMatching(t *testing.T) {
	forever := tol("k", exists, "", noExec)
	sixty := tol("k", exists, "", noExec, 60)
	all := tol("", exists, "", "")
	tests := []struct {
		name     string
		taints   []v1.Taint
		tols     []v1.Toleration
		wantUsed []v1.Toleration
		wantAll  bool
	}{
		{"no taints", nil, []v1.Toleration{forever}, []v1.Toleration{}, true},
		{"no taints, no tolerations", nil, nil, []v1.Toleration{}, true},
		{"taints, no tolerations", []v1.Taint{taint("k", "", noExec)}, nil, []v1.Toleration{}, false},
		{"first toleration wins (forever)", []v1.Taint{taint("k", "", noExec)}, []v1.Toleration{forever, sixty}, []v1.Toleration{forever}, true},
		{"reversed (60 s)", []v1.Taint{taint("k", "", noExec)}, []v1.Toleration{sixty, forever}, []v1.Toleration{sixty}, true},
		{
			"one per taint, in taint order, repeats allowed",
			[]v1.Taint{taint("x", "", noExec), taint("k", "", noExec), taint("y", "", noSched)},
			[]v1.Toleration{sixty, all},
			[]v1.Toleration{all, sixty, all}, true,
		},
		{
			"partial result dropped",
			[]v1.Taint{taint("k", "", noExec), taint("z", "", noExec)},
			[]v1.Toleration{sixty},
			[]v1.Toleration{}, false,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := deepClone(tc.tols)
			used, all := Matching(tc.taints, tc.tols, Options{})
			assert.Equal(t, tc.wantAll, all)
			assert.NotNil(t, used)
			assert.Equal(t, tc.wantUsed, used)
			assert.Equal(t, before, tc.tols)
		})
	}
}

func TestMatchingManyTaints(t *testing.T) {
	// More taints than the stack buffer holds: the indices go to the heap; same results.
	var taints []v1.Taint
	for i := range 3 * maxStackTaints {
		taints = append(taints, taint("k", strconv.Itoa(i), noExec))
	}
	tols := []v1.Toleration{tol("k", equal, "0", ""), tol("k", exists, "", noExec, 5)}
	used, all := Matching(taints, tols, Options{})
	assert.True(t, all)
	assert.Len(t, used, len(taints))
	assert.Equal(t, tols[0], used[0])
	assert.Equal(t, tols[1], used[len(used)-1])
	used, all = Matching(append(taints, taint("z", "", noExec)), tols, Options{})
	assert.False(t, all)
	assert.Equal(t, []v1.Toleration{}, used)
}

func TestParseDecimal(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"7", 7, true}, {"-7", -7, true}, {"950", 950, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"-9223372036854775808", -9223372036854775808, true},
		{"", 0, false}, {"-", 0, false}, {"-0", 0, false}, {"00", 0, false}, {"01", 0, false},
		{"0950", 0, false}, {"-01", 0, false}, {"+5", 0, false}, {" 5", 0, false}, {"5 ", 0, false},
		{"5\n", 0, false}, {"1.0", 0, false}, {"1e3", 0, false}, {"0x1F", 0, false}, {"1_000", 0, false},
		{"1,000", 0, false}, {"５", 0, false}, {"٥", 0, false}, {"−5", 0, false},
		{"9223372036854775808", 0, false}, {"12345678901234567890", 0, false},
		{"-9223372036854775809", 0, false}, {"99999999999999999999999", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, ok := parseDecimal(tc.in)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}
