package tolerations

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

type fieldErr struct {
	Type  field.ErrorType
	Field string
}

func summarize(list field.ErrorList) []fieldErr {
	var out []fieldErr
	for _, e := range list {
		out = append(out, fieldErr{e.Type, e.Field})
	}
	return out
}

func TestValidate(t *testing.T) {
	const p = "spec.tolerations[0]."
	tests := []struct {
		name string
		tol  v1.Toleration
		gate bool
		want []fieldErr
	}{
		{"empty key needs Exists", tol("", equal, "", ""), false, []fieldErr{{field.ErrorTypeInvalid, p + "operator"}}},
		{"empty key, empty operator", tol("", "", "", ""), false, []fieldErr{{field.ErrorTypeInvalid, p + "operator"}}},
		{"Exists with a value", tol("k", exists, "v", ""), false, []fieldErr{{field.ErrorTypeInvalid, p + "operator"}}},
		{"seconds with NoSchedule", tol("k", exists, "", noSched, 5), false, []fieldErr{{field.ErrorTypeInvalid, p + "effect"}}},
		{"seconds with empty effect", tol("k", exists, "", "", 5), false, []fieldErr{{field.ErrorTypeInvalid, p + "effect"}}},
		{"Lt with gate off", tol("k", lt, "10", ""), false, []fieldErr{{field.ErrorTypeNotSupported, p + "operator"}}},
		{"lowercase exists", tol("k", "exists", "", ""), false, []fieldErr{{field.ErrorTypeNotSupported, p + "operator"}}},
		{"Lt non-canonical", tol("k", lt, "07", ""), true, []fieldErr{{field.ErrorTypeInvalid, p + "value"}}},
		{"Gt empty value", tol("k", gt, "", ""), true, []fieldErr{{field.ErrorTypeInvalid, p + "value"}, {field.ErrorTypeInvalid, p + "value"}}},
		{"Gt out of range", tol("k", gt, "99999999999999999999", ""), true, []fieldErr{{field.ErrorTypeInvalid, p + "value"}}},
		{"negative seconds are valid", tol("k", exists, "", noExec, -5), false, nil},
		{"Gt negative value is valid", tol("k", gt, "-1", ""), true, nil},
		{"Gt +5: not canonical, though strconv accepts it", tol("k", gt, "+5", ""), true, []fieldErr{{field.ErrorTypeInvalid, p + "value"}}},
		{"Equal value must be a label value", tol("k", equal, "a b", ""), false, []fieldErr{{field.ErrorTypeInvalid, p + "operator"}}},
		{"bad key", tol("bad key", exists, "", ""), false, []fieldErr{{field.ErrorTypeInvalid, p + "key"}}},
		{"unknown effect", tol("k", exists, "", "NoScheduleNoAdmit"), false, []fieldErr{{field.ErrorTypeNotSupported, p + "effect"}}},
		{
			"errors accumulate", tol("", "In", "v", "bogus", 1), false,
			[]fieldErr{{field.ErrorTypeInvalid, p + "operator"}, {field.ErrorTypeInvalid, p + "effect"}, {field.ErrorTypeNotSupported, p + "operator"}, {field.ErrorTypeNotSupported, p + "effect"}},
		},
		{"valid Equal", tol("example.com/k", equal, "v", noExec, 10), false, nil},
		{"valid match-all", tol("", exists, "", ""), false, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Validate([]v1.Toleration{tc.tol}, nil, Options{ComparisonOperators: tc.gate})
			assert.Equal(t, tc.want, summarize(got), "%v", got)
		})
	}
}

func TestValidateDetails(t *testing.T) {
	errs := Validate([]v1.Toleration{tol("k", lt, "10", "")}, field.NewPath("p"), Options{})
	require.Len(t, errs, 1)
	assert.Equal(t, `p[0].operator: Unsupported value: "Lt": supported values: "Equal", "Exists", "Lt", "Gt"`, errs[0].Error())

	errs = Validate([]v1.Toleration{tol("k", "exists", "", "")}, field.NewPath("p"), Options{})
	require.Len(t, errs, 1)
	assert.Equal(t, `p[0].operator: Unsupported value: "exists": supported values: "Equal", "Exists"`, errs[0].Error())

	errs = Validate([]v1.Toleration{tol("k", gt, "", "")}, nil, Options{ComparisonOperators: true})
	require.Len(t, errs, 2)
	assert.Contains(t, errs[0].Detail, "must be non-empty")
	assert.Contains(t, errs[1].Detail, `strconv.ParseInt: parsing "": invalid syntax`)

	errs = Validate([]v1.Toleration{tol("k", exists, "", "", 5)}, nil, Options{})
	require.Len(t, errs, 1)
	assert.Equal(t, "effect must be 'NoExecute' when `tolerationSeconds` is set", errs[0].Detail)
	assert.Equal(t, v1.TaintEffect(""), errs[0].BadValue)

	errs = Validate([]v1.Toleration{tol("ok", exists, "", ""), tol("k", exists, "v", "")}, nil, Options{})
	require.Len(t, errs, 1)
	assert.Equal(t, "spec.tolerations[1].operator", errs[0].Field)
	assert.Equal(t, "v", errs[0].BadValue)
}

func TestValidateUpdate(t *testing.T) {
	old := []v1.Toleration{tol("a", exists, "", noExec, 60)}
	tests := []struct {
		name     string
		newTols  []v1.Toleration
		oldTols  []v1.Toleration
		gate     bool
		want     []fieldErr
		wantOnly bool // single Forbidden
	}{
		{name: "seconds may change", newTols: []v1.Toleration{tol("a", exists, "", noExec, 5)}, oldTols: old},
		{name: "seconds may be dropped", newTols: []v1.Toleration{tol("a", exists, "", noExec)}, oldTols: old},
		{name: "additions allowed", newTols: []v1.Toleration{tol("b", exists, "", ""), tol("a", exists, "", noExec, 60)}, oldTols: old},
		{name: "removal forbidden", newTols: nil, oldTols: old, want: []fieldErr{{field.ErrorTypeForbidden, "spec.tolerations"}}},
		{name: "effect change forbidden", newTols: []v1.Toleration{tol("a", exists, "", "")}, oldTols: old, want: []fieldErr{{field.ErrorTypeForbidden, "spec.tolerations"}}},
		{
			name: "forbidden stops before validation", newTols: []v1.Toleration{tol("", equal, "", "")}, oldTols: old,
			want: []fieldErr{{field.ErrorTypeForbidden, "spec.tolerations"}},
		},
		{
			name: "Gt rejected with gate off", newTols: []v1.Toleration{tol("a", exists, "", noExec, 60), tol("n", gt, "5", "")}, oldTols: old,
			want: []fieldErr{{field.ErrorTypeNotSupported, "spec.tolerations[1].operator"}},
		},
		{
			name:    "Gt ratcheted when the old pod uses Lt",
			newTols: []v1.Toleration{tol("n", lt, "9", ""), tol("m", gt, "5", "")}, oldTols: []v1.Toleration{tol("n", lt, "9", "")},
		},
		{name: "Gt allowed with the gate", newTols: []v1.Toleration{tol("m", gt, "5", "")}, gate: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ValidateUpdate(tc.newTols, tc.oldTols, nil, Options{ComparisonOperators: tc.gate})
			assert.Equal(t, tc.want, summarize(got), "%v", got)
		})
	}
}
