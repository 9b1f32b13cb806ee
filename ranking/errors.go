package ranking

import "errors"

// ErrUnknownSignal reports an eviction signal name that has no ranking (the names are the
// kubelet's: memory.available, allocatableMemory.available, pid.available, and
// nodefs/imagefs/containerfs with .available or .inodesFree). Errors wrapping it name the
// signal; test with [errors.Is].
var ErrUnknownSignal = errors.New("ranking: unknown eviction signal")
