// Package tolerations is filled in by its own issue.
package tolerations
