package stages

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/datasettest"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/pipeline"
)

// A library caller that hands pipeline.Run a global stage without
// preparing it gets the rows of a prepared run: Run prepares it over the
// corpus first, instead of writing through a filter that has seen
// nothing (and keeps every row).
func TestRunPreparesAGlobalStageItIsGiven(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	nearDupCorpus(t, in, 200)
	prepared := filepath.Join(dir, "prepared")
	runMinHash(t, in, prepared, DefaultMinHashParams())
	want, err := dataset.ReadManifest(filepath.Join(prepared, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if want.Counts.Removed == 0 {
		t.Fatal("the corpus has no near duplicates to remove")
	}

	g, err := NewGlobalMinHash("text", DefaultMinHashParams(), false)
	if err != nil {
		t.Fatal(err)
	}
	direct := filepath.Join(dir, "direct")
	got := runDirect(t, in, direct, g)
	if got.Counts != want.Counts {
		t.Errorf("MinHash given to Run unprepared: counts %+v, prepared %+v", got.Counts, want.Counts)
	}

	// Line dedup: a line repeated in every document goes from all of them.
	lines := filepath.Join(dir, "lines.jsonl")
	var b strings.Builder
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, `{"id":%d,"text":"document %d says something of its own\nthe footer every page repeats"}`+"\n", i, i)
	}
	if err := os.WriteFile(lines, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	linesOut := filepath.Join(dir, "lines-out")
	runDirect(t, lines, linesOut, NewGlobalLines("text", LinesParams{}))
	kept := datasettest.Read(t, linesOut).Kept
	if len(kept) != 20 {
		t.Fatalf("line dedup given to Run unprepared kept %d rows, want 20", len(kept))
	}
	for _, r := range kept {
		if text := r["text"].(string); strings.Contains(text, "footer") {
			t.Errorf("line dedup given to Run unprepared kept the repeated line: %q", text)
		}
	}
}

// runDirect runs stage over in into out with pipeline.Run alone.
func runDirect(t *testing.T, in, out string, stage pipeline.Stage) *dataset.Manifest {
	t.Helper()
	files, err := input.Expand([]string{in})
	if err != nil {
		t.Fatal(err)
	}
	cfg := pipeline.Config{Inputs: files, Target: dataset.ParseTarget(out), Workers: 2, BatchRows: 16, TextField: "text",
		Stages: []pipeline.Stage{stage}}
	m, err := pipeline.Run(context.Background(), cfg, nil, "test")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The filter of a global stage taken before its passes ran fails the run
// before it reads a row, naming the stage.
func TestAnUnpreparedFilterFailsTheRun(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	nearDupCorpus(t, in, 20)
	files, err := input.Expand([]string{in})
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGlobalMinHash("text", DefaultMinHashParams(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, filter := range []pipeline.Stage{g.Filter(), NewGlobalLines("text", LinesParams{}).Filter()} {
		out := filepath.Join(dir, "out-"+filter.Name())
		cfg := pipeline.Config{Inputs: files, Target: dataset.ParseTarget(out), TextField: "text", Stages: []pipeline.Stage{filter}}
		_, err := pipeline.Run(context.Background(), cfg, nil, "test")
		if err == nil || !strings.Contains(err.Error(), "passes over the corpus have not run") || !strings.Contains(err.Error(), filter.Name()) {
			t.Errorf("%s unprepared: %v", filter.Name(), err)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s unprepared: %s was written", filter.Name(), out)
		}
	}
}
