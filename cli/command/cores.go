package command

import (
	"runtime"
	"slices"
	"sync"
)

// cores holds the worker counts of the runs in progress and the
// GOMAXPROCS they found, so that overlapping runs restore it correctly
// whatever order they finish in.
var cores struct {
	sync.Mutex
	base   int   // GOMAXPROCS before the first run in progress
	limits []int // workers of each run in progress
}

// limitCores bounds the cores the Go runtime uses to workers, when workers
// is positive and fewer than GOMAXPROCS: --workers bounds the cores a run
// uses, not only its goroutines. The returned function lifts the bound;
// once every run in progress has called it, GOMAXPROCS is what it was
// before the first one.
func limitCores(workers int) (restore func()) {
	if workers <= 0 {
		return func() {}
	}
	cores.Lock()
	defer cores.Unlock()
	if len(cores.limits) == 0 {
		cores.base = runtime.GOMAXPROCS(0)
	}
	cores.limits = append(cores.limits, workers)
	setCores()
	var once sync.Once
	return func() {
		once.Do(func() {
			cores.Lock()
			defer cores.Unlock()
			i := slices.Index(cores.limits, workers)
			cores.limits = slices.Delete(cores.limits, i, i+1)
			setCores()
		})
	}
}

// setCores sets GOMAXPROCS to the smallest limit in progress, or back to
// the base when none is; cores must be locked.
func setCores() {
	n := cores.base
	if len(cores.limits) > 0 {
		n = min(n, slices.Min(cores.limits))
	}
	if runtime.GOMAXPROCS(0) != n {
		runtime.GOMAXPROCS(n)
	}
}
