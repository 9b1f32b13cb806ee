package taints

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

func TestApply(t *testing.T) {
	node := []v1.Taint{{Key: "a", Value: "1", Effect: noSched}, {Key: "b", Effect: noExec}}
	tests := []struct {
		name      string
		node      []v1.Taint
		specs     []string
		overwrite bool
		want      []v1.Taint
		wantOp    Operation
		wantErr   error
		wantMsg   string
	}{
		{
			name: "existing without overwrite", node: node, specs: []string{"a=2:NoSchedule"},
			wantErr: ErrAlreadyExists, wantMsg: "taints: node n already has a taint(s) with same effect(s) and --overwrite is false",
		},
		{
			name: "existing with overwrite", node: node, specs: []string{"a=2:NoSchedule"}, overwrite: true,
			want: []v1.Taint{{Key: "a", Value: "2", Effect: noSched}, {Key: "b", Effect: noExec}}, wantOp: Modified,
		},
		{name: "remove all effects of a key", node: node, specs: []string{"b-"}, want: []v1.Taint{{Key: "a", Value: "1", Effect: noSched}}, wantOp: Untainted},
		{name: "remove missing", node: node, specs: []string{"c-"}, wantErr: ErrNotFound, wantMsg: `taints: taint "c" not found`},
		{
			name: "add and remove the same key", node: node, specs: []string{"x:NoSchedule", "x-"},
			wantErr: ErrConflict, wantMsg: "taints: can not both modify and remove the following taint(s) in the same command: x=",
		},
		{
			name: "conflict lists every pair", node: node, specs: []string{"x:NoSchedule", "y:NoExecute", "x:NoSchedule-", "y-", "x:NoExecute-"},
			wantErr: ErrConflict, wantMsg: "taints: can not both modify and remove the following taint(s) in the same command: x=NoSchedule, y=",
		},
		{name: "same key other effect is no conflict", node: node, specs: []string{"a:NoExecute", "a:NoSchedule-"}, want: []v1.Taint{{Key: "a", Effect: noExec}, {Key: "b", Effect: noExec}}, wantOp: Modified},
		{name: "new taint goes first", node: node, specs: []string{"c=3:PreferNoSchedule"}, want: []v1.Taint{{Key: "c", Value: "3", Effect: prefer}, {Key: "a", Value: "1", Effect: noSched}, {Key: "b", Effect: noExec}}, wantOp: Tainted},
		{
			name: "overwritten taint moves to the front", node: node, specs: []string{"b=x:NoExecute"}, overwrite: true,
			want: []v1.Taint{{Key: "b", Value: "x", Effect: noExec}, {Key: "a", Value: "1", Effect: noSched}}, wantOp: Modified,
		},
		{name: "grow and last removal removed", node: node, specs: []string{"c:NoSchedule", "b:NoExecute-"}, want: []v1.Taint{{Key: "c", Effect: noSched}, {Key: "a", Value: "1", Effect: noSched}}, wantOp: Modified},
		{
			// Only the last removal's result counts for the verb, and every missing one is an error.
			name: "missing removals aggregate", node: node, specs: []string{"c-", "d:NoSchedule-"},
			wantErr: ErrNotFound, wantMsg: `taints: [taint "c" not found, taint "d:NoSchedule" not found]`,
		},
		{name: "remove with effect only that effect", node: []v1.Taint{{Key: "a", Effect: noSched}, {Key: "a", Effect: noExec}}, specs: []string{"a:NoExecute-"}, want: []v1.Taint{{Key: "a", Effect: noSched}}, wantOp: Untainted},
		{name: "empty node", node: nil, specs: []string{"a:NoSchedule"}, want: []v1.Taint{{Key: "a", Effect: noSched}}, wantOp: Tainted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			add, remove, err := ParseSpecs(tc.specs)
			require.NoError(t, err)
			before := clone(tc.node)
			got, op, err := Apply(tc.node, add, remove, ApplyOptions{Overwrite: tc.overwrite, NodeName: "n"})
			assert.Equal(t, before, tc.node, "input mutated")
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
				assert.Equal(t, tc.wantMsg, err.Error())
				assert.Nil(t, got)
				assert.Empty(t, op)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.wantOp, op)
		})
	}
}
