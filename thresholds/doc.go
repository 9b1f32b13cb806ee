// Package thresholds is filled in by its own issue.
package thresholds
