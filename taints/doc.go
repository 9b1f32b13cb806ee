// Package taints is filled in by its own issue.
package taints
