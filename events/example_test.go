package events_test

import (
	"fmt"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/evictkit/eviction/events"
)

// printer is a Recorder that prints what it is given, where a controller passes client-go's
// record.EventRecorder.
type printer struct{}

func (printer) Event(object runtime.Object, eventtype, reason, message string) {
	ref := object.(*v1.ObjectReference)
	fmt.Printf("%s %s/%s: %s %s: %s\n", ref.Kind, ref.Namespace, ref.Name, eventtype, reason, message)
}

// A core returns its events as values; the controller records them in order.
func ExampleRecord() {
	evs := []events.Event{
		{
			Object: v1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: "shop", Name: "web-1"},
			Type:   v1.EventTypeNormal, Reason: "TaintManagerEviction", Message: "Marking for deletion Pod shop/web-1",
		},
		{
			Object: v1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: "shop", Name: "web-2"},
			Type:   v1.EventTypeWarning, Reason: "NodeNotReady", Message: "Node is not ready",
		},
	}
	events.Record(printer{}, evs...)
	events.Record(nil, evs...) // no recorder: nothing
	// Output:
	// Pod shop/web-1: Normal TaintManagerEviction: Marking for deletion Pod shop/web-1
	// Pod shop/web-2: Warning NodeNotReady: Node is not ready
}
