package events

import (
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Event is an event a controller records, as a value. The function that builds one says
// which fields of Object it fills (upstream's events carry different ones: a pod's UID or
// not, its resourceVersion or not) and which type, reason and message it has.
type Event struct {
	// Object is what the event is about: the Node or Pod reference, with the kind, namespace,
	// name and, when upstream's event carries them, UID and resourceVersion.
	Object v1.ObjectReference
	// Type is v1.EventTypeNormal or v1.EventTypeWarning.
	Type string
	// Reason is the upstream controller's reason, a short CamelCase word.
	Reason string
	// Message is the upstream controller's text.
	Message string
}

// Recorder records an event about an object: the method of client-go's record.EventRecorder
// that [Record] calls (record.EventRecorder satisfies it).
type Recorder interface {
	Event(object runtime.Object, eventtype, reason, message string)
}

// Record hands evs to r, in order, as r.Event(&e.Object, e.Type, e.Reason, e.Message); a nil
// r records nothing.
func Record(r Recorder, evs ...Event) {
	if r == nil {
		return
	}
	for i := range evs {
		r.Event(&evs[i].Object, evs[i].Type, evs[i].Reason, evs[i].Message)
	}
}
