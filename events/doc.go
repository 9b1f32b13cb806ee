// Package events holds [Event], the value every core of this module returns for the Kubernetes
// Events its upstream controller records: what the event is about (an object reference), its
// type (Normal or Warning), its reason and its message.
//
// Upstream controllers call client-go's record.EventRecorder in the middle of their work; the
// cores here return the same events as values instead (package tainteviction's Marking and
// Cancelling, package nodelifecycle's RegisteredNode, NodeNotReady, PodNotReady …, package
// devicetaints' Marking and Cancelling), so that a controller records them ([Record]), a
// simulator prints them and a test compares them with ==.
//
// # Guarantees
//
//   - One type for every core: an adapter records the events of any of them the same way.
//   - Values, comparable with ==: no pointer, no map, no time (the recorder stamps the time
//     and the source component, as upstream's does).
//   - No client: [Recorder] is the one method of client-go's record.EventRecorder that
//     [Record] calls, so this package needs k8s.io/api and k8s.io/apimachinery only.
package events
