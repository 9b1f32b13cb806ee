package main

import (
	"bytes"
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/evictkit/eviction/nodelifecycle"
)

func embedded(t *testing.T) *snapshot {
	t.Helper()
	s, err := readSnapshot(bytes.NewReader(embeddedSnapshot), "embedded snapshot")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A silent node is marked Unknown by the controller's own health judgement
// at the first pass strictly after the pass that last heard from it (t0)
// plus the grace period: t0+55s with the defaults (5s period, 50s grace),
// not t0+50s. Its pods are marked NotReady in the same pass, and its zone
// queues it for unreachable:NoExecute at once.
func TestSilentNodeMarkedUnknownAfterGrace(t *testing.T) {
	s := embedded(t)
	t0 := s.t0()
	m := newSim(s, t0)
	m.silence("worker-a2")
	m.run()
	if got, want := m.unknownAt["worker-a2"], t0.Add(55*time.Second); !got.Equal(want) {
		t.Fatalf("Unknown at t0+%v, want t0+%v", got.Sub(t0), want.Sub(t0))
	}
	if len(m.unknownAt) != 1 {
		t.Errorf("nodes marked Unknown: %v, want only the silent one", m.unknownAt)
	}
	n := m.byName["worker-a2"]
	if r := readyCondition(n); r == nil || r.Status != corev1.ConditionUnknown || r.Reason != nodelifecycle.ReasonStatusUnknown {
		t.Errorf("Ready after the run: %+v", r)
	}
	if got := m.taintedAt["worker-a2"]; !got.Equal(t0.Add(55 * time.Second)) {
		t.Errorf("NoExecute taint at t0+%v, want in the marking pass (a quiet Normal zone has a token)", got.Sub(t0))
	}
}

// The simulation never touches the snapshot it was given: not the nodes it
// marks Unknown and taints, not the pods it marks NotReady and evicts.
func TestSimDoesNotModifySnapshot(t *testing.T) {
	s := embedded(t)
	before := embedded(t)
	m := newSim(s, s.t0())
	for _, n := range []string{"worker-a1", "worker-a2", "worker-a3", "worker-a4"} {
		m.silence(n)
	}
	m.start = func() {
		m.applyTaint("worker-b4", corev1.Taint{Key: "dedicated", Value: "ml", Effect: corev1.TaintEffectNoExecute})
	}
	m.run()
	if len(m.taintedAt) == 0 || !slices.ContainsFunc(m.events, func(e event) bool { return e.Kind == kindEvicted }) {
		t.Fatal("the simulation tainted or evicted nothing: the test proves nothing")
	}
	if !reflect.DeepEqual(s, before) {
		t.Error("the snapshot changed")
	}
}

func TestSortEvents(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	events := []event{
		{Kind: kindStays, Pod: "b/x"},
		{At: t0.Add(time.Minute), Kind: kindEvicted, Pod: "a/y"},
		{Kind: kindNotTainted, Node: "n1"},
		{At: t0, Kind: kindTainted, Node: "n2"},
		{At: t0, Kind: kindUnknown, Node: "n1"}, // same instant: happened after the taint
		{Kind: kindStays, Pod: "a/x"},
	}
	sortEvents(events)
	var got []string
	for _, e := range events {
		got = append(got, e.Kind+" "+e.object())
	}
	want := []string{
		"tainted node/n2", "node-unknown node/n1", "evicted a/y",
		"stays a/x", "stays b/x", "never-tainted node/n1",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestZoneName(t *testing.T) {
	for key, want := range map[string]string{
		"us-east-1:\x00:us-east-1a": "us-east-1a",
		"us-east-1:\x00:":           "us-east-1",
		":\x00:zone":                "zone",
		"":                          "(no zone label)",
	} {
		if got := zoneName(key); got != want {
			t.Errorf("zoneName(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestWrapAndOneLine(t *testing.T) {
	long := "word "
	for range 60 {
		long += "word "
	}
	for _, l := range wrap(long) {
		if len(l) > wrapWidth {
			t.Errorf("line of %d columns", len(l))
		}
	}
	if got := wrap(""); got != nil {
		t.Errorf("wrap(\"\") = %q", got)
	}
	if got := oneLine("a\nb\r\n  c\t"); got != "a; b; c" {
		t.Errorf("oneLine = %q", got)
	}
}

func TestFormat(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{formatOffset(55 * time.Second), "+55s"},
		{formatOffset(15*time.Minute + 55*time.Second), "+15m55s"},
		{formatSeconds(300 * time.Second), "300s"},
		{formatSeconds(1500 * time.Millisecond), "1.5s"},
		{formatRate(0.1), "0.1"},
		{formatRate(0.01), "0.01"},
		{byteString(8 << 30), "8Gi"},
		{byteString(1536 << 20), "1536Mi"},
		{byteString(1000), "1000"},
		{display(*resource.NewQuantity(1536<<20, resource.BinarySI)), "1536Mi"},
		{display(*resource.NewQuantity(1500e6, resource.BinarySI)), "1.4Gi"},
		{display(*resource.NewQuantity(-1500e6, resource.BinarySI)), "-1.4Gi"},
		{display(*resource.NewQuantity(1000, resource.BinarySI)), "1000"},
		{display(*resource.NewQuantity(0, resource.BinarySI)), "0"},
		{display(resource.MustParse("2k")), "2k"}, // not binary: as it is
		{joinMax([]string{"a", "b"}, 2), "a, b"},
		{joinMax([]string{"a", "b", "c"}, 2), "a, b and 1 more"},
		{milliString(3500), "3500m"},
		{milliString(3000), "3"},
		{plural(1, "pod"), "1 pod"},
		{plural(2, "pod"), "2 pods"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
