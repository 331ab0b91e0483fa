package pipeline

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/input"
)

// jsonlRows is n JSON lines with ids from "<prefix>0", every line whose
// number is in bad not JSON.
func jsonlRows(prefix string, n int, bad ...int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if contains(bad, i) {
			fmt.Fprintf(&b, "not json %d\n", i)
			continue
		}
		fmt.Fprintf(&b, `{"id":"%s%d","text":"row %d of %s"}`+"\n", prefix, i, i, prefix)
	}
	return []byte(b.String())
}

func contains(list []int, x int) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}

// lastID is the id of the last row of a JSONL output.
func lastID(t *testing.T, path string) string {
	t.Helper()
	rows := readJSONL(t, path)
	if len(rows) == 0 {
		return ""
	}
	return fmt.Sprint(rows[len(rows)-1]["id"])
}

func TestLimitReadsTheFirstRowsOnly(t *testing.T) {
	dir := t.TempDir()
	a := writeFile(t, dir, "a.jsonl", jsonlRows("a", 10, 2, 5))
	b := writeFile(t, dir, "b.jsonl", jsonlRows("b", 10))
	for _, limit := range []int64{1, 3, 14, 20, 25} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			out := filepath.Join(dir, fmt.Sprintf("out%d.jsonl", limit))
			cfg := testConfig(t, out, a, b)
			cfg.BatchRows, cfg.Limit = 3, limit
			m := run(t, cfg)
			want := min(limit, 20)
			if m.Counts.RowsIn != want || m.Counts.RowsOut+m.Counts.Quarantined != want {
				t.Fatalf("counts %+v, want %d rows in", m.Counts, want)
			}
			if got := m.Inputs[0].Rows + m.Inputs[1].Rows; got != want || m.Inputs[0].Rows != min(want, 10) {
				t.Fatalf("inputs %+v", m.Inputs)
			}
			wantLast := map[int64]string{1: "a0", 3: "a1", 14: "b3", 20: "b9", 25: "b9"}[limit]
			if got := lastID(t, out); got != wantLast {
				t.Fatalf("last row %s, want %s", got, wantLast)
			}
		})
	}
}

func TestLimitCutsParquetAndWARCInputsInOrder(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, dir, "a.jsonl", jsonlRows("a", 40))
	pq := filepath.Join(dir, "a.parquet")
	cfg := testConfig(t, pq, src)
	cfg.BatchRows = 4 // row groups of 4 rows
	run(t, cfg)
	// Row groups read by the workers (small), and streamed batch by batch.
	for _, batchRows := range []int{4, 1} {
		out := filepath.Join(dir, fmt.Sprintf("pq%d.jsonl", batchRows))
		cfg := testConfig(t, out, pq)
		cfg.BatchRows, cfg.Limit = batchRows, 6
		m := run(t, cfg)
		if m.Counts.RowsIn != 6 || m.Counts.RowsOut != 6 || m.Inputs[0].Rows != 6 {
			t.Fatalf("batch rows %d: counts %+v inputs %+v", batchRows, m.Counts, m.Inputs)
		}
		if got := lastID(t, out); got != "a5" {
			t.Fatalf("batch rows %d: last row %s", batchRows, got)
		}
	}

	// A WARC file whose fourth member is damaged: its record is among the
	// first rows, quarantined and counted.
	w, offsets := writeWARC(t, dir, "a.warc.gz", 20)
	data, _ := os.ReadFile(w)
	mid := (offsets[3] + offsets[4]) / 2
	for i := mid - 3; i < mid+3; i++ {
		data[i] ^= 0xa5
	}
	writeFile(t, dir, "a.warc.gz", data)
	out := filepath.Join(dir, "warc.jsonl")
	cfg = testConfig(t, out, w)
	cfg.BatchRows, cfg.Limit = 64, 6
	m, err := Run(context.Background(), cfg, nil, "test")
	if err != nil && !errors.Is(err, ErrPartialInput) {
		t.Fatal(err)
	}
	checkManifest(t, cfg.Target, m)
	if m.Counts.RowsIn != 6 || m.Counts.RowsOut != 5 || m.Counts.Quarantined != 1 || m.Inputs[0].Rows != 6 {
		t.Fatalf("counts %+v inputs %+v", m.Counts, m.Inputs)
	}

	// More files than the limit reaches, read ahead by several workers.
	var many []string
	for i := 0; i < 4; i++ {
		p, _ := writeWARC(t, dir, fmt.Sprintf("m%d.warc.gz", i), 30)
		many = append(many, p)
	}
	cfg = testConfig(t, filepath.Join(dir, "many.jsonl"), many...)
	cfg.BatchRows, cfg.Workers, cfg.Limit = 8, 4, 50 // 40 records a file
	m = run(t, cfg)
	if m.Counts.RowsIn != 50 || m.Inputs[0].Rows != 40 || m.Inputs[1].Rows != 10 || m.Inputs[2].Rows != 0 || m.Inputs[0].Bytes == 0 {
		t.Fatalf("counts %+v inputs %+v", m.Counts, m.Inputs)
	}
}

// TestTruncatedPlainFileFailsTheRun truncates a plain JSONL file after
// the first batch is read: the run fails naming it, and the previous
// output is left as it was.
func TestTruncatedPlainFileFailsTheRun(t *testing.T) {
	dir := t.TempDir()
	src := writeFile(t, dir, "big.jsonl", jsonlRows("r", 20000))
	out := filepath.Join(dir, "out")
	run(t, testConfig(t, out, src))
	before, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, out, src)
	cfg.Overwrite, cfg.BatchRows, cfg.BatchBytes = true, 100, 4096
	truncated := false
	cfg.Progress = func(done, total int64) {
		if !truncated && done > 0 {
			truncated = true
			if err := os.Truncate(src, 50_000); err != nil {
				t.Error(err)
			}
		}
	}
	_, err = Run(context.Background(), cfg, nil, "test")
	if !truncated || !errors.Is(err, input.ErrChanged) || !strings.Contains(err.Error(), src) {
		t.Fatalf("run over a file truncated while read: %v", err)
	}
	after, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil || string(after) != string(before) {
		t.Fatalf("the previous output changed: %v", err)
	}
}

// twoPass is a global stage whose passes are counted.
type twoPass struct {
	keepAll
	passes int
}

type keepAll struct{}

func (keepAll) Name() string                                         { return "two_pass" }
func (keepAll) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) { return in, nil }
func (keepAll) Process(_ context.Context, _ memory.Allocator, b *Batch) (Result, error) {
	b.Rec.Retain()
	return Result{Kept: b.Rec}, nil
}

func (g *twoPass) Prepare(scan Scan) error {
	g.passes++
	return scan(keepAll{})
}
func (g *twoPass) Filter() Stage { return keepAll{} }

// prepass is a stage that plans a later pass.
type prepass struct{ keepAll }

func (prepass) Prepass() {}

func TestStreamInputIsRefusedBeforeASecondPass(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "rows.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	go func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.Write(jsonlRows("f", 30))
			w.Close()
		}
	}()
	stream, err := input.Stat(fifo)
	if err != nil {
		t.Fatal(err)
	}
	g := &twoPass{}
	ran := 0
	err = PrepareGlobals([]input.File{stream}, []Stage{g}, func([]Stage, string) error { ran++; return nil })
	if !errors.Is(err, input.ErrReadOnce) || !strings.Contains(err.Error(), fifo) || g.passes != 0 || ran != 0 {
		t.Fatalf("global stage over a FIFO: %v (%d passes run)", err, ran)
	}

	out := filepath.Join(dir, "out")
	cfg := testConfig(t, out, writeFile(t, dir, "a.jsonl", jsonlRows("a", 3)))
	cfg.Inputs = []input.File{stream}
	cfg.Stages = []Stage{prepass{}}
	if _, err := Run(context.Background(), cfg, nil, "test"); !errors.Is(err, input.ErrReadOnce) {
		t.Fatalf("a pass that plans another over a FIFO: %v", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("output written: %v", err)
	}

	// A file is read by every pass.
	file, _ := input.Stat(filepath.Join(dir, "a.jsonl"))
	if err := PrepareGlobals([]input.File{file}, []Stage{g}, func([]Stage, string) error { ran++; return nil }); err != nil || ran != 1 {
		t.Fatalf("global stage over a file: %v, %d passes", err, ran)
	}
}

// TestParquetChangedWhileReadFailsTheRun rewrites a Parquet input once
// its reading has begun: the run fails naming it.
func TestParquetChangedWhileReadFailsTheRun(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "a.parquet")
	cfg := testConfig(t, pq, writeFile(t, dir, "a.jsonl", jsonlRows("a", 400)))
	cfg.BatchRows = 10
	run(t, cfg)
	cfg = testConfig(t, filepath.Join(dir, "out"), pq)
	cfg.BatchRows = 10
	changed := false
	cfg.Progress = func(done, total int64) {
		if !changed {
			changed = true
			// Rewritten in place: the same size, a later modification.
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(pq, later, later); err != nil {
				t.Error(err)
			}
		}
	}
	_, err := Run(context.Background(), cfg, nil, "test")
	if !changed || !errors.Is(err, input.ErrChanged) || !strings.Contains(err.Error(), pq) {
		t.Fatalf("run over a Parquet file changed while read: %v", err)
	}
}
