package scaleout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/datasettest"
	"github.com/sluice-data/sluice/internal/s3test"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/pipeline"
)

// spillPipeline has the stages of bench/launch.sh: row stages, then both
// dedups, so that four phases read each shard.
var spillPipeline = onePipeline("normalize: {}", "gopher_quality: {min_word_count: 5}", "dedup_exact: {}",
	"dedup_minhash: {threshold: 0.7, num_perm: 64, bands: 16, ngram: 3}")

// garble replaces every byte of the input files with a byte that makes no
// JSON, keeping their sizes: a phase that read them would quarantine
// every line.
func garble(t *testing.T, inputs []input.File) {
	t.Helper()
	seen := map[string]bool{}
	for _, f := range inputs {
		if seen[f.Path] {
			continue
		}
		seen[f.Path] = true
		b, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		for i := range b {
			if b[i] != '\n' {
				b[i] = '#'
			}
		}
		if err := os.WriteFile(f.Path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// runPhasesOnGarbledInput runs phases with every byte of the inputs but
// the line breaks garbled, and puts the inputs back afterwards: phases
// that replay a spill must not need them.
func runPhasesOnGarbledInput(t *testing.T, p *Plan, phases []Phase, inputs []input.File) {
	t.Helper()
	saved := map[string][]byte{}
	for _, f := range inputs {
		b, err := os.ReadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		saved[f.Path] = b
	}
	garble(t, inputs)
	runPhases(t, p, phases)
	for path, b := range saved {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// spillCase is the one-process output of spillPipeline with lineage over
// the test corpus, which has a quarantined line and a repaired one, and
// the configuration it ran with.
func spillCase(t *testing.T, inputs []input.File) (pipeline.Config, datasettest.Dataset) {
	t.Helper()
	cfg := baseConfig(inputs)
	cfg.Lineage = true
	single := filepath.Join(t.TempDir(), "single")
	runSingle(t, spillPipeline, cfg, single)
	want := datasettest.Read(t, single)
	if len(want.Quarantine) != 1 || want.Manifest.Counts.UTF8Repaired != 1 || len(want.Removed) == 0 {
		t.Fatalf("corpus too tame: quarantine %q, %d repaired, %d removed", want.Quarantine, want.Manifest.Counts.UTF8Repaired, len(want.Removed))
	}
	if _, ok := want.Kept[0][pipeline.SrcRowColumn]; !ok {
		t.Fatalf("no lineage columns in %v", want.Kept[0])
	}
	r := reasons(want.Removed)
	if r["exact_dup"] == 0 || r["near_dup"] == 0 {
		t.Fatalf("corpus too tame: removed by reason %v", r)
	}
	return cfg, want
}

// The first phase over a shard spills what it decoded; the phases after
// it (minhash-sign, minhash-features, write) replay that and do not read
// the input: with the input garbled once the first phase is done, the
// launch still gives the rows, removed rows, quarantine, lineage and
// input counts of one process over the input as it was.
func TestLaterPhasesReplayTheSpilledInput(t *testing.T) {
	inputs := jsonlCorpus(t)
	cfg, want := spillCase(t, inputs)
	for _, tasks := range []int{1, 3} {
		out := filepath.Join(t.TempDir(), "out")
		p, _ := newPlan(t, spillPipeline, cfg, out, tasks)
		if p.Phases[0].Name != "s2-exact-map" {
			t.Fatalf("first phase %s", p.Phases[0].Name)
		}
		runPhases(t, p, p.Phases[:1])
		for s := range p.Shards {
			for _, name := range []string{pipeline.SpillIndexName, pipeline.SpillBatchesName, pipeline.SpillUnitsName} {
				if _, err := os.Stat(p.spillPath(p.Phases[0], s, name)); err != nil {
					t.Fatalf("%d tasks: shard %d's spill: %v", tasks, s, err)
				}
			}
		}
		runPhasesOnGarbledInput(t, p, p.Phases[1:], inputs)
		got := datasettest.Read(t, out)
		datasettest.Compare(t, "replayed", got, want)
		if _, err := os.Stat(filepath.Join(out, "_work", p.Phases[0].Name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("the spill stays after the merge: %v", err)
		}
	}
}

// With NoSpill (launch --no-spill) no phase spills: every phase reads the
// input, and the output is the same.
func TestNoSpillReadsTheInputInEveryPhase(t *testing.T) {
	inputs := jsonlCorpus(t)
	cfg, want := spillCase(t, inputs)
	out := filepath.Join(t.TempDir(), "out")
	p, _ := newPlan(t, spillPipeline, cfg, out, 2)
	p.NoSpill = true
	runPhases(t, p, p.Phases[:1])
	for s := range p.Shards {
		if _, err := os.Stat(p.spillPath(p.Phases[0], s, pipeline.SpillIndexName)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("shard %d spilled with NoSpill: %v", s, err)
		}
	}
	runPhases(t, p, p.Phases[1:])
	datasettest.Compare(t, "no spill", datasettest.Read(t, out), want)
}

// A spill that is missing or not whole is not used: the phase reads the
// input. One damaged in a way its sizes do not show fails the task that
// replays it, which removes it: the next attempt reads the input. Either
// way the output is one process's.
func TestAMissingOrDamagedSpillFallsBackToTheInput(t *testing.T) {
	inputs := jsonlCorpus(t)
	cfg, want := spillCase(t, inputs)
	for _, damage := range []string{"missing", "truncated", "flipped"} {
		out := filepath.Join(t.TempDir(), "out")
		p, _ := newPlan(t, spillPipeline, cfg, out, 2)
		runPhases(t, p, p.Phases[:1])
		batches := p.spillPath(p.Phases[0], 1, pipeline.SpillBatchesName)
		b, err := os.ReadFile(batches)
		if err != nil {
			t.Fatal(err)
		}
		switch damage {
		case "missing":
			err = os.Remove(p.spillPath(p.Phases[0], 1, pipeline.SpillIndexName))
		case "truncated":
			err = os.WriteFile(batches, b[:len(b)/2], 0o644)
		case "flipped":
			// A byte of the last batch's text, the size unchanged.
			i := bytes.LastIndex(b, []byte("the"))
			b[i] = 'T'
			err = os.WriteFile(batches, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		rest := p.Phases[1:]
		if damage == "flipped" {
			sign := p.Phases[2]
			if !strings.HasSuffix(sign.Name, "minhash-sign") {
				t.Fatalf("phase 2 is %s", sign.Name)
			}
			runPhases(t, p, p.Phases[1:2])
			runPhases(t, p, []Phase{{Name: sign.Name, Kind: sign.Kind, Stage: sign.Stage, Tasks: 1}})
			_, err := RunTask(context.Background(), p, sign.Name, 1, testVersion, "")
			if !errors.Is(err, pipeline.ErrSpill) && (err == nil || !strings.Contains(err.Error(), pipeline.ErrSpill.Error())) {
				t.Fatalf("a damaged spill replayed: %v", err)
			}
			if _, err := os.Stat(p.spillPath(p.Phases[0], 1, pipeline.SpillIndexName)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the damaged spill's index stays: %v", err)
			}
			rest = p.Phases[2:]
		}
		for _, ph := range rest {
			for i := 0; i < ph.Tasks; i++ {
				if _, err := RunTask(context.Background(), p, ph.Name, i, testVersion, ""); err != nil {
					t.Fatalf("%s: task %s/%d: %v", damage, ph.Name, i, err)
				}
			}
		}
		datasettest.Compare(t, damage, datasettest.Read(t, out), want)
	}
}

// readIndex reads the index of shard s's spill.
func readIndex(t *testing.T, p *Plan, s int) pipeline.SpillIndex {
	t.Helper()
	path := p.spillPath(p.Phases[0], s, pipeline.SpillIndexName)
	b, _, err := storeOf(path).read(path)
	if err != nil {
		t.Fatalf("shard %d's spill: %v", s, err)
	}
	var idx pipeline.SpillIndex
	if err := json.Unmarshal(b, &idx); err != nil {
		t.Fatal(err)
	}
	return idx
}

// The spill keeps what the stages before the first global stage made of
// each batch; when one of them reports what it saw (tokens), which a
// replay would not run, it keeps the batches as read, and the reports
// are still those of one process.
func TestASpillKeepsTheStagesBeforeTheFirstGlobalStageUnlessOneReports(t *testing.T) {
	inputs := jsonlCorpus(t)
	cfg := baseConfig(inputs)
	for _, c := range []struct {
		text  []byte
		after int
	}{
		{spillPipeline, 2},
		{onePipeline("normalize: {}", "tokens: {group_by: [n]}", "dedup_exact: {}", "dedup_minhash: {threshold: 0.7, num_perm: 64, bands: 16, ngram: 3}"), 0},
	} {
		dir := t.TempDir()
		runSingle(t, c.text, cfg, filepath.Join(dir, "single"))
		want := datasettest.Read(t, filepath.Join(dir, "single"))
		out := filepath.Join(dir, "out")
		p, _ := newPlan(t, c.text, cfg, out, 2)
		p.KeepWork = true
		runPhases(t, p, p.Phases)
		if idx := readIndex(t, p, 1); idx.After != c.after || len(idx.Stages) != c.after {
			t.Errorf("the spill keeps the results of %d stages (%v), want %d", idx.After, idx.Stages, c.after)
		}
		got := datasettest.Read(t, out)
		datasettest.Compare(t, "replayed", got, want)
		if c.after == 0 {
			if g, w := stageReport(t, got.Manifest, "tokens"), stageReport(t, want.Manifest, "tokens"); !reflect.DeepEqual(g, w) {
				t.Errorf("tokens report\n%v\none process\n%v", g, w)
			}
		}
	}
}

// On an object-store output the spill is uploaded with the phase's other
// intermediates; the later phases read it from the store (no task
// downloads another shard's) and not the input.
func TestOnABucketLaterPhasesReplayTheSpilledInput(t *testing.T) {
	s := s3test.Start(t)
	inputs := jsonlCorpus(t)
	cfg, want := spillCase(t, inputs)
	out := s.URL("out")
	p, err := NewPlan(context.Background(), "pipeline.yaml", spillPipeline, cfg, out, 3)
	if err != nil {
		t.Fatal(err)
	}
	p.Version = testVersion
	if err := p.WritePlan(out + "/" + PlanFile); err != nil {
		t.Fatal(err)
	}
	if p, err = ReadPlan(out + "/" + PlanFile); err != nil {
		t.Fatal(err)
	}
	runPhases(t, p, p.Phases[:1])
	for sh := range p.Shards {
		if idx := readIndex(t, p, sh); idx.After != 2 {
			t.Errorf("shard %d: the spill keeps %d stages", sh, idx.After)
		}
	}
	runPhasesOnGarbledInput(t, p, p.Phases[1:], inputs)
	datasettest.Compare(t, "on a bucket", datasettest.Read(t, filepath.Join(s.Dir, s.Bucket, "out")), want)
	for _, k := range s.Keys(t, "out/_work/") {
		if !strings.HasPrefix(k, "out/_work/markers/") {
			t.Errorf("%s stays after the merge", k)
		}
	}
}
