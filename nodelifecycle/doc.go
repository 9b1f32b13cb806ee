// Package nodelifecycle is filled in by its own issue.
package nodelifecycle
