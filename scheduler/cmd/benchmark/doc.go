// Package benchmark measures one preemption cycle (a PostFilter call) of
// EvictkitPreemption against DefaultPreemption v1.37.2, both on the same
// scheduler framework and snapshot. It has no code of its own: run
//
//	cd scheduler/cmd && GOFLAGS=-trimpath go test -run '^$' -bench PostFilter -benchmem ./benchmark/
package benchmark
