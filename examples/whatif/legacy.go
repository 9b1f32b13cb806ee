package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/evictkit/eviction/nodelifecycle"
	"github.com/evictkit/eviction/nodelifecycle/legacy"
)

// legacyReport is node-down with --pod-eviction-timeout: today's timeline,
// then each pod of the silent nodes as kube-controller-manager v1.26 would
// have treated it with --enable-taint-manager=false beside what happens to
// it today.
type legacyReport struct {
	today   *timelineReport
	timeout time.Duration
	cfg     nodelifecycle.Config // effective v1.26 settings
	model   string
	rows    []legacyRow
}

// legacyRow is one pod of a silent node.
type legacyRow struct {
	pod, node string
	today     string    // "evicted t0+…" or "stays: …"
	deleted   time.Time // zero: not deleted
	kept      string    // why not deleted, when not
	todayAt   time.Time // zero: not evicted today
}

// legacyNodeDown runs node-down both ways.
func legacyNodeDown(s *snapshot, source string, kcm settings, timeout time.Duration, names []string, demo bool) (report, error) {
	r, err := nodeDown(s, source, kcm, names, demo)
	if err != nil {
		return nil, err
	}
	today := r.(*timelineReport)
	cfg := kcm.cfg
	if cfg.MonitorGracePeriod == 0 {
		cfg.MonitorGracePeriod = legacy.NodeConfig126().MonitorGracePeriod
	}
	cfg.DisableLeaseCircuitBreaker, cfg.DisableNoExecuteTainting = true, true
	cfg = cfg.Effective()
	lr := &legacyReport{today: today, timeout: timeout, cfg: cfg}
	deleted, kept := simulateLegacy(today.m, cfg, timeout, today.nodes)
	lr.model = fmt.Sprintf("Beside it, kube-controller-manager v1.26 with --enable-taint-manager=false "+
		"--pod-eviction-timeout=%v (grace period %v, no lease circuit breaker): no NoExecute taint; once a silent "+
		"node has been Unknown at a pass and more than %v has passed since its last heartbeat, its zone's queue "+
		"(same rates) deletes its pods, whatever their tolerations, but for DaemonSet pods (recognised here by their "+
		"owner reference) and pods already terminating.", timeout, cfg.MonitorGracePeriod, timeout)
	// Today's fate of each pod, from the timeline.
	todayAt, stays := map[string]time.Time{}, map[string]string{}
	for _, e := range today.m.events {
		switch {
		case e.Pod == "":
		case e.Kind == kindEvicted:
			todayAt[e.Pod] = e.At
		case e.Kind == kindStays:
			stays[e.Pod] = e.Detail
		}
	}
	for _, name := range today.nodes {
		for _, ps := range today.m.pods(name) {
			key := podKey(ps.pod)
			row := legacyRow{pod: key, node: name, deleted: deleted[key], kept: kept[key], todayAt: todayAt[key]}
			switch {
			case !row.todayAt.IsZero():
				row.today = "evicted " + formatOffset(row.todayAt.Sub(today.m.t0))
			case stays[key] != "":
				row.today = stays[key]
			default:
				row.today = "stays"
			}
			lr.rows = append(lr.rows, row)
		}
	}
	return lr, nil
}

// simulateLegacy runs v1.26's legacy mode from t0 over the simulation's
// nodes, the given ones silent: a monitor pass every period (the Monitor
// with NoExecute tainting off) and the zone queues drained every 100 ms
// (legacy.Evictor, legacy.DeletePods), until every silent node is evicted or
// the grace period, the timeout and an hour have passed. It returns when
// each pod was deleted, and why the others were kept.
func simulateLegacy(today *sim, cfg nodelifecycle.Config, timeout time.Duration, silentNodes []string) (deleted map[string]time.Time, kept map[string]string) {
	t0 := today.t0
	silent := map[string]bool{}
	for _, n := range silentNodes {
		silent[n] = true
	}
	mon := nodelifecycle.NewMonitor(cfg)
	ev := legacy.NewEvictor(legacy.Config{PodEvictionTimeout: timeout}, cfg)
	nodes := make([]*corev1.Node, 0, len(today.snap.Nodes))
	for _, n := range today.snap.Nodes {
		nodes = append(nodes, n.DeepCopy())
		ev.NodeAdded(n.Name)
	}
	slices.SortFunc(nodes, func(a, b *corev1.Node) int { return cmp.Compare(a.Name, b.Name) })
	// The pods of the silent nodes, and the DaemonSets of the ones that
	// have one (the snapshot has no DaemonSets: each becomes one selecting
	// its own labels).
	api := &legacyPods{pods: map[string][]*corev1.Pod{}, deleted: map[string]time.Time{}}
	var sets []*appsv1.DaemonSet
	for _, name := range silentNodes {
		for _, ps := range today.pods(name) {
			p := ps.pod
			api.pods[name] = append(api.pods[name], p)
			if isDaemonSetPod(p) && len(p.Labels) > 0 {
				sets = append(sets, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace},
					Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: p.Labels}}})
			}
		}
	}
	daemonSets := legacy.NewDaemonSets(sets)
	evict := func(node string, uid types.UID) error {
		_, err := legacy.DeletePods(context.Background(), api, api.pods[node], node, uid, daemonSets)
		return err
	}
	limit := t0.Add(cfg.MonitorGracePeriod + timeout + time.Hour)
	for now := t0; !now.After(limit); now = now.Add(cfg.MonitorPeriod) {
		renew := metav1.NewMicroTime(now)
		lease := &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{RenewTime: &renew}}
		api.now = now
		res, _ := mon.Pass(now, nodelifecycle.PassInput{
			Nodes: nodes,
			Lease: func(name string) *coordinationv1.Lease {
				if silent[name] {
					return nil
				}
				return lease
			},
		}).Do(context.Background(), nil) // the simulation applies the writes itself
		for _, np := range res.Nodes {
			if np.Status != nil {
				for i := range nodes {
					if nodes[i].Name == np.Node.Name {
						nodes[i] = np.Node
					}
				}
			}
		}
		acts, _ := ev.AfterPass(now, res)
		for _, a := range acts {
			if a.Op == legacy.OpDeleteNow {
				_ = evict(a.Node, a.UID)
			}
		}
		// The drains until the next pass, on the 100 ms grid from t0.
		next := now.Add(cfg.MonitorPeriod)
		for {
			due, ok := ev.NextDue()
			if !ok || !due.Before(next) {
				break
			}
			at := t0.Add((due.Sub(t0) + nodelifecycle.DrainPeriod - 1) / nodelifecycle.DrainPeriod * nodelifecycle.DrainPeriod)
			if !at.Before(next) {
				break
			}
			api.now = at
			if evicted, _ := ev.Drain(at, evict); len(evicted) == 0 {
				break // nothing moved: wait for the next pass
			}
		}
		done := true
		for _, n := range silentNodes {
			if s, _ := ev.State(n); s != legacy.Evicted {
				done = false
			}
		}
		if done {
			break
		}
	}
	kept = map[string]string{}
	for _, name := range silentNodes {
		for _, p := range api.pods[name] {
			key := podKey(p)
			if _, ok := api.deleted[key]; ok {
				continue
			}
			if s, _ := ev.State(name); s != legacy.Evicted {
				kept[key] = fmt.Sprintf("not deleted within %v", limit.Sub(t0))
				continue
			}
			for _, d := range legacy.PlanPodDeletion([]*corev1.Pod{p}, name, daemonSets) {
				kept[key] = map[legacy.PodFate]string{legacy.PodDaemonSet: "DaemonSet pod", legacy.PodTerminating: "already terminating"}[d.Fate]
			}
		}
	}
	return api.deleted, kept
}

// legacyPods is legacy.PodAPI over the simulation's pods: it notes when
// each pod is deleted.
type legacyPods struct {
	now     time.Time
	pods    map[string][]*corev1.Pod // by node
	deleted map[string]time.Time
}

func (a *legacyPods) UpdatePodStatus(context.Context, *corev1.Pod) error { return nil }

func (a *legacyPods) DeletePod(_ context.Context, p *corev1.Pod) error {
	key := podKey(p)
	if _, ok := a.deleted[key]; !ok {
		a.deleted[key] = a.now
	}
	return nil
}

func (r *legacyReport) writeTable(w io.Writer) error {
	if err := r.today.writeTable(w); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("\n" + wrapped(r.model) + "\n")
	t := newTable(&b, "POD", "NODE", "TODAY (v1.37.2)", "V1.26 LEGACY MODE")
	for _, row := range r.rows {
		t.row(row.pod, row.node, row.today, r.legacyText(row))
	}
	t.flush()
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *legacyReport) legacyText(row legacyRow) string {
	if row.deleted.IsZero() {
		return "kept: " + row.kept
	}
	return "deleted " + formatOffset(row.deleted.Sub(r.today.m.t0))
}

// legacyJSON is the "legacy126" member of node-down's -o json document
// when --pod-eviction-timeout is given.
type legacyJSON struct {
	// Model states what is simulated.
	Model string `json:"model"`
	// PodEvictionTimeoutSeconds and MonitorGracePeriodSeconds are the
	// v1.26 settings used.
	PodEvictionTimeoutSeconds float64 `json:"podEvictionTimeoutSeconds"`
	MonitorGracePeriodSeconds float64 `json:"monitorGracePeriodSeconds"`
	// Pods are the pods of the silent nodes, in the timeline's order.
	Pods []legacyPodJSON `json:"pods"`
}

// legacyPodJSON is one pod both ways.
type legacyPodJSON struct {
	Pod  string `json:"pod"`
	Node string `json:"node"`
	// EvictedAt is when today's taint eviction evicts it (null: never);
	// Today says it in words.
	EvictedAt *time.Time `json:"evictedAt"`
	Today     string     `json:"today"`
	// DeletedAt is when v1.26's legacy mode deletes it (null: never);
	// Kept says why not: "DaemonSet pod", "already terminating" or "not
	// deleted within" the simulated time.
	DeletedAt *time.Time `json:"deletedAt"`
	Kept      string     `json:"kept,omitempty"`
}

func (r *legacyReport) jsonValue() any {
	doc := legacyJSON{Model: r.model, PodEvictionTimeoutSeconds: r.timeout.Seconds(),
		MonitorGracePeriodSeconds: r.cfg.MonitorGracePeriod.Seconds(), Pods: []legacyPodJSON{}}
	for _, row := range r.rows {
		doc.Pods = append(doc.Pods, legacyPodJSON{Pod: row.pod, Node: row.node, EvictedAt: timePtr(row.todayAt), Today: row.today,
			DeletedAt: timePtr(row.deleted), Kept: row.kept})
	}
	return struct {
		timelineJSON
		Legacy126 legacyJSON `json:"legacy126"`
	}{r.today.jsonValue().(timelineJSON), doc}
}
