package dataset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/sluice-data/sluice/io/layout"
)

// tree describes every file under root with its size and hash.
func tree(t *testing.T, root string) string {
	t.Helper()
	var lines []string
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		rel, _ := filepath.Rel(root, path)
		lines = append(lines, fmt.Sprintf("%s:%d:%x", rel, len(b), xxhash.Sum64(b)))
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, " ")
}

// datasetWithOld commits a first version of a dataset directory and
// returns its target.
func datasetWithOld(t *testing.T) Target {
	t.Helper()
	target := Target{Path: filepath.Join(t.TempDir(), "ds"), Kind: Directory}
	if err := commitFiles(t, target, false, map[string]string{"data/part-00000.parquet": "old 0", "data/part-00001.parquet": "old 1"}); err != nil {
		t.Fatal(err)
	}
	return target
}

// stageNew begins an overwrite of target under ctx and stages one new
// part file.
func stageNew(t *testing.T, ctx context.Context, target Target) *Output {
	t.Helper()
	out, err := Begin(ctx, target, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(filepath.Join(out.Target().Path, "data", "part-00000.parquet"), []byte("new")); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCommitOfAManifestJSONCannotHoldLeavesTheOldOutput(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		target := datasetWithOld(t)
		before := tree(t, target.Path)
		out := stageNew(t, context.Background(), target)
		err := out.Commit(&Manifest{Tool: "sluice", Options: map[string]any{"lang": map[string]float64{"min_score": bad}}})
		out.Abort()
		if err == nil || !strings.Contains(err.Error(), "unsupported value") || !strings.Contains(err.Error(), "nothing was replaced") {
			t.Fatalf("%v: commit: %v", bad, err)
		}
		if after := tree(t, target.Path); after != before {
			t.Errorf("%v: the previous output changed:\nbefore %s\nafter  %s", bad, before, after)
		}
		if _, err := ReadManifest(filepath.Join(target.Path, layout.ManifestName)); err != nil {
			t.Errorf("%v: the previous manifest: %v", bad, err)
		}
	}
}

func TestCommitRefusesToBeginOnceInterrupted(t *testing.T) {
	target := datasetWithOld(t)
	before := tree(t, target.Path)
	ctx, cancel := context.WithCancel(context.Background())
	ctx, commits := WithCommits(ctx)
	out := stageNew(t, ctx, target)
	cancel()
	err := out.Commit(&Manifest{Tool: "sluice"})
	out.Abort()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("commit after the interrupt: %v", err)
	}
	if after := tree(t, target.Path); after != before {
		t.Errorf("the previous output changed:\nbefore %s\nafter  %s", before, after)
	}
	if len(commits.Completed())+len(commits.Unfinished()) != 0 {
		t.Errorf("commits recorded: %v %v", commits.Completed(), commits.Unfinished())
	}
}

func TestAnInterruptDuringTheCommitFinishesIt(t *testing.T) {
	for _, at := range []CommitStep{StepMoved, StepCommitted} {
		target := datasetWithOld(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		ctx = WithCommitHook(ctx, func(s CommitStep, path string) {
			if s == at && path == target.Path {
				cancel()
			}
		})
		ctx, commits := WithCommits(ctx)
		out := stageNew(t, ctx, target)
		if err := out.Commit(&Manifest{Tool: "sluice"}); err != nil {
			t.Fatalf("step %d: commit: %v", at, err)
		}
		if ctx.Err() == nil {
			t.Fatalf("step %d: the hook never ran", at)
		}
		m, err := ReadManifest(filepath.Join(target.Path, layout.ManifestName))
		if err != nil || strings.Join(m.Files, ",") != "data/part-00000.parquet" {
			t.Fatalf("step %d: manifest %+v, %v", at, m, err)
		}
		if got := tree(t, target.Path); !strings.Contains(got, "data/part-00000.parquet:3:") || strings.Contains(got, "part-00001") {
			t.Errorf("step %d: the new output is not whole: %s", at, got)
		}
		if done := commits.Completed(); len(done) != 1 || done[0] != target.Path || len(commits.Unfinished()) != 0 {
			t.Errorf("step %d: completed %v, unfinished %v", at, done, commits.Unfinished())
		}
	}
}

// TestOutputsOfOneRunCommitTogether: once the first output of a run (a
// dataset) began its commit, an interrupt does not stop the next one (its
// cluster table): the run's outputs are all new or all as they were.
func TestOutputsOfOneRunCommitTogether(t *testing.T) {
	first, second := datasetWithOld(t), datasetWithOld(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = WithCommitHook(ctx, func(s CommitStep, path string) {
		if s == StepCommitted && path == first.Path {
			cancel()
		}
	})
	ctx, commits := WithCommits(ctx)
	a, b := stageNew(t, ctx, first), stageNew(t, ctx, second)
	if err := a.Commit(&Manifest{Tool: "sluice"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(&Manifest{Tool: "sluice"}); err != nil {
		t.Fatalf("the second output of the run, after an interrupt during the first's commit: %v", err)
	}
	for _, target := range []Target{first, second} {
		if got := tree(t, target.Path); !strings.Contains(got, "data/part-00000.parquet:3:") || strings.Contains(got, "part-00001") {
			t.Errorf("%s is not the new output: %s", target.Path, got)
		}
	}
	if done := commits.Completed(); len(done) != 2 {
		t.Errorf("completed %v", done)
	}
}
