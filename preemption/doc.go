// Package preemption is filled in by its own issue.
package preemption
