// Package cputime reports the CPU time a benchmark's loop took, which a
// shared, loaded machine disturbs much less than wall time.
package cputime

import (
	"testing"
	"time"
)

// Start returns a function that, called after the benchmark's loop,
// reports the process's user+sys CPU time per operation (cpu-ns/op) and,
// when bytes > 0, the bytes of an operation over it (cpu-MB/s). Run
// benchmarks that use it with -cpu 1: the process's time then is the
// loop's, its garbage collection included.
func Start(b *testing.B, bytes int64) func() {
	t0 := now()
	return func() {
		d := now() - t0
		if d <= 0 || b.N == 0 {
			return
		}
		per := float64(d) / float64(b.N)
		b.ReportMetric(per, "cpu-ns/op")
		if bytes > 0 {
			b.ReportMetric(float64(bytes)/per*float64(time.Second)/1e6, "cpu-MB/s")
		}
	}
}
