package taints

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

func TestValidateList(t *testing.T) {
	tests := []struct {
		name string
		list []v1.Taint
		want []fieldErr
	}{
		{
			name: "duplicate key and effect, value irrelevant",
			list: []v1.Taint{{Key: "a", Value: "1", Effect: noSched}, {Key: "a", Value: "2", Effect: noSched}, {Key: "a", Value: "3", Effect: noExec}},
			want: []fieldErr{{field.ErrorTypeDuplicate, "metadata.taints[1]"}},
		},
		{name: "missing effect", list: []v1.Taint{{Key: "b"}}, want: []fieldErr{{field.ErrorTypeRequired, "metadata.taints[0].effect"}}},
		{
			name: "empty key gives two key errors",
			list: []v1.Taint{{Key: "", Effect: noSched}},
			want: []fieldErr{{field.ErrorTypeInvalid, "metadata.taints[0].key"}, {field.ErrorTypeInvalid, "metadata.taints[0].key"}},
		},
		{name: "bad value", list: []v1.Taint{{Key: "k", Value: "bad value", Effect: noSched}}, want: []fieldErr{{field.ErrorTypeInvalid, "metadata.taints[0].value"}}},
		{name: "unknown effect", list: []v1.Taint{{Key: "k", Effect: "NoScheduleNoAdmit"}}, want: []fieldErr{{field.ErrorTypeNotSupported, "metadata.taints[0].effect"}}},
		{
			name: "errors accumulate in order",
			list: []v1.Taint{{Key: "ok", Effect: noExec}, {Key: "bad key", Value: "-", Effect: "x"}, {Key: "ok", Effect: noExec}},
			want: []fieldErr{
				{field.ErrorTypeInvalid, "metadata.taints[1].key"},
				{field.ErrorTypeInvalid, "metadata.taints[1].value"},
				{field.ErrorTypeNotSupported, "metadata.taints[1].effect"},
				{field.ErrorTypeDuplicate, "metadata.taints[2]"},
			},
		},
		{name: "valid", list: []v1.Taint{{Key: "example.com/k", Value: "v", Effect: noExec, TimeAdded: ptrTime(0)}}},
		{name: "empty", list: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, summarize(ValidateList(tc.list, nil)))
		})
	}
}

func TestValidateListDetails(t *testing.T) {
	errs := ValidateList([]v1.Taint{{Key: "a", Effect: noSched}, {Key: "a", Value: "x", Effect: noSched}, {Key: "k", Effect: "Bogus"}}, field.NewPath("spec", "taints"))
	require.Len(t, errs, 2)
	assert.Equal(t, "spec.taints[1]", errs[0].Field)
	assert.Equal(t, "taints must be unique by key and effect pair", errs[0].Detail)
	assert.Equal(t, v1.Taint{Key: "a", Value: "x", Effect: noSched}, errs[0].BadValue)
	assert.Equal(t, `spec.taints[2].effect: Unsupported value: "Bogus": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"`, errs[1].Error())
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		taint   v1.Taint
		wantErr error
	}{
		{"valid", v1.Taint{Key: "k", Value: "v", Effect: noExec}, nil},
		{"empty effect is fine here", v1.Taint{Key: "k"}, nil},
		{"empty key", v1.Taint{Effect: noExec}, ErrInvalidKey},
		{"bad value", v1.Taint{Key: "k", Value: "a b"}, ErrInvalidValue},
		{"bad effect", v1.Taint{Key: "k", Effect: "noexecute"}, ErrInvalidEffect},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Validate(tc.taint)
			if tc.wantErr == nil {
				assert.NoError(t, err)
				return
			}
			assert.ErrorIs(t, err, tc.wantErr)
		})
	}
}
