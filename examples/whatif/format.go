package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// podKey is the namespace/name of a pod.
func podKey(p *corev1.Pod) string { return p.Namespace + "/" + p.Name }

// isDaemonSetPod reports whether a DaemonSet controls the pod.
func isDaemonSetPod(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" && o.Controller != nil && *o.Controller {
			return true
		}
	}
	return false
}

// formatOffset prints a duration after t0: "+55s", "+15m55s".
func formatOffset(d time.Duration) string {
	if d < 0 {
		return "-" + d.Abs().String()
	}
	return "+" + d.String()
}

// formatSeconds prints a toleration: "300s" rather than "5m0s".
func formatSeconds(d time.Duration) string {
	if d%time.Second == 0 {
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return d.String()
}

// formatRate prints a rate in nodes per second.
func formatRate(r float32) string { return strconv.FormatFloat(float64(r), 'g', -1, 32) }

// binaryUnits are the binary suffixes of quantities, largest first.
var binaryUnits = [...]struct {
	s string
	n int64
}{{"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}}

// exactBinary prints v in the largest binary unit that divides it: "8Gi";
// false if none does, or v is zero.
func exactBinary(v int64) (string, bool) {
	for _, u := range binaryUnits {
		if v != 0 && v%u.n == 0 {
			return strconv.FormatInt(v/u.n, 10) + u.s, true
		}
	}
	return "", false
}

// stamp prints t in RFC 3339, UTC.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// table collects aligned columns separated by two spaces, and writes them
// to out, without trailing spaces, on flush.
type table struct {
	out  *strings.Builder
	buf  bytes.Buffer
	tw   *tabwriter.Writer
	line []byte // the row being written, reused
}

func newTable(out *strings.Builder, header ...string) *table {
	t := &table{out: out}
	t.tw = tabwriter.NewWriter(&t.buf, 0, 0, 2, ' ', 0)
	t.row(header...)
	return t
}

// row adds a row: its cells separated by tabs, then a newline.
func (t *table) row(cells ...string) {
	t.line = t.line[:0]
	for i, c := range cells {
		if i > 0 {
			t.line = append(t.line, '\t')
		}
		t.line = append(t.line, c...)
	}
	t.line = append(t.line, '\n')
	_, _ = t.tw.Write(t.line) // it writes to a bytes.Buffer, which cannot fail
}

func (t *table) flush() {
	_ = t.tw.Flush() // it writes to a bytes.Buffer, which cannot fail
	t.out.Grow(t.buf.Len())
	for line := range bytes.Lines(t.buf.Bytes()) {
		t.out.Write(bytes.TrimRight(line, " \n"))
		t.out.WriteByte('\n')
	}
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// oneLine flattens a message onto a single line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "; ")), " ")
}

// plural returns "1 pod" or "2 pods".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}

// joinMax joins up to n names and counts the rest.
func joinMax(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}

// groups collects names under reasons, keeping the reasons in the order they
// first appear.
type groups struct {
	reasons []string
	names   map[string][]string
}

func (g *groups) add(reason, name string) {
	if g.names == nil {
		g.names = map[string][]string{}
	}
	if _, ok := g.names[reason]; !ok {
		g.reasons = append(g.reasons, reason)
	}
	g.names[reason] = append(g.names[reason], name)
}

// wrapWidth is where wrap breaks lines.
const wrapWidth = 96

// wrap breaks text into lines of at most wrapWidth columns at spaces.
func wrap(text string) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) > wrapWidth:
			lines = append(lines, line)
			line = w
		default:
			line += " " + w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// wrapped is text broken by wrap, each line ending in a newline.
func wrapped(text string) string {
	var b strings.Builder
	for _, l := range wrap(text) {
		b.WriteString(l + "\n")
	}
	return b.String()
}
