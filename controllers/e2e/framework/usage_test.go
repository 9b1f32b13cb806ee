package framework

import (
	"os"
	"strings"
	"testing"
)

func TestUsageOfThisProcess(t *testing.T) {
	u, err := usage(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if u.PeakRSS <= 0 {
		t.Errorf("peak RSS of this test process = %d, want more than 0", u.PeakRSS)
	}
	if u.CPU < 0 {
		t.Errorf("CPU time = %v, want at least 0", u.CPU)
	}
}

func TestUsageOfNoProcessNamesIt(t *testing.T) {
	_, err := usage(-5)
	if err == nil || !strings.Contains(err.Error(), "process -5") {
		t.Errorf("usage(-5) error = %v, want one naming process -5", err)
	}
}
