//go:build race

package main

// raceDetector reports whether the tests run with the race detector, which
// makes decoding some ten times slower.
const raceDetector = true
