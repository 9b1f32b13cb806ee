// Package promreg registers a program's Prometheus collectors.
package promreg

import "github.com/prometheus/client_golang/prometheus"

// Register registers every collector with reg, stopping at the first error
// (a name registered twice).
func Register(reg prometheus.Registerer, cs ...prometheus.Collector) error {
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	return nil
}
