package taints

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestExistsAndKeyExists(t *testing.T) {
	list := []v1.Taint{{Key: "a", Value: "1", Effect: noSched}, {Key: "b", Effect: noExec}}
	assert.True(t, Exists(list, &v1.Taint{Key: "a", Value: "other", Effect: noSched}), "value is not identity")
	assert.False(t, Exists(list, &v1.Taint{Key: "a", Effect: noExec}))
	assert.False(t, Exists(list, &v1.Taint{Key: "a"}), "empty effect is an effect of its own")
	assert.False(t, Exists(nil, &v1.Taint{Key: "a"}))
	assert.True(t, KeyExists(list, "b"))
	assert.False(t, KeyExists(list, "B"), "byte-exact")
	assert.False(t, KeyExists(nil, ""))
}

func TestDiff(t *testing.T) {
	tests := []struct {
		name               string
		newT, oldT         []v1.Taint
		wantAdd, wantRemov []v1.Taint
	}{
		{
			name:      "value change is invisible",
			newT:      []v1.Taint{{Key: "foo_1", Value: "bar_1", Effect: noExec}, {Key: "foo_2", Value: "different", Effect: noSched}},
			oldT:      []v1.Taint{{Key: "foo_3", Value: "bar_3", Effect: noExec}, {Key: "foo_2", Value: "bar_2", Effect: noSched}},
			wantAdd:   []v1.Taint{{Key: "foo_1", Value: "bar_1", Effect: noExec}},
			wantRemov: []v1.Taint{{Key: "foo_3", Value: "bar_3", Effect: noExec}},
		},
		{name: "both nil", newT: nil, oldT: nil},
		{name: "equal sets", newT: []v1.Taint{{Key: "a", Effect: noSched}}, oldT: []v1.Taint{{Key: "a", Effect: noSched, TimeAdded: ptrTime(0)}}},
		{
			name:    "order kept",
			newT:    []v1.Taint{{Key: "c", Effect: noSched}, {Key: "a", Effect: noSched}, {Key: "b", Effect: noSched}},
			wantAdd: []v1.Taint{{Key: "c", Effect: noSched}, {Key: "a", Effect: noSched}, {Key: "b", Effect: noSched}},
		},
		{
			name: "same key other effect",
			newT: []v1.Taint{{Key: "a", Effect: noExec}}, oldT: []v1.Taint{{Key: "a", Effect: noSched}},
			wantAdd: []v1.Taint{{Key: "a", Effect: noExec}}, wantRemov: []v1.Taint{{Key: "a", Effect: noSched}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			add, remove := Diff(tc.newT, tc.oldT)
			assert.Equal(t, tc.wantAdd, add)
			assert.Equal(t, tc.wantRemov, remove)
		})
	}
}

func TestFilter(t *testing.T) {
	list := []v1.Taint{{Key: "a", Effect: noSched}, {Key: "b", Effect: noExec}, {Key: "c", Effect: noSched}}
	got := Filter(list, func(t *v1.Taint) bool { return t.Effect == noSched })
	assert.Equal(t, []v1.Taint{{Key: "a", Effect: noSched}, {Key: "c", Effect: noSched}}, got)
	none := Filter(list, func(*v1.Taint) bool { return false })
	assert.NotNil(t, none)
	assert.Empty(t, none)
}

func TestAddOrUpdate(t *testing.T) {
	base := v1.Taint{Key: "foo", Value: "bar", Effect: noSched}
	later := metav1.NewTime(time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC))
	sameInstant := metav1.NewTime(later.In(time.FixedZone("x", 3600)))
	tests := []struct {
		name        string
		list        []v1.Taint
		add         v1.Taint
		want        []v1.Taint
		wantUpdated bool
	}{
		{name: "empty node", list: nil, add: base, want: []v1.Taint{base}, wantUpdated: true},
		{name: "same taint again", list: []v1.Taint{base}, add: base, want: []v1.Taint{base}},
		{
			name:        "new value replaces in place",
			list:        []v1.Taint{{Key: "x", Effect: noExec}, base, {Key: "y", Effect: noExec}},
			add:         v1.Taint{Key: "foo", Value: "bar_1", Effect: noSched},
			want:        []v1.Taint{{Key: "x", Effect: noExec}, {Key: "foo", Value: "bar_1", Effect: noSched}, {Key: "y", Effect: noExec}},
			wantUpdated: true,
		},
		{
			name: "new TimeAdded is an update",
			list: []v1.Taint{base},
			add:  v1.Taint{Key: "foo", Value: "bar", Effect: noSched, TimeAdded: &later},
			want: []v1.Taint{{Key: "foo", Value: "bar", Effect: noSched, TimeAdded: &later}}, wantUpdated: true,
		},
		{
			name: "same instant in another zone is equal",
			list: []v1.Taint{{Key: "foo", Effect: noExec, TimeAdded: &later}},
			add:  v1.Taint{Key: "foo", Effect: noExec, TimeAdded: &sameInstant},
			want: []v1.Taint{{Key: "foo", Effect: noExec, TimeAdded: &later}},
		},
		{
			name: "other effect is appended",
			list: []v1.Taint{base},
			add:  v1.Taint{Key: "foo", Value: "bar", Effect: noExec},
			want: []v1.Taint{base, {Key: "foo", Value: "bar", Effect: noExec}}, wantUpdated: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := clone(tc.list)
			got, updated := AddOrUpdate(tc.list, &tc.add)
			assert.Equal(t, tc.wantUpdated, updated)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, before, tc.list, "input mutated")
			if len(tc.list) > 0 && len(got) > 0 {
				assert.NotSame(t, &tc.list[0], &got[0], "result aliases the input")
			}
		})
	}
}

func TestRemove(t *testing.T) {
	node := []v1.Taint{{Key: "foo", Effect: noSched}}
	tests := []struct {
		name        string
		list        []v1.Taint
		remove      v1.Taint
		want        []v1.Taint
		wantRemoved bool
	}{
		{name: "other key", list: node, remove: v1.Taint{Key: "foo_1", Effect: noSched}, want: node},
		{name: "match", list: node, remove: v1.Taint{Key: "foo", Effect: noSched}, want: []v1.Taint{}, wantRemoved: true},
		{name: "no effect matches only an empty effect", list: node, remove: v1.Taint{Key: "foo"}, want: node},
		{name: "nil list", list: nil, remove: v1.Taint{Key: "foo"}, want: nil},
		{
			name:   "drops every duplicate, keeps order",
			list:   []v1.Taint{{Key: "a", Effect: noSched}, {Key: "foo", Value: "1", Effect: noSched}, {Key: "b"}, {Key: "foo", Value: "2", Effect: noSched}},
			remove: v1.Taint{Key: "foo", Effect: noSched},
			want:   []v1.Taint{{Key: "a", Effect: noSched}, {Key: "b"}}, wantRemoved: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := clone(tc.list)
			got, removed := Remove(tc.list, &tc.remove)
			assert.Equal(t, tc.wantRemoved, removed)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, before, tc.list, "input mutated")
		})
	}
}

func TestRemoveKey(t *testing.T) {
	list := []v1.Taint{{Key: "a", Effect: noSched}, {Key: "b", Effect: noExec}, {Key: "a", Effect: noExec}}
	got, removed := RemoveKey(list, "a")
	assert.True(t, removed)
	assert.Equal(t, []v1.Taint{{Key: "b", Effect: noExec}}, got)
	got, removed = RemoveKey(list, "c")
	assert.False(t, removed)
	assert.Equal(t, list, got)
	got, removed = RemoveKey(nil, "c")
	assert.False(t, removed)
	assert.NotNil(t, got)
}

func TestExistingKeys(t *testing.T) {
	old := []v1.Taint{{Key: "a", Value: "1", Effect: noSched}, {Key: "b", Effect: noExec}}
	assert.Equal(t, []string{"a", "b"}, ExistingKeys(old, []v1.Taint{{Key: "a", Value: "2", Effect: noSched}, {Key: "c", Effect: noSched}, {Key: "b", Effect: noExec}}))
	assert.Nil(t, ExistingKeys(old, []v1.Taint{{Key: "a", Effect: noExec}}))
	assert.Nil(t, ExistingKeys(nil, nil))
}

func TestEqual(t *testing.T) {
	a := v1.Taint{Key: "k", Value: "v", Effect: noExec}
	b := a
	assert.True(t, Equal(&a, &b))
	b.TimeAdded = ptrTime(0)
	assert.False(t, Equal(&a, &b), "nil vs set TimeAdded")
	a.TimeAdded = ptrTime(0)
	assert.True(t, Equal(&a, &b))
	a.TimeAdded = ptrTime(1)
	assert.False(t, Equal(&a, &b))
	assert.True(t, Match(&a, &b))
}

func clone(list []v1.Taint) []v1.Taint {
	if list == nil {
		return nil
	}
	out := make([]v1.Taint, len(list))
	for i := range list {
		list[i].DeepCopyInto(&out[i])
	}
	return out
}

func TestOnlyNoExecute(t *testing.T) {
	got := OnlyNoExecute([]v1.Taint{
		{Key: "a", Effect: v1.TaintEffectNoSchedule}, {Key: "b", Value: "1", Effect: v1.TaintEffectNoExecute},
		{Key: "c", Effect: v1.TaintEffectPreferNoSchedule}, {Key: "d", Effect: v1.TaintEffectNoExecute},
	})
	assert.Equal(t, []v1.Taint{{Key: "b", Value: "1", Effect: v1.TaintEffectNoExecute}, {Key: "d", Effect: v1.TaintEffectNoExecute}}, got)
	empty := OnlyNoExecute(nil)
	assert.NotNil(t, empty)
	assert.Empty(t, empty)
}
