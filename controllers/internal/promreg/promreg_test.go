package promreg

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// Every collector is registered; a second registration of a name fails.
func TestRegister(t *testing.T) {
	reg := prometheus.NewRegistry()
	a := prometheus.NewCounter(prometheus.CounterOpts{Name: "a_total", Help: "a"})
	b := prometheus.NewCounter(prometheus.CounterOpts{Name: "b_total", Help: "b"})
	if err := Register(reg, a, b); err != nil {
		t.Fatal(err)
	}
	if n, err := reg.Gather(); err != nil || len(n) != 2 {
		t.Fatalf("gathered %d families (%v), want 2", len(n), err)
	}
	again := prometheus.NewCounter(prometheus.CounterOpts{Name: "a_total", Help: "a"})
	if err := Register(reg, again); err == nil {
		t.Error("a_total registered twice: no error")
	}
}
