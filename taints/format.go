package taints

import (
	"strings"

	v1 "k8s.io/api/core/v1"
)

// Format returns t in kubectl syntax: "key=value:Effect", "key:Effect", "key=value:" (value
// without effect) or "key". TimeAdded is never printed. It is the inverse of [Parse] for every
// valid taint that has an effect, and for key-only taints.
func Format(t v1.Taint) string {
	switch {
	case t.Effect == "" && t.Value == "":
		return t.Key
	case t.Effect == "":
		return t.Key + "=" + t.Value + ":"
	case t.Value == "":
		return t.Key + ":" + string(t.Effect)
	default:
		return t.Key + "=" + t.Value + ":" + string(t.Effect)
	}
}

// Spec is a taint that prints in kubectl syntax with %s and %v:
//
//	fmt.Printf("%s", taints.Spec(t)) // "dedicated=gpu:NoSchedule"
type Spec v1.Taint

// String returns [Format] of the taint.
func (s Spec) String() string { return Format(v1.Taint(s)) }

// Specs is a list of taints that prints as kubectl arguments separated by commas, for use
// with %s and %v: taints.Specs(node.Spec.Taints).
type Specs []v1.Taint

// String returns the [Format] of each taint, joined by ",".
func (s Specs) String() string {
	var b strings.Builder
	for i := range s {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(Format(s[i]))
	}
	return b.String()
}
