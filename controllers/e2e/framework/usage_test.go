package framework

import (
	"os"
	"runtime"
	"strings"
	"testing"
)

// Usage reads what the kernel counts: memory this process touched shows in
// its peak RSS, and its CPU time never goes down.
func TestUsageOfThisProcess(t *testing.T) {
	before, err := usage(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	const size = 64 << 20
	b := make([]byte, size)
	for i := range b {
		b[i] = byte(i)
	}
	after, err := usage(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	runtime.KeepAlive(b)
	if after.PeakRSS < size {
		t.Errorf("peak RSS %d bytes after touching %d bytes, want at least those", after.PeakRSS, size)
	}
	if after.CPU < before.CPU {
		t.Errorf("CPU time went down: %v, then %v", before.CPU, after.CPU)
	}
}

func TestUsageOfNoProcessNamesIt(t *testing.T) {
	_, err := usage(-5)
	if err == nil || !strings.Contains(err.Error(), "process -5") {
		t.Errorf("usage(-5) error = %v, want one naming process -5", err)
	}
}
