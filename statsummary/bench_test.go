package statsummary

import (
	"bytes"
	"fmt"
	"testing"
)

// largeSummary repeats the pods of a test summary until it has n of them,
// each with its own UID.
func largeSummary(tb testing.TB, n int) []byte {
	data := readTestdata(tb, "imagefs-dedicated.json")
	s, err := Decode(data)
	if err != nil {
		tb.Fatal(err)
	}
	start := bytes.Index(data, []byte(`"pods": [`)) + len(`"pods": [`)
	end := bytes.LastIndex(data, []byte("]"))
	pods := data[start:end]
	var b bytes.Buffer
	b.Write(data[:start])
	for i := 0; i*len(s.Pods) < n; i++ {
		if i > 0 {
			b.WriteString(",")
		}
		b.Write(bytes.ReplaceAll(pods, []byte(`"uid": "`), fmt.Appendf(nil, `"uid": "%d-`, i)))
	}
	b.Write(data[end:])
	return b.Bytes()
}

func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{6, 110} {
		data := largeSummary(b, n)
		b.Run(fmt.Sprintf("pods=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
