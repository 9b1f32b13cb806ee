package ranking

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

// TestCriticalSpec covers the static, mirror and critical-priority rules of IsStatic, IsMirror
// and IsCritical.
func TestCriticalSpec(t *testing.T) {
	className := func(n string) podOpt { return func(p *v1.Pod) { p.Spec.PriorityClassName = n } }
	tests := []struct {
		name                     string
		pod                      *v1.Pod
		critical, static, mirror bool
	}{
		{"source file, no priority", mkPod("p", annotations(ConfigSourceAnnotationKey, "file")), true, true, false},
		{"source http", mkPod("p", annotations(ConfigSourceAnnotationKey, "http")), true, true, false},
		{"source api", mkPod("p", annotations(ConfigSourceAnnotationKey, "api")), false, false, false},
		{"source empty", mkPod("p", annotations(ConfigSourceAnnotationKey, "")), true, true, false},
		{"mirror annotation", mkPod("p", annotations(ConfigMirrorAnnotationKey, "")), true, false, true},
		{"system-cluster-critical priority", mkPod("p", priority(2000000000)), true, false, false},
		{"system-node-critical priority", mkPod("p", priority(2000001000)), true, false, false},
		{"just below", mkPod("p", priority(1999999999)), false, false, false},
		{"class name without priority", mkPod("p", className("system-node-critical")), false, false, false},
		{"no annotations", mkPod("p"), false, false, false},
		{"nil pod", nil, false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.critical, IsCritical(tc.pod), "IsCritical")
			assert.Equal(t, tc.static, IsStatic(tc.pod), "IsStatic")
			assert.Equal(t, tc.mirror, IsMirror(tc.pod), "IsMirror")
			assert.Equal(t, !tc.critical && tc.pod != nil, Evictable(tc.pod), "Evictable")
		})
	}
}

// TestVictimSpec covers Victim: the first evictable pod of a ranking, critical pods skipped.
func TestVictimSpec(t *testing.T) {
	crit := mkPod("crit", priority(2000000000))
	p := mkPod("p")
	v, ok := Victim([]*v1.Pod{crit, p})
	require.True(t, ok)
	assert.Same(t, p, v)

	_, ok = Victim([]*v1.Pod{crit, mkPod("static", annotations(ConfigSourceAnnotationKey, "file"))})
	assert.False(t, ok)
	_, ok = Victim(nil)
	assert.False(t, ok)
	_, ok = Victim([]*v1.Pod{nil})
	assert.False(t, ok)
}
