package pressureevictor

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/evictkit/eviction/nodepressure"
	"github.com/evictkit/eviction/statsummary"
	"github.com/evictkit/eviction/thresholds"
)

// BenchmarkCycle110Pods measures the evictor's work per cycle on a node with
// the kubelet's default maximum of 110 pods under memory pressure: decode the
// summary, evaluate the thresholds, rank the pods and pick the victim (the
// API calls are not included). Every cycle's summary is newer than the last,
// so that every cycle ranks.
func BenchmarkCycle110Pods(b *testing.B) {
	const n = 110
	start := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	pods := make([]*v1.Pod, n)
	var stats []string
	for i := range pods {
		name := fmt.Sprintf("pod-%03d", i)
		c := v1.Container{Name: "app"}
		if i%3 != 0 {
			c.Resources.Requests = v1.ResourceList{v1.ResourceMemory: *resource.NewQuantity(int64(50+i)*mi, resource.BinarySI)}
		}
		pods[i] = &v1.Pod{
			ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)},
			Spec:       v1.PodSpec{NodeName: node, Containers: []v1.Container{c}},
			Status:     v1.PodStatus{Phase: v1.PodRunning},
		}
		usage := int64(20+(i*37)%200) * mi
		stats = append(stats, fmt.Sprintf(`{"podRef":{"name":%q,"namespace":"default","uid":"uid-%s"},"memory":{"time":"2026-12-01T10:00:00Z","workingSetBytes":%d},"containers":[{"name":"app","memory":{"time":"2026-12-01T10:00:00Z","workingSetBytes":%d},"rootfs":{"usedBytes":1024,"inodesUsed":10},"logs":{"usedBytes":2048,"inodesUsed":2}}]}`,
			name, name, usage, usage))
	}
	const stamp = "NODE-TIME-XXXXXXXXXX" // as long as an RFC 3339 time in UTC
	data := fmt.Appendf(nil, `{"node":{"nodeName":%q,"memory":{"time":%q,"availableBytes":%d,"workingSetBytes":%d},"fs":{"time":%q,"availableBytes":%d,"capacityBytes":%d,"inodesFree":1000000,"inodes":2000000}},"pods":[%s]}`,
		node, stamp, 300*mi, 7892*mi, stamp, 50<<30, 100<<30, strings.Join(stats, ","))
	at := bytes.Index(data, []byte(stamp))
	at2 := at + bytes.Index(data[at+len(stamp):], []byte(stamp)) + len(stamp)

	ts, err := ParseThresholds(thresholds.Flags{Hard: []string{"memory.available<500Mi,nodefs.available<10%"}})
	if err != nil {
		b.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(start)
	m, err := nodepressure.NewManager(nodepressure.Config{Thresholds: ts, PressureTransitionPeriod: -1, DisableLocalStorageCapacityIsolation: true})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		now := start.Add(time.Duration(i) * time.Second)
		clk.SetTime(now)
		now.AppendFormat(data[at:at], time.RFC3339)
		now.AppendFormat(data[at2:at2], time.RFC3339)
		s, err := statsummary.Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		r := m.Synchronize(clk.Now(), nodepressure.Stats{Node: s.Node, Pods: s.Usage}, pods)
		if r.Victim == nil {
			b.Fatal("no victim")
		}
	}
}
