package events

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

type call struct {
	object                 *v1.ObjectReference
	eventtype, reason, msg string
}

type recorder []call

func (r *recorder) Event(object runtime.Object, eventtype, reason, message string) {
	*r = append(*r, call{object.(*v1.ObjectReference), eventtype, reason, message})
}

// Record passes each event's own reference, type, reason and message, in order.
func TestRecord(t *testing.T) {
	evs := []Event{
		{Object: v1.ObjectReference{Kind: "Node", Name: "n1", UID: "u1"}, Type: v1.EventTypeNormal, Reason: "A", Message: "a"},
		{Object: v1.ObjectReference{Kind: "Pod", Namespace: "ns", Name: "p", ResourceVersion: "7"}, Type: v1.EventTypeWarning, Reason: "B", Message: "b"},
	}
	var r recorder
	Record(&r, evs...)
	if len(r) != len(evs) {
		t.Fatalf("%d calls, want %d", len(r), len(evs))
	}
	for i, c := range r {
		e := evs[i]
		if *c.object != e.Object || c.eventtype != e.Type || c.reason != e.Reason || c.msg != e.Message {
			t.Errorf("call %d = %+v %q %q %q, want %+v", i, *c.object, c.eventtype, c.reason, c.msg, e)
		}
	}
	Record(nil, evs...) // records nothing, does not panic
}
