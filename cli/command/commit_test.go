package command

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/s3test"
	"github.com/sluice-data/sluice/io/dataset"
)

// sluiceInterrupted runs the command line in-process and interrupts it
// (cancels its context, as SIGINT does) when its output reaches step.
func sluiceInterrupted(t *testing.T, step dataset.CommitStep, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = dataset.WithCommitHook(ctx, func(s dataset.CommitStep, _ string) {
		if s == step {
			cancel()
		}
	})
	var out, errb bytes.Buffer
	code := mainContext(ctx, append([]string{"sluice"}, args...), strings.NewReader(""), &out, &errb)
	if ctx.Err() == nil {
		t.Fatalf("sluice %v never reached step %d", args, step)
	}
	return code, errb.String()
}

// TestInterruptAtEveryStepOfTheCommit interrupts an overwrite at
// each step: before the commit the previous output stays as it was (exit
// 130); once the commit began it is finished and the exit code says so
// (0), never "any earlier output left as it was".
func TestInterruptAtEveryStepOfTheCommit(t *testing.T) {
	for _, c := range []struct {
		name string
		step dataset.CommitStep
		code int
		say  string
	}{
		{"before the run wrote", dataset.StepBegun, 130, "earlier output left as it was"},
		{"as the commit was to begin", dataset.StepCommit, 130, "earlier output left as it was"},
		{"with the files moved, the manifest not written", dataset.StepMoved, 0, "interrupted after the output was complete"},
		{"once the commit completed", dataset.StepCommitted, 0, "interrupted after the output was complete"},
	} {
		for _, out := range []string{"ds", "one.parquet"} {
			t.Run(c.name+"/"+out, func(t *testing.T) {
				t.Chdir(t.TempDir())
				writeFiles(t, map[string]string{"a.jsonl": rowsA, "c.jsonl": rowsC})
				if code, o, e := sluiceIn(t, "", "convert", "c.jsonl", "-o", out); code != 0 {
					t.Fatalf("first run: %d %s %s", code, o, e)
				}
				before := snapshot(t, ".")
				code, stderr := sluiceInterrupted(t, c.step, "convert", "a.jsonl", "-o", out, "--overwrite")
				if code != c.code || !strings.Contains(stderr, c.say) {
					t.Fatalf("exit %d, want %d; stderr %q, want it to say %q", code, c.code, stderr, c.say)
				}
				if c.code == 130 {
					if after := snapshot(t, "."); after != before {
						t.Errorf("the earlier output changed:\nbefore %s\nafter  %s", before, after)
					}
				} else {
					if strings.Contains(stderr, "left as it was") {
						t.Errorf("stderr %q claims the earlier output was left", stderr)
					}
					m, err := dataset.ReadManifestAt(dataset.ParseTarget(out).SidePath("manifest.json"))
					if err != nil || m.Counts.RowsOut != 3 {
						t.Fatalf("the new output is not whole: %+v, %v", m, err)
					}
					if code, o, e := sluiceIn(t, "", "verify", out); code != 0 {
						t.Errorf("verify: %d %s %s", code, o, e)
					}
				}
				leftovers(t, ".")
			})
		}
	}
}

// TestInterruptWhileAReportIsCommitted: a page is an output like a
// dataset: interrupted before its commit the earlier page stays (130),
// during it the new page is finished (0).
func TestInterruptWhileAReportIsCommitted(t *testing.T) {
	for _, c := range []struct {
		step dataset.CommitStep
		code int
	}{{dataset.StepBegun, 130}, {dataset.StepCommit, 130}, {dataset.StepMoved, 0}} {
		t.Chdir(t.TempDir())
		writeFiles(t, map[string]string{"a.jsonl": rowsA, "c.jsonl": rowsC})
		for _, args := range [][]string{{"convert", "c.jsonl", "-o", "c"}, {"convert", "a.jsonl", "-o", "a"}, {"report", "c", "-o", "r.html"}} {
			if code, o, e := sluiceIn(t, "", args...); code != 0 {
				t.Fatalf("%v: %d %s %s", args, code, o, e)
			}
		}
		before := snapshot(t, ".")
		code, stderr := sluiceInterrupted(t, c.step, "report", "a", "-o", "r.html", "--overwrite")
		if code != c.code {
			t.Fatalf("step %d: exit %d, want %d: %s", c.step, code, c.code, stderr)
		}
		page, _ := os.ReadFile("r.html")
		switch after := snapshot(t, "."); {
		case c.code == 130 && after != before:
			t.Errorf("step %d: files changed:\nbefore %s\nafter  %s", c.step, before, after)
		case c.code == 0 && (!strings.Contains(string(page), "a.jsonl") || strings.Contains(string(page), "c.jsonl")):
			t.Errorf("step %d: the page is not the new one", c.step)
		}
		leftovers(t, ".")
	}
}

// TestANonFiniteThresholdNeverCostsTheOldDataset: a NaN threshold is
// refused up front (exit 2) or, if it reaches the commit, the manifest
// cannot be encoded and the commit stops before it touches the previous
// dataset (exit 1): either way the dataset stays byte for byte.
func TestANonFiniteThresholdNeverCostsTheOldDataset(t *testing.T) {
	t.Chdir(t.TempDir())
	writeFiles(t, map[string]string{"a.jsonl": rowsA})
	if code, o, e := sluiceIn(t, "", "clean", "a.jsonl", "-o", "o", "--lang", "en"); code != 0 {
		t.Fatalf("first run: %d %s %s", code, o, e)
	}
	before := snapshot(t, "o")
	code, _, stderr := sluiceIn(t, "", "clean", "a.jsonl", "-o", "o", "--overwrite", "--lang", "en", "--lang-min-score", "NaN")
	if code != 2 && code != 1 {
		t.Fatalf("exit %d, want 2 (refused) or 1 (the commit failed): %s", code, stderr)
	}
	if after := snapshot(t, "o"); after != before {
		t.Errorf("the dataset changed:\nbefore %s\nafter  %s", before, after)
	}
	if code, o, e := sluiceIn(t, "", "verify", "o"); code != 0 {
		t.Errorf("verify after the refused run: %d %s %s", code, o, e)
	}
	leftovers(t, ".")
}

// TestLaunchIntoAFolderSluiceDidNotWrite: a launch into a user's
// folder is a refused output (exit 2), before any work, the folder left.
func TestLaunchIntoAFolderSluiceDidNotWrite(t *testing.T) {
	t.Chdir(t.TempDir())
	writeFiles(t, map[string]string{"a.jsonl": rowsA, "p.yaml": "input: [a.jsonl]\nstages:\n  - dedup_exact: {}\n",
		"userdir/notes.md": "mine", "userdir/src/main.go": "package main\n"})
	before := snapshot(t, "userdir")
	for _, extra := range [][]string{nil, {"--overwrite"}} {
		code, _, stderr := sluiceIn(t, "", append([]string{"launch", "p.yaml", "-o", "userdir", "--tasks", "2"}, extra...)...)
		if code != 2 || !strings.Contains(stderr, "not a sluice dataset") {
			t.Errorf("launch %v into a user folder: exit %d, %s", extra, code, stderr)
		}
	}
	if after := snapshot(t, "userdir"); after != before {
		t.Errorf("the folder changed:\nbefore %s\nafter  %s", before, after)
	}
}

// TestLaunchOverwriteKeepsUserFilesInItsFolders: --overwrite removes
// what the old manifest and the launch layout list; a user's log in
// _logs and notes in _work stay.
func TestLaunchOverwriteKeepsUserFilesInItsFolders(t *testing.T) {
	bin := sluiceBinary(t)
	t.Chdir(t.TempDir())
	writeFiles(t, map[string]string{"a.jsonl": manyRows(200), "p.yaml": "input: [a.jsonl]\nstages:\n  - dedup_exact: {}\n"})
	launch := []string{"launch", "p.yaml", "-o", "out", "--tasks", "2", "--sluice-binary", bin, "--no-progress"}
	if code, o, e := sluiceIn(t, "", launch...); code != 0 {
		t.Fatalf("first launch: %d %s %s", code, o, e)
	}
	mine := map[string]string{"out/_logs/my-run.log": "my notes of the run", "out/_work/notes.txt": "mine", "out/notes.md": "mine"}
	writeFiles(t, mine)
	if code, o, e := sluiceIn(t, "", append(launch, "--overwrite", "--tasks", "3")...); code != 0 {
		t.Fatalf("launch --overwrite: %d %s %s", code, o, e)
	}
	for f, want := range mine {
		if b, err := os.ReadFile(f); err != nil || string(b) != want {
			t.Errorf("%s after launch --overwrite: %q, %v", f, b, err)
		}
	}
	m, err := dataset.ReadManifest("out/manifest.json")
	if err != nil || m.Counts.RowsIn != 200 {
		t.Fatalf("the new launch's manifest: %+v, %v", m, err)
	}
	if logs, _ := filepath.Glob("out/_logs/*.attempt-*.log"); len(logs) == 0 {
		t.Error("the new launch wrote no task log")
	}
}

// TestInterruptDuringAnObjectStoreCommit: on an object store the
// commit uploads and copies what the run staged; an interrupt then lets
// it finish (exit 0, the new dataset whole), one before it leaves the
// previous dataset as it was (exit 130).
func TestInterruptDuringAnObjectStoreCommit(t *testing.T) {
	s := s3test.Start(t)
	t.Chdir(t.TempDir())
	writeFiles(t, map[string]string{"a.jsonl": rowsA, "c.jsonl": rowsC})
	for i, c := range []struct {
		step dataset.CommitStep
		code int
	}{{dataset.StepCommit, 130}, {dataset.StepMoved, 0}} {
		out := s.URL(fmt.Sprintf("ds-%d", i))
		if code, o, e := sluiceIn(t, "", "convert", "c.jsonl", "-o", out); code != 0 {
			t.Fatalf("first run: %d %s %s", code, o, e)
		}
		before := snapshot(t, bucketDir(s, fmt.Sprintf("ds-%d", i)))
		code, stderr := sluiceInterrupted(t, c.step, "convert", "a.jsonl", "-o", out, "--overwrite")
		if code != c.code {
			t.Fatalf("step %d: exit %d, want %d: %s", c.step, code, c.code, stderr)
		}
		m, err := dataset.ReadManifestAt(out + "/manifest.json")
		switch {
		case err != nil:
			t.Errorf("step %d: no manifest: %v", c.step, err)
		case c.code == 130:
			if after := snapshot(t, bucketDir(s, fmt.Sprintf("ds-%d", i))); after != before {
				t.Errorf("step %d: the earlier dataset changed:\nbefore %s\nafter  %s", c.step, before, after)
			}
		case m.Counts.RowsOut != 3 || !strings.Contains(stderr, "output was complete"):
			t.Errorf("step %d: counts %+v, stderr %s", c.step, m.Counts, stderr)
		}
		if keys := s.Keys(t, fmt.Sprintf("ds-%d/.", i)); len(keys) > 0 {
			t.Errorf("step %d: left in the bucket: %v", c.step, keys)
		}
	}
}
