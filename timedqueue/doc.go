// Package timedqueue is filled in by its own issue.
package timedqueue
