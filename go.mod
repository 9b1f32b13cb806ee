module github.com/evictkit/eviction

go 1.26.0
