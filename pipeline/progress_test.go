package pipeline

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestParquetProgressMovesWithinAFile: reading one Parquet file of many
// row groups reports progress as its rows go, not only once it is done.
func TestParquetProgressMovesWithinAFile(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, `{"id":%d,"text":"row %d"}`+"\n", i, i)
	}
	in := writeFile(t, dir, "in.jsonl", []byte(b.String()))
	pq := filepath.Join(dir, "in.parquet")
	cfg := testConfig(t, pq, in)
	cfg.BatchRows = 500 // ten row groups
	run(t, cfg)

	cfg = testConfig(t, filepath.Join(dir, "out.parquet"), pq)
	cfg.BatchRows = 500
	var mu sync.Mutex
	var calls [][2]int64
	cfg.Progress = func(done, total int64) {
		mu.Lock()
		calls = append(calls, [2]int64{done, total})
		mu.Unlock()
	}
	run(t, cfg)
	partial := 0
	for i, c := range calls {
		if i > 0 && c[0] < calls[i-1][0] {
			t.Fatalf("progress went back: %v", calls)
		}
		if c[0] > 0 && c[0] < c[1] {
			partial++
		}
	}
	if last := calls[len(calls)-1]; last[0] != last[1] || partial < 5 {
		t.Fatalf("progress %v: want several steps inside the file and the whole file at the end", calls)
	}
}
