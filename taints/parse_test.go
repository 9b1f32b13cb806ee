package taints

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

const (
	noSched  = v1.TaintEffectNoSchedule
	prefer   = v1.TaintEffectPreferNoSchedule
	noExec   = v1.TaintEffectNoExecute
	longName = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" // 64
)

func TestFormat(t *testing.T) {
	// Format writes kubectl's forms: key, key=value:, key:Effect and key=value:Effect.
	tests := []struct {
		name  string
		taint v1.Taint
		want  string
	}{
		{"key only", v1.Taint{Key: "k"}, "k"},
		{"value without effect", v1.Taint{Key: "k", Value: "v"}, "k=v:"},
		{"key and effect", v1.Taint{Key: "k", Effect: noSched}, "k:NoSchedule"},
		{"all three", v1.Taint{Key: "k", Value: "v", Effect: noExec}, "k=v:NoExecute"},
		{"empty", v1.Taint{}, ""},
		{"value only", v1.Taint{Value: "v"}, "=v:"},
		{"time added is not printed", v1.Taint{Key: "k", Effect: noExec, TimeAdded: ptrTime(1)}, "k:NoExecute"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Format(tc.taint))
			assert.Equal(t, tc.want, Spec(tc.taint).String())
		})
	}
}

func TestSpecsString(t *testing.T) {
	list := []v1.Taint{{Key: "a", Effect: noSched}, {Key: "b", Value: "c", Effect: noExec}}
	assert.Equal(t, "a:NoSchedule,b=c:NoExecute", Specs(list).String())
	assert.Equal(t, "", Specs(nil).String())
}

// parseCases are shared with the fuzz seeds.
var parseCases = []struct {
	name    string
	spec    string
	want    v1.Taint
	wantErr error
	wantMsg string // exact message, when the case pins it
}{
	{name: "empty value", spec: "foo=:NoSchedule", want: v1.Taint{Key: "foo", Effect: noSched}},
	{name: "prefixed key", spec: "example.com/foo=bar:NoExecute", want: v1.Taint{Key: "example.com/foo", Value: "bar", Effect: noExec}},
	{name: "uppercase prefix", spec: "Example.com/foo=bar:NoExecute", wantErr: ErrInvalidKey},
	{name: "empty effect", spec: "foo=bar:", wantErr: ErrInvalidEffect, wantMsg: "taints: invalid taint effect: , unsupported taint effect"},
	{name: "effect with trailing space", spec: "foo:NoSchedule ", wantErr: ErrInvalidEffect},
	{name: "effect checked before key", spec: "bad key!:Bogus", wantErr: ErrInvalidEffect, wantMsg: "taints: invalid taint effect: Bogus, unsupported taint effect"},
	{name: "key only", spec: "dedicated", want: v1.Taint{Key: "dedicated"}},
	{name: "key and effect", spec: "k:PreferNoSchedule", want: v1.Taint{Key: "k", Effect: prefer}},
	{name: "lowercase effect", spec: "k:noschedule", wantErr: ErrInvalidEffect},
	{name: "one part with equals is a key", spec: "a=b", wantErr: ErrInvalidKey},
	{name: "two equals", spec: "foo=abc=xyz:NoSchedule", wantErr: ErrInvalidSpec, wantMsg: "taints: invalid taint spec: foo=abc=xyz:NoSchedule"},
	{name: "two colons", spec: "foo=abc:xyz:NoSchedule", wantErr: ErrInvalidSpec},
	{name: "two colons with bad effect", spec: "a:b:c", wantErr: ErrInvalidSpec},
	{name: "empty", spec: "", wantErr: ErrInvalidKey},
	{name: "empty key with effect", spec: ":NoSchedule", wantErr: ErrInvalidKey},
	{name: "empty key with value", spec: "=v:NoSchedule", wantErr: ErrInvalidKey},
	{name: "key too long", spec: longName, wantErr: ErrInvalidKey},
	{name: "value too long", spec: "foo=" + longName + ":NoSchedule", wantErr: ErrInvalidValue},
	{name: "value starts with dash", spec: "foo=-starts-with-dash:NoSchedule", wantErr: ErrInvalidValue},
	{name: "value ends with dot", spec: "foo=ends.with.dot.:NoSchedule", wantErr: ErrInvalidValue},
	{name: "value checked before key", spec: "bad key!=-x:NoSchedule", wantErr: ErrInvalidValue},
	{name: "no trimming", spec: " foo:NoSchedule", wantErr: ErrInvalidKey},
	{name: "63-char value", spec: "k=" + longName[:63] + ":NoExecute", want: v1.Taint{Key: "k", Value: longName[:63], Effect: noExec}},
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.spec)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				assert.Equal(t, v1.Taint{}, got)
				assert.True(t, strings.HasPrefix(err.Error(), "taints: "), "prefix: %v", err)
				if tc.wantMsg != "" {
					assert.Equal(t, tc.wantMsg, err.Error())
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseErrorNamesSpec(t *testing.T) {
	_, err := Parse("foo=-x:NoSchedule")
	require.ErrorIs(t, err, ErrInvalidValue)
	assert.True(t, strings.HasPrefix(err.Error(), "taints: invalid taint spec: foo=-x:NoSchedule, "), err.Error())
	_, err = Parse("bad key!:NoSchedule")
	require.ErrorIs(t, err, ErrInvalidKey)
	assert.True(t, strings.HasPrefix(err.Error(), "taints: invalid taint spec: bad key!:NoSchedule, "), err.Error())
	// A sentinel category is exclusive.
	assert.False(t, errors.Is(err, ErrInvalidSpec))
}

var parseSpecsCases = []struct {
	name       string
	specs      []string
	wantAdd    []v1.Taint
	wantRemove []v1.Taint
	wantErr    error
	wantMsg    string
}{
	{name: "empty string", specs: []string{""}, wantErr: ErrInvalidKey},
	{name: "key only cannot be added", specs: []string{"foo"}, wantErr: ErrInvalidSpec, wantMsg: "taints: invalid taint spec: foo"},
	{name: "key=value without effect", specs: []string{"foo=abc"}, wantErr: ErrInvalidKey},
	{name: "two equals", specs: []string{"foo=abc=xyz:NoSchedule"}, wantErr: ErrInvalidSpec},
	{name: "two colons", specs: []string{"foo=abc:xyz:NoSchedule"}, wantErr: ErrInvalidSpec},
	{name: "bad effect", specs: []string{"foo=abc:invalid_effect"}, wantErr: ErrInvalidEffect},
	{name: "bad effect in removal", specs: []string{"foo:invalid_effect-"}, wantErr: ErrInvalidEffect},
	{name: "64-char key", specs: []string{longName}, wantErr: ErrInvalidKey},
	{name: "64-char key with effect", specs: []string{longName + ":NoSchedule"}, wantErr: ErrInvalidKey},
	{name: "value starts with dash", specs: []string{"foo=-starts-with-dash:NoSchedule"}, wantErr: ErrInvalidValue},
	{name: "value ends with dot", specs: []string{"foo=ends.with.dot.:NoSchedule"}, wantErr: ErrInvalidValue},
	{
		name: "duplicate key and effect", specs: []string{"foo=abc:NoSchedule", "foo=xyz:NoSchedule"},
		wantErr: ErrDuplicate, wantMsg: "taints: duplicated taints with the same key and effect: {foo xyz NoSchedule <nil>}",
	},
	{
		name: "same key, two effects", specs: []string{"foo=abc:NoSchedule", "foo=abc:NoExecute"},
		wantAdd: []v1.Taint{{Key: "foo", Value: "abc", Effect: noSched}, {Key: "foo", Value: "abc", Effect: noExec}},
	},
	{
		name:  "removals keep key and effect only",
		specs: []string{"foo:NoSchedule-", "qux=:NoSchedule-", "dedicated-", "k=v:NoExecute-"},
		wantRemove: []v1.Taint{
			{Key: "foo", Effect: noSched}, {Key: "qux", Effect: noSched}, {Key: "dedicated"}, {Key: "k", Effect: noExec},
		},
	},
	{name: "key=value- is a bad key", specs: []string{"foo=bar-"}, wantErr: ErrInvalidKey},
	{name: "empty effect in removal", specs: []string{"foo:-"}, wantErr: ErrInvalidEffect},
	{name: "bare dash", specs: []string{"-"}, wantErr: ErrInvalidKey},
	{name: "removal value still validated", specs: []string{"k=-v:NoExecute-"}, wantErr: ErrInvalidValue},
	{name: "only one dash stripped", specs: []string{"foo--"}, wantErr: ErrInvalidKey}, // key "foo-" ends in a dash
	{
		name:       "mixed, order kept, removals not deduplicated",
		specs:      []string{"b-", "a=1:NoSchedule", "b-", "c:NoExecute"},
		wantAdd:    []v1.Taint{{Key: "a", Value: "1", Effect: noSched}, {Key: "c", Effect: noExec}},
		wantRemove: []v1.Taint{{Key: "b"}, {Key: "b"}},
	},
	{name: "first error aborts", specs: []string{"a:NoSchedule", "b-", "bad"}, wantErr: ErrInvalidSpec},
	{name: "nothing", specs: nil},
}

func TestParseSpecs(t *testing.T) {
	for _, tc := range parseSpecsCases {
		t.Run(tc.name, func(t *testing.T) {
			add, remove, err := ParseSpecs(tc.specs)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				assert.Nil(t, add)
				assert.Nil(t, remove)
				if tc.wantMsg != "" {
					assert.Equal(t, tc.wantMsg, err.Error())
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.wantAdd, add)       // nil when there are no additions
			assert.Equal(t, tc.wantRemove, remove) // nil when there are no removals
		})
	}
}
