package ranking

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
)

// TestCriticalSpec covers spec case 30 (section 7).
func TestCriticalSpec(t *testing.T) {
	className := func(n string) podOpt { return func(p *v1.Pod) { p.Spec.PriorityClassName = n } }
	tests := []struct {
		name                     string
		pod                      *v1.Pod
		critical, static, mirror bool
	}{
		{"30 source file, no priority", mkPod("p", annotations(ConfigSourceAnnotationKey, "file")), true, true, false},
		{"30 source http", mkPod("p", annotations(ConfigSourceAnnotationKey, "http")), true, true, false},
		{"30 source api", mkPod("p", annotations(ConfigSourceAnnotationKey, "api")), false, false, false},
		{"30 source empty", mkPod("p", annotations(ConfigSourceAnnotationKey, "")), true, true, false},
		{"30 mirror annotation", mkPod("p", annotations(ConfigMirrorAnnotationKey, "")), true, false, true},
		{"30 system-cluster-critical priority", mkPod("p", priority(2000000000)), true, false, false},
		{"30 system-node-critical priority", mkPod("p", priority(2000001000)), true, false, false},
		{"30 just below", mkPod("p", priority(1999999999)), false, false, false},
		{"30 class name without priority", mkPod("p", className("system-node-critical")), false, false, false},
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

// TestVictimSpec covers spec case 31.
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
