package taints

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ptrTime returns a TimeAdded at sec seconds after a fixed instant.
func ptrTime(sec int) *metav1.Time {
	t := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(sec) * time.Second))
	return &t
}
