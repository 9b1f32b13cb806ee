package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestLegacyTimeline: with --pod-eviction-timeout, every pod of the silent
// nodes is listed both ways; in v1.26's mode none is deleted before t0 plus
// the timeout, whatever its tolerations, all of a node's go together, and
// DaemonSet pods stay; a longer timeout deletes later.
func TestLegacyTimeline(t *testing.T) {
	type doc struct {
		T0        time.Time `json:"t0"`
		Legacy126 struct {
			Pods []struct {
				Pod, Node, Today, Kept string
				DeletedAt              *time.Time `json:"deletedAt"`
			} `json:"pods"`
		} `json:"legacy126"`
	}
	run := func(timeout string) (doc, map[string]time.Time) {
		var d doc
		out := mustRun(t, "", "node-down", "worker-a1", "worker-b4", "--pod-eviction-timeout="+timeout, "-o", "json")
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		byNode := map[string]time.Time{}
		for _, p := range d.Legacy126.Pods {
			daemon := strings.Contains(p.Today, "DaemonSet")
			switch {
			case daemon && (p.DeletedAt != nil || p.Kept != "DaemonSet pod"):
				t.Errorf("%s: a DaemonSet pod, deleted at %v, kept %q", p.Pod, p.DeletedAt, p.Kept)
			case !daemon && p.DeletedAt == nil:
				t.Errorf("%s: not deleted (%s)", p.Pod, p.Kept)
			case !daemon:
				if at, ok := byNode[p.Node]; ok && !at.Equal(*p.DeletedAt) {
					t.Errorf("%s deleted at %v, another pod of %s at %v", p.Pod, *p.DeletedAt, p.Node, at)
				}
				byNode[p.Node] = *p.DeletedAt
			}
		}
		if len(d.Legacy126.Pods) != 15 {
			t.Errorf("%d pods listed, want the 15 of worker-a1 and worker-b4", len(d.Legacy126.Pods))
		}
		return d, byNode
	}
	short, shortAt := run("2m")
	_, longAt := run("30m")
	for node, at := range shortAt {
		if !at.After(short.T0.Add(2 * time.Minute)) {
			t.Errorf("%s: deleted at %v, not after t0 + 2m", node, at)
		}
		if !longAt[node].After(short.T0.Add(30*time.Minute)) || !longAt[node].After(at) {
			t.Errorf("%s: deleted at %v with 30m, not after t0 + 30m and %v", node, longAt[node], at)
		}
	}
}
