package deletionmetrics

import (
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// A deletion counts once and observes its delay after the due time, in
// seconds, under the subsystem's names; a nil *Metrics records nothing.
func TestDeleted(t *testing.T) {
	var none *Metrics
	none.Deleted(time.Time{}, time.Time{})

	m := New("x", "deletions", "latency")
	reg := prometheus.NewRegistry()
	reg.MustRegister(m.Collectors()...)
	due := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	m.Deleted(due, due.Add(1500*time.Millisecond))
	if got := testutil.ToFloat64(m.Deletions); got != 1 {
		t.Errorf("x_pod_deletions_total = %v, want 1", got)
	}
	want := `
# HELP x_pod_deletion_duration_seconds latency
# TYPE x_pod_deletion_duration_seconds histogram
x_pod_deletion_duration_seconds_bucket{le="0.005"} 0
x_pod_deletion_duration_seconds_bucket{le="0.025"} 0
x_pod_deletion_duration_seconds_bucket{le="0.1"} 0
x_pod_deletion_duration_seconds_bucket{le="0.5"} 0
x_pod_deletion_duration_seconds_bucket{le="1"} 0
x_pod_deletion_duration_seconds_bucket{le="2.5"} 1
x_pod_deletion_duration_seconds_bucket{le="10"} 1
x_pod_deletion_duration_seconds_bucket{le="30"} 1
x_pod_deletion_duration_seconds_bucket{le="60"} 1
x_pod_deletion_duration_seconds_bucket{le="120"} 1
x_pod_deletion_duration_seconds_bucket{le="180"} 1
x_pod_deletion_duration_seconds_bucket{le="240"} 1
x_pod_deletion_duration_seconds_bucket{le="+Inf"} 1
x_pod_deletion_duration_seconds_sum 1.5
x_pod_deletion_duration_seconds_count 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "x_pod_deletion_duration_seconds"); err != nil {
		t.Error(err)
	}
}
