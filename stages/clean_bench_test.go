package stages

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sluice-data/sluice/internal/cputime"
	"github.com/sluice-data/sluice/kernels/quality"
)

// BenchmarkCleanStages runs the stages of `sluice clean --normalize
// --filters gopher_quality,gopher_repetition,c4,fineweb --pii
// email,phone,ip` over one batch of the generated documents, as a run
// does: MB/s (cpu-MB/s, by CPU time, with -cpu 1) is the rate of the
// stages alone on one core.
func BenchmarkCleanStages(b *testing.B) {
	docs := generatedDocs(b)
	size := 0
	for _, d := range docs {
		size += len(*d)
	}
	mem := memory.NewGoAllocator()
	rec := textBatch(mem, docs)
	defer rec.Release()
	for _, mode := range []struct {
		name     string
		annotate bool
	}{{"filter", false}, {"annotate", true}} {
		sts := cleanStages(b, quality.DefaultConfig(), mode.annotate)
		b.Run(mode.name, func(b *testing.B) {
			b.SetBytes(int64(size))
			b.ReportAllocs()
			defer cputime.Start(b, int64(size))()
			for b.Loop() {
				res := runChain(b, mem, sts, rec, 0)
				res.kept.Release()
			}
		})
	}
}
