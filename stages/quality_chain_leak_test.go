package stages

import (
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/kernels/quality"
)

// The results one quality stage computes for the next ones ride along with
// the text column it passes on, and go when that column is garbage. Batch
// after batch through the whole clean chain, nothing may keep them: a
// handoff that held its own column would keep every batch's rewritten
// texts for the rest of the run.
func TestHandoffsDoNotOutliveTheirBatches(t *testing.T) {
	mem := memory.NewGoAllocator()
	rec := textBatch(mem, generatedDocs(t)[:200])
	defer rec.Release()
	const batches = 30
	for _, annotate := range []bool{false, true} {
		sts := cleanStages(t, quality.DefaultConfig(), annotate)
		for range batches {
			res := runChain(t, mem, sts, rec, 0)
			res.kept.Release()
		}
		left := 0
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			runtime.GC() // cleanups run after the collection that finds their column garbage
			handoffs.Lock()
			left = len(handoffs.m)
			handoffs.Unlock()
			if left == 0 {
				break
			}
		}
		if left > 1 {
			t.Errorf("annotate=%v: %d handoffs left after %d batches and collections, want none", annotate, left, batches)
		}
	}
}
