// Package ranking is filled in by its own issue.
package ranking
