package scaleout

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/datasettest"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/pipeline"
)

// markerFile is where the marker of kind (done, running, failed) of task
// i of a phase lives.
func markerFile(out, phase string, i int, kind string) string {
	return filepath.Join(out, "_work", "markers", fmt.Sprintf("%s-%05d.%s", phase, i, kind))
}

// writeMarker writes a marker as a task would.
func writeMarkerFile(t *testing.T, path string, m Marker) {
	t.Helper()
	b, _ := json.Marshal(m)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run true: %v", err)
	}
	return cmd.Process.Pid
}

// strayFiles lists the temporary files under dir.
func strayFiles(dir string) []string {
	var found []string
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && strings.Contains(info.Name(), ".tmp-") {
			found = append(found, path)
		}
		return nil
	})
	return found
}

// fileHashes returns the xxhash of every data and removed part the
// merged manifest of out lists, by path relative to out.
func fileHashes(t *testing.T, out string) map[string]string {
	t.Helper()
	m, err := dataset.ReadManifest(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range append(append([]dataset.OutputFile(nil), m.Outputs...), m.Removed...) {
		rel, _ := filepath.Rel(out, f.Path)
		got[rel] = f.Hash
	}
	return got
}

func TestADoneTaskDoesNothing(t *testing.T) {
	dir := t.TempDir()
	cfg := baseConfig(scan(t, corpus(t, dir, 4, 20)))
	out := filepath.Join(dir, "out")
	p := runScaled(t, exactPipeline, cfg, out, 2)
	before, err := os.ReadFile(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Remove a part: a task that is done does not notice, nor rewrite it.
	part := filepath.Join(out, "quarantine-00000.jsonl")
	if err := os.Remove(part); err != nil {
		t.Fatal(err)
	}
	for _, ph := range p.Phases {
		for i := 0; i < ph.Tasks; i++ {
			ran, err := RunTask(context.Background(), p, ph.Name, i, testVersion, "")
			if ran || err != nil {
				t.Fatalf("task %s/%d done already: ran %v, %v", ph.Name, i, ran, err)
			}
		}
	}
	after, _ := os.ReadFile(filepath.Join(out, "manifest.json"))
	if !bytes.Equal(before, after) {
		t.Error("tasks already done rewrote manifest.json")
	}
	if _, err := os.Stat(part); !os.IsNotExist(err) {
		t.Errorf("a write task already done rewrote %s", part)
	}
	if !Complete(Status(p)) {
		t.Error("Status: not complete after every task ran")
	}
}

// A task killed midway leaves a running marker and partial files; the
// next RunTask of it removes them and redoes it, and the dataset is the
// one an uninterrupted run writes, byte for byte.
func TestAKilledTaskIsRedoneCleanly(t *testing.T) {
	dir := t.TempDir()
	cfg := baseConfig(scan(t, corpus(t, dir, 6, 30)))
	whole := filepath.Join(dir, "whole")
	runScaled(t, allPipeline, cfg, whole, 3)

	out := filepath.Join(dir, "killed")
	p, _ := newPlan(t, allPipeline, cfg, out, 3)
	host, _ := os.Hostname()
	pid := deadPID(t)
	junk := map[string]string{}
	plant := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		junk[path] = text
	}
	for _, ph := range p.Phases {
		if ph.Name == "merge" {
			break
		}
		// Task 1 of each phase dies once midway, before its own files are
		// whole: a running marker of a process that is gone, a temporary
		// file and a file that looks whole, but is not.
		for i := 0; i < ph.Tasks; i++ {
			if i != min(1, ph.Tasks-1) {
				continue
			}
			work := filepath.Join(out, "_work", ph.Name, fmt.Sprintf("%05d", i))
			plant(filepath.Join(work, ".part.parquet.tmp-123"), "half a file")
			plant(filepath.Join(work, "leftover.parquet"), "not parquet")
			if ph.Name == "write" {
				plant(filepath.Join(out, "data", fmt.Sprintf("part-%05d-00007.parquet", i)), "an earlier attempt's part")
				plant(filepath.Join(out, "removed", fmt.Sprintf("part-%05d-00003.parquet", i)), "an earlier attempt's part")
				plant(filepath.Join(out, fmt.Sprintf("quarantine-%05d.jsonl", i)), "{\"line\": \"of an earlier attempt\"}\n")
				plant(filepath.Join(out, fmt.Sprintf("manifest-%05d.json", i)), "{\"counts\": {\"rows_in\": 1}}")
			}
			writeMarkerFile(t, markerFile(out, ph.Name, i, "running"), Marker{Phase: ph.Name, Index: i, Host: host, PID: pid, Started: now()})
			sts := Status(p)
			var st PhaseStatus
			for _, s := range sts {
				if s.Phase.Name == ph.Name {
					st = s
				}
			}
			if len(st.Interrupted) != 1 || st.Interrupted[0].Index != i || len(st.Running) != 0 {
				t.Fatalf("%s: status %+v, want task %d interrupted", ph.Name, st, i)
			}
			var b bytes.Buffer
			PrintStatus(&b, sts)
			if !strings.Contains(b.String(), fmt.Sprintf("task %d interrupted on %s (pid %d, since ", i, host, pid)) ||
				!strings.Contains(b.String(), "the process is gone; launch again to rerun it") ||
				!strings.HasSuffix(headerLine(b.String(), ph.Name), " interrupted") {
				t.Errorf("%s: status does not show the interrupted task:\n%s", ph.Name, b.String())
			}
		}
		runPhases(t, p, []Phase{ph})
		for path, text := range junk {
			if b, err := os.ReadFile(path); err == nil && string(b) == text {
				t.Errorf("%s: %s is still there after the task was redone", ph.Name, path)
			}
		}
		clear(junk)
	}
	runPhases(t, p, p.Phases[len(p.Phases)-1:])
	if stray := strayFiles(out); len(stray) > 0 {
		t.Errorf("partial files left: %v", stray)
	}
	if running, _ := filepath.Glob(filepath.Join(out, "_work", "markers", "*.running")); len(running) > 0 {
		t.Errorf("running markers left: %v", running)
	}
	datasettest.Compare(t, "redone", datasettest.Read(t, out), datasettest.Read(t, whole))
	a, b := fileHashes(t, out), fileHashes(t, whole)
	for k, v := range b {
		if a[k] != v {
			t.Errorf("%s: hash %s, the uninterrupted run's %s", k, a[k], v)
		}
	}
	if len(a) != len(b) {
		t.Errorf("files %v, the uninterrupted run's %v", a, b)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "*", "part-*.parquet"))
	if len(parts) != len(a) {
		t.Errorf("%d part files, the manifest lists %d", len(parts), len(a))
	}
}

// headerLine returns the line of status text that heads phase.
func headerLine(text, phase string) string {
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, phase+" ") {
			return line
		}
	}
	return ""
}

// A failed task leaves a failed marker that status reports; running it
// again clears it.
func TestStatusWhilePartlyDone(t *testing.T) {
	dir := t.TempDir()
	cfg := baseConfig(scan(t, corpus(t, dir, 4, 20)))
	out := filepath.Join(dir, "out")
	p, _ := newPlan(t, exactPipeline, cfg, out, 2)
	status := func() ([]PhaseStatus, string) {
		sts := Status(p)
		var b bytes.Buffer
		PrintStatus(&b, sts)
		return sts, b.String()
	}
	sts, text := status()
	if Complete(sts) || len(sts) != len(p.Phases) {
		t.Fatalf("fresh plan: complete %v, %d phases", Complete(sts), len(sts))
	}
	for _, st := range sts {
		if st.Done != 0 || len(st.Running)+len(st.Failed)+len(st.Interrupted) > 0 {
			t.Errorf("fresh plan: %+v", st)
		}
	}
	if strings.Count(text, "waiting") != len(p.Phases) {
		t.Errorf("fresh plan, every phase should be waiting:\n%s", text)
	}

	// Map task 0 fails (cancelled), task 1 runs on another host.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if ran, err := RunTask(ctx, p, "s2-exact-map", 0, testVersion, "/logs/map-0.log"); ran || err == nil {
		t.Fatalf("a cancelled task: ran %v, %v", ran, err)
	}
	writeMarkerFile(t, markerFile(out, "s2-exact-map", 1, "running"), Marker{Phase: "s2-exact-map", Index: 1, Host: "node-7", PID: 4242, Started: "2024-01-02T03:04:05Z"})
	sts, text = status()
	m := sts[0]
	if m.Done != 0 || len(m.Failed) != 1 || m.Failed[0].Index != 0 || !strings.Contains(m.Failed[0].Error, "cancel") ||
		len(m.Running) != 1 || m.Running[0].Host != "node-7" || len(m.Interrupted) != 0 {
		t.Errorf("map phase status %+v", m)
	}
	for _, want := range []string{"failed", "task 0 failed at", "; log /logs/map-0.log", "task 1 running on node-7 (pid 4242) since 2024-01-02T03:04:05Z"} {
		if !strings.Contains(text, want) {
			t.Errorf("status lacks %q:\n%s", want, text)
		}
	}

	// Both map tasks run (the failed marker goes): the map phase is
	// complete, the reduce running.
	os.Remove(markerFile(out, "s2-exact-map", 1, "running"))
	runPhases(t, p, p.Phases[:1])
	runPhases(t, p, []Phase{{Name: "s2-exact-reduce", Tasks: 1}})
	if _, err := os.Stat(markerFile(out, "s2-exact-map", 0, "failed")); !os.IsNotExist(err) {
		t.Errorf("the failed marker is still there once the task succeeded: %v", err)
	}
	sts, text = status()
	if sts[0].Done != 2 || len(sts[0].Failed) != 0 || sts[1].Done != 1 || Complete(sts) {
		t.Errorf("status after the map: %+v", sts[:2])
	}
	lines := strings.Split(strings.TrimSpace(text), "\n")
	// A phase with done tasks ends with their times, after its state.
	if len(lines) != len(p.Phases) || !strings.Contains(lines[0], "2/2") || !strings.Contains(lines[0], "interrupted  complete  (task time ") ||
		!strings.Contains(lines[1], "1/2") || !strings.Contains(lines[1], "interrupted  waiting  (task time ") || !strings.HasSuffix(lines[2], "waiting") {
		t.Errorf("status after the map:\n%s", text)
	}
	if ran, err := RunTask(context.Background(), p, "s2-exact-reduce", 1, testVersion, ""); !ran || err != nil {
		t.Fatal(ran, err)
	}
	runPhases(t, p, p.Phases[2:])
	sts, text = status()
	if !Complete(sts) || strings.Count(text, "complete") != len(p.Phases) {
		t.Errorf("status when done:\n%s", text)
	}
}

// The merge sums the shard manifests, and refuses shard manifests that
// are missing or whose counts do not add up.
func TestMergeChecksTheShardManifests(t *testing.T) {
	dir := t.TempDir()
	cfg := baseConfig(scan(t, corpus(t, dir, 6, 20)))
	out := filepath.Join(dir, "out")
	p := runScaled(t, exactPipeline, cfg, out, 3)
	merged, err := dataset.ReadManifest(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum dataset.Counts
	var inputs, outputs int
	for s := range p.Shards {
		m, err := dataset.ReadManifest(filepath.Join(out, fmt.Sprintf("manifest-%05d.json", s)))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Counts.Check(); err != nil {
			t.Errorf("shard %d: %v", s, err)
		}
		c := m.Counts
		sum.RowsIn += c.RowsIn
		sum.RowsOut += c.RowsOut
		sum.Removed += c.Removed
		sum.Quarantined += c.Quarantined
		sum.UTF8Repaired += c.UTF8Repaired
		sum.MissingText += c.MissingText
		inputs += len(m.Inputs)
		outputs += len(m.Outputs)
		if got := len(p.shardInputs(s)); len(m.Inputs) != got {
			t.Errorf("shard %d's manifest lists %d inputs, the shard has %d", s, len(m.Inputs), got)
		}
	}
	if merged.Counts != sum || sum.Quarantined != 1 || sum.UTF8Repaired != 1 || sum.Removed == 0 {
		t.Errorf("merged counts %+v, the shards' sum %+v", merged.Counts, sum)
	}
	if len(merged.Inputs) != inputs || len(merged.Outputs) != outputs || len(merged.Inputs) != len(p.Inputs) {
		t.Errorf("merged: %d inputs, %d outputs; the shards %d and %d", len(merged.Inputs), len(merged.Outputs), inputs, outputs)
	}
	// The merged manifest claims the dataset's files: parts, shard
	// manifests and quarantines.
	var claimed, onDisk []string
	for _, f := range merged.Files {
		if !strings.HasPrefix(f, "_") {
			claimed = append(claimed, f)
		}
	}
	for _, pattern := range []string{"data/*", "manifest-*.json", "quarantine-*.jsonl", "removed/*"} {
		found, _ := filepath.Glob(filepath.Join(out, pattern))
		for _, f := range found {
			rel, _ := filepath.Rel(out, f)
			onDisk = append(onDisk, rel)
		}
	}
	if !reflect.DeepEqual(claimed, onDisk) || len(onDisk) != outputs+len(merged.Removed)+2*len(p.Shards) {
		t.Errorf("the merged manifest claims %v; the dataset's files are %v", claimed, onDisk)
	}

	remerge := func() error {
		t.Helper()
		os.Remove(markerFile(out, "merge", 0, "done"))
		_, err := RunTask(context.Background(), p, "merge", 0, testVersion, "")
		return err
	}
	shard1 := filepath.Join(out, "manifest-00001.json")
	good, err := os.ReadFile(shard1)
	if err != nil {
		t.Fatal(err)
	}
	// edit rewrites shard 1's manifest; fn changes its members.
	edit := func(fn func(m map[string]any)) {
		t.Helper()
		var raw map[string]json.RawMessage
		json.Unmarshal(good, &raw)
		m := map[string]any{}
		for k, v := range raw {
			var x any
			json.Unmarshal(v, &x)
			m[k] = x
		}
		fn(m)
		// Members left alone keep their bytes (the merge compares the
		// schemas' bytes).
		var b bytes.Buffer
		b.WriteString("{")
		for k, v := range m {
			if b.Len() > 1 {
				b.WriteString(",")
			}
			key, _ := json.Marshal(k)
			b.Write(append(key, ':'))
			if x, _ := json.Marshal(v); !bytes.Equal(x, mustCompact(raw[k])) {
				b.Write(x)
			} else {
				b.Write(raw[k])
			}
		}
		b.WriteString("}")
		if err := os.WriteFile(shard1, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		spoil func()
		want  []string
	}{
		{"counts do not add up", func() {
			edit(func(m map[string]any) {
				m["counts"].(map[string]any)["rows_out"] = m["counts"].(map[string]any)["rows_out"].(float64) + 1
			})
		}, []string{shard1, "do not add up"}},
		{"missing", func() { os.Remove(shard1) }, []string{shard1}},
		{"not JSON", func() { os.WriteFile(shard1, []byte("{"), 0o644) }, []string{shard1}},
		{"an input missing", func() {
			edit(func(m map[string]any) { m["inputs"] = m["inputs"].([]any)[1:] })
		}, []string{"inputs"}},
		{"another schema", func() {
			edit(func(m map[string]any) { m["schema"] = map[string]any{"other": "string"} })
		}, []string{shard1, "schema"}},
		{"a stage missing", func() {
			edit(func(m map[string]any) { m["stages"] = m["stages"].([]any)[1:] })
		}, []string{shard1, "stages"}},
	}
	for _, c := range cases {
		c.spoil()
		err := remerge()
		for _, want := range c.want {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: merge %v, want an error with %q", c.name, err, want)
			}
		}
		sts := Status(p)
		if last := sts[len(sts)-1]; err != nil && (len(last.Failed) != 1 || last.Failed[0].Error != err.Error()) {
			t.Errorf("%s: status of the failed merge %+v", c.name, last)
		}
		if err := os.WriteFile(shard1, good, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := remerge(); err != nil {
		t.Fatalf("merge once the shard manifests are whole again: %v", err)
	}
	again, _ := dataset.ReadManifest(filepath.Join(out, "manifest.json"))
	if again.Counts != merged.Counts || !reflect.DeepEqual(again.Files, merged.Files) {
		t.Errorf("merged again: %+v, first %+v", again.Counts, merged.Counts)
	}
}

func TestClearRemovesTheLaunchAndLeavesForeignFiles(t *testing.T) {
	dir := t.TempDir()
	cfg := baseConfig(scan(t, corpus(t, dir, 4, 20)))
	out := filepath.Join(dir, "out")
	runScaled(t, exactPipeline, cfg, out, 2)
	foreign := []string{"notes.txt", "data/mine.parquet", "removed/part-a.parquet", "sub/part-00000-00000.parquet", "quarantine.txt"}
	for _, f := range foreign {
		path := filepath.Join(out, f)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Clear(out); err != nil {
		t.Fatal(err)
	}
	var left []string
	filepath.Walk(out, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(out, path)
			left = append(left, rel)
		}
		return nil
	})
	want := []string{"data/mine.parquet", "notes.txt", "quarantine.txt", "removed/part-a.parquet", "sub/part-00000-00000.parquet"}
	if !reflect.DeepEqual(left, want) {
		t.Errorf("left after Clear: %v, want the foreign files %v", left, want)
	}
	// A launch that never merged, and an empty directory, clear too.
	runScaledUpTo(t, exactPipeline, cfg, filepath.Join(dir, "partial"), 2, "write")
	if err := Clear(filepath.Join(dir, "partial")); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "partial")); len(entries) != 0 {
		t.Errorf("left after clearing a launch without a merge: %v", entries)
	}
	if err := Clear(t.TempDir()); err != nil {
		t.Errorf("clearing an empty directory: %v", err)
	}
}

// TestClearLeavesUserFilesInTheLaunchFolders: a launch's own
// folders may hold a user's files too (a run log kept in _logs, notes in
// _work): the merge's clean-up and --overwrite remove only what a launch
// writes there.
func TestClearLeavesUserFilesInTheLaunchFolders(t *testing.T) {
	dir := t.TempDir()
	cfg := baseConfig(scan(t, corpus(t, dir, 4, 20)))
	out := filepath.Join(dir, "out")
	p := runScaledUpTo(t, exactPipeline, cfg, out, 2, "write")
	user := map[string]string{"_logs/my-run.log": "mine", "_work/notes.txt": "mine", "_work/mine/keep.txt": "mine", "_jobs/my.sh": "mine"}
	launch := []string{"_logs/write-00000.attempt-1.log", "_logs/write-1234_0.log", "_jobs/01-write.sbatch", "_jobs/submitted.json", "_jobs/k8s-apply.sh"}
	for _, f := range append(slices.Collect(maps.Keys(user)), launch...) {
		path := filepath.Join(out, f)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte("mine"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The merge removes the intermediates, not the user's files.
	runPhases(t, p, p.Phases[len(p.Phases)-1:])
	for f := range user {
		if b, err := os.ReadFile(filepath.Join(out, f)); err != nil || string(b) != "mine" {
			t.Errorf("after the merge %s: %q, %v", f, b, err)
		}
	}
	if err := Clear(out); err != nil {
		t.Fatal(err)
	}
	var left []string
	filepath.Walk(out, func(path string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(out, path)
			left = append(left, filepath.ToSlash(rel))
		}
		return nil
	})
	want := slices.Sorted(maps.Keys(user))
	if slices.Sort(left); !slices.Equal(left, want) {
		t.Errorf("left after Clear: %v, want the user's files %v", left, want)
	}
	if _, err := os.Stat(filepath.Join(out, "_work", "markers")); err == nil {
		t.Error("Clear left _work/markers")
	}
}

// runScaledUpTo runs the phases of a new plan up to and with the phase
// named last.
func runScaledUpTo(t *testing.T, text []byte, cfg pipeline.Config, out string, tasks int, last string) *Plan {
	t.Helper()
	p, _ := newPlan(t, text, cfg, out, tasks)
	for k, ph := range p.Phases {
		runPhases(t, p, p.Phases[k:k+1])
		if ph.Name == last {
			break
		}
	}
	return p
}

func mustCompact(b []byte) []byte {
	var out bytes.Buffer
	json.Compact(&out, b)
	return out.Bytes()
}

// The merged manifest's files are what --overwrite and Clear may remove:
// the dataset's, not the launch's bookkeeping, and every one there.
func TestMergedManifestClaimsFilesThatExist(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	runScaled(t, exactPipeline, baseConfig(scan(t, corpus(t, dir, 2, 10))), out, 2)
	m, err := dataset.ReadManifest(filepath.Join(out, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var missing, bookkeeping []string
	for _, f := range m.Files {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			missing = append(missing, f)
		}
		if strings.HasPrefix(f, "_") {
			bookkeeping = append(bookkeeping, f)
		}
	}
	if len(missing) > 0 || len(bookkeeping) > 0 {
		t.Fatalf("the merged manifest claims the launch's own files %v; %v do not exist", bookkeeping, missing)
	}
}
