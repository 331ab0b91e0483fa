package scaleout

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sluice-data/sluice/internal/datasettest"
	"github.com/sluice-data/sluice/io/dataset"
)

// runMissing runs, in order, the tasks of p that are not done, and
// returns how many ran.
func runMissing(t *testing.T, p *Plan) int {
	t.Helper()
	n := 0
	for _, ph := range p.Phases {
		for i := 0; i < ph.Tasks; i++ {
			ran, err := RunTask(context.Background(), p, ph.Name, i, testVersion, "")
			if err != nil {
				t.Fatalf("task %s/%d: %v", ph.Name, i, err)
			}
			if ran {
				n++
			}
		}
	}
	return n
}

// workEntries lists what is under out/_work.
func workEntries(t *testing.T, out string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(out, "_work"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// The merge removes the intermediates once manifest.json is written and
// checked, and keeps the markers; when manifest.json is removed later,
// PrepareRelaunch makes the phases that wrote the intermediates run
// again, then the merge, and the manifest is the one written first.
func TestMergeRemovesTheIntermediatesAndARelaunchRemakesThem(t *testing.T) {
	dir := t.TempDir()
	cfg := baseConfig(scan(t, corpus(t, dir, 6, 20)))
	single := filepath.Join(dir, "single")
	runSingle(t, allPipeline, cfg, single)
	out := filepath.Join(dir, "out")
	p := runScaled(t, allPipeline, cfg, out, 3)
	if got := workEntries(t, out); !reflect.DeepEqual(got, []string{"markers"}) {
		t.Errorf("_work after the merge holds %v, want the markers alone", got)
	}
	if _, err := os.Stat(filepath.Join(out, "_work", "markers", workRemoved)); err != nil {
		t.Errorf("no record of the removal: %v", err)
	}
	first, err := dataset.ReadManifest(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Nothing to prepare while the manifest is there; nothing runs.
	if notes, err := p.PrepareRelaunch(); err != nil || len(notes) > 0 {
		t.Errorf("PrepareRelaunch of a complete output: %v, %v", notes, err)
	}
	if n := runMissing(t, p); n != 0 {
		t.Errorf("%d tasks ran again over a complete output", n)
	}

	if err := os.Remove(filepath.Join(out, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	sts := Status(p)
	if Complete(sts) || sts[len(sts)-1].Done != 0 {
		t.Errorf("status without manifest.json: the merge is done")
	}
	notes, err := p.PrepareRelaunch()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(notes, "\n")
	if len(notes) != 2 || !strings.Contains(text, "manifest.json is gone: the merge runs again") ||
		!strings.Contains(text, "s2-exact-map, s2-exact-reduce, s3-lines-map") || strings.Contains(text, "write") {
		t.Errorf("notes: %q", notes)
	}
	shards := len(p.Shards)
	sharded := 0
	for _, ph := range p.Phases {
		if ph.Kind != Write && ph.Kind != Merge {
			sharded += ph.Tasks
		}
	}
	if n := runMissing(t, p); n != sharded+1 {
		t.Errorf("%d tasks ran again, want the %d of the sharded stages and the merge (not the %d writes)", n, sharded+1, shards)
	}
	again, err := dataset.ReadManifest(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if again.Counts != first.Counts || !reflect.DeepEqual(again.Outputs, first.Outputs) ||
		!reflect.DeepEqual(again.Stages, first.Stages) || !reflect.DeepEqual(again.Files, first.Files) {
		t.Errorf("the manifest merged again differs:\n%+v\nfirst\n%+v", again, first)
	}
	datasettest.Compare(t, "merged again", datasettest.Read(t, out), datasettest.Read(t, single))
	if got := workEntries(t, out); !reflect.DeepEqual(got, []string{"markers"}) {
		t.Errorf("_work after the second merge holds %v", got)
	}
}

// With KeepWork the intermediates stay, and a removed manifest.json only
// makes the merge run again.
func TestKeepWorkKeepsTheIntermediates(t *testing.T) {
	dir := t.TempDir()
	cfg := baseConfig(scan(t, corpus(t, dir, 4, 20)))
	out := filepath.Join(dir, "out")
	p, path := newPlan(t, allPipeline, cfg, out, 2)
	p.KeepWork = true
	if err := p.WritePlan(path); err != nil {
		t.Fatal(err)
	}
	runPhases(t, p, p.Phases)
	got := workEntries(t, out)
	for _, ph := range p.Phases[:len(p.Phases)-2] {
		if !strings.Contains(strings.Join(got, " "), ph.Name) {
			t.Errorf("--keep-work: no %s intermediates in _work: %v", ph.Name, got)
		}
	}
	os.Remove(filepath.Join(out, "manifest.json"))
	notes, err := p.PrepareRelaunch()
	if err != nil || len(notes) != 1 {
		t.Errorf("notes %q, %v: want the merge alone to run again", notes, err)
	}
	if n := runMissing(t, p); n != 1 {
		t.Errorf("%d tasks ran again, want the merge alone", n)
	}
}

// The merged manifest is read back and checked against the shards' and
// the files on disk.
func TestVerifyMerged(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	p := runScaled(t, exactPipeline, baseConfig(scan(t, corpus(t, dir, 4, 20))), out, 2)
	if err := p.verifyMerged(); err != nil {
		t.Fatalf("a merge just written: %v", err)
	}
	m, _ := dataset.ReadManifest(filepath.Join(out, "manifest.json"))
	part := m.Outputs[0].Path
	b, _ := os.ReadFile(part)
	if err := os.WriteFile(part, b[:len(b)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := p.verifyMerged(); err == nil || !strings.Contains(err.Error(), part) || !strings.Contains(err.Error(), "bytes") {
		t.Errorf("a part cut short: %v", err)
	}
	os.WriteFile(part, b, 0o644)
	shard := filepath.Join(out, "manifest-00001.json")
	sm, _ := dataset.ReadManifest(shard)
	sm.Counts.RowsIn++
	sm.Counts.RowsOut++
	if err := dataset.WriteManifest(shard, sm); err != nil {
		t.Fatal(err)
	}
	if err := p.verifyMerged(); err == nil || !strings.Contains(err.Error(), "counts") {
		t.Errorf("a shard manifest that no longer adds up to the merged one: %v", err)
	}
}

// A plan of fewer shards than tasks says why.
func TestShardNote(t *testing.T) {
	dir := t.TempDir()
	in := corpus(t, dir, 2, 20)
	var gz []string
	for _, f := range scan(t, in) {
		b, _ := os.ReadFile(f.Path)
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		w.Write(b)
		w.Close()
		path := filepath.Join(dir, filepath.Base(f.Path)+".gz")
		os.WriteFile(path, buf.Bytes(), 0o644)
		gz = append(gz, path)
	}
	p, _ := newPlan(t, exactPipeline, baseConfig(scan(t, gz...)), filepath.Join(dir, "a"), 5)
	note := p.ShardNote(5)
	for _, want := range []string{"--tasks 5, but the plan has 2 shards", "2 compressed JSONL files (gzip, zstd) are not cut", "split them into more files"} {
		if !strings.Contains(note, want) {
			t.Errorf("note %q lacks %q", note, want)
		}
	}
	if note := p.ShardNote(2); note != "" {
		t.Errorf("as many shards as tasks: %q", note)
	}
	// Uncompressed, the same files are cut into as many shards as tasks.
	if p, _ := newPlan(t, exactPipeline, baseConfig(scan(t, in)), filepath.Join(dir, "c"), 5); len(p.Shards) != 5 || p.ShardNote(5) != "" {
		t.Errorf("2 JSONL files for 5 tasks: %d shards, note %q", len(p.Shards), p.ShardNote(5))
	}
	// One Parquet file of 2 row groups makes 2 slices at most.
	pq := toParquet(t, in, dir, 1000)
	files := scan(t, pq)
	p, _ = newPlan(t, exactPipeline, baseConfig(files[:1]), filepath.Join(dir, "b"), 4)
	if note := p.ShardNote(4); !strings.Contains(note, fmt.Sprintf("but the plan has %d", len(p.Shards))) ||
		!strings.Contains(note, "1 Parquet file is cut only between row groups") || !strings.Contains(note, "smaller row groups") {
		t.Errorf("Parquet: %d shards, note %q", len(p.Shards), note)
	}
}

// The merged manifest times the whole launch, from the plan on: its
// started is the plan's and its wall_seconds hold every phase.
func TestMergedManifestTimesTheWholeLaunch(t *testing.T) {
	dir := t.TempDir()
	cfg := baseConfig(scan(t, corpus(t, dir, 3, 10)))
	cfg.Started = time.Now().Add(-time.Hour)
	out := filepath.Join(dir, "out")
	p, _ := newPlan(t, exactPipeline, cfg, out, 2)
	runPhases(t, p, p.Phases)
	m, err := dataset.ReadManifest(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.WallSecs < 3600 || m.Started != cfg.Started.UTC().Format(time.RFC3339) {
		t.Fatalf("merged manifest started %s, %.0f s; want %s and at least an hour", m.Started, m.WallSecs, cfg.Started.UTC().Format(time.RFC3339))
	}
}
