package scale

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
)

// latency is kube-apiserver's request-duration histogram for the requests
// that end (every verb but WATCH and CONNECT), summed over every label.
type latency struct {
	buckets map[float64]float64 // upper bound → cumulative count
	sum     float64
	count   float64
}

// scrapeLatency reads kube-apiserver's /metrics.
func scrapeLatency(ctx context.Context, c kubernetes.Interface) (latency, error) {
	body, err := c.CoreV1().RESTClient().Get().AbsPath("/metrics").Stream(ctx)
	if err != nil {
		return latency{}, fmt.Errorf("scale: kube-apiserver metrics: %w", err)
	}
	defer body.Close()
	return parseLatency(body)
}

const durationMetric = "apiserver_request_duration_seconds"

// parseLatency reads the request-duration histogram from a Prometheus text
// exposition.
func parseLatency(r io.Reader) (latency, error) {
	l := latency{buckets: map[float64]float64{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, durationMetric+"_") {
			continue
		}
		name, rest, ok := strings.Cut(line, "{")
		if !ok {
			continue
		}
		labels, value, ok := strings.Cut(rest, "} ")
		if !ok {
			return latency{}, fmt.Errorf("scale: metrics line %q: no value", line)
		}
		if strings.Contains(labels, `verb="WATCH"`) || strings.Contains(labels, `verb="CONNECT"`) {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) == 0 {
			return latency{}, fmt.Errorf("scale: metrics line %q: no value", line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return latency{}, fmt.Errorf("scale: metrics line %q: %w", line, err)
		}
		switch name {
		case durationMetric + "_sum":
			l.sum += v
		case durationMetric + "_count":
			l.count += v
		case durationMetric + "_bucket":
			le := labelValue(labels, "le")
			bound, err := strconv.ParseFloat(le, 64)
			if err != nil {
				return latency{}, fmt.Errorf("scale: metrics line %q: le %q: %w", line, le, err)
			}
			l.buckets[bound] += v
		}
	}
	if err := sc.Err(); err != nil {
		return latency{}, fmt.Errorf("scale: metrics: %w", err)
	}
	return l, nil
}

func labelValue(labels, name string) string {
	for _, kv := range strings.Split(labels, ",") {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

// Latency summarizes the requests that ended between two scrapes.
type Latency struct {
	Requests int
	Mean     time.Duration
	// P99 is the upper bound of the histogram bucket that holds the 99th
	// percentile request; -1 when that is past the last bound (60 s).
	P99 time.Duration
}

// since returns what l holds beyond an earlier scrape.
func (l latency) since(earlier latency) Latency {
	n := l.count - earlier.count
	if n <= 0 {
		return Latency{}
	}
	out := Latency{Requests: int(n), Mean: seconds((l.sum - earlier.sum) / n)}
	bounds := make([]float64, 0, len(l.buckets))
	for b := range l.buckets {
		bounds = append(bounds, b)
	}
	sort.Float64s(bounds)
	for _, b := range bounds {
		if l.buckets[b]-earlier.buckets[b] >= 0.99*n {
			if !math.IsInf(b, 1) {
				out.P99 = seconds(b)
			} else {
				out.P99 = -1
			}
			break
		}
	}
	return out
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
