package command

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sluice-data/sluice/internal/datasettest"
)

var (
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

// TestMain removes the sluice binary the launch tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binaryPath != "" {
		os.RemoveAll(filepath.Dir(binaryPath))
	}
	os.Exit(code)
}

// sluiceBinary builds the sluice command once, for the tasks the
// executors start as processes.
func sluiceBinary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		dir, err := os.MkdirTemp("", "sluice-bin-")
		if err != nil {
			binaryErr = err
			return
		}
		binaryPath = filepath.Join(dir, "sluice")
		out, err := exec.Command("go", "build", "-o", binaryPath, "github.com/sluice-data/sluice").CombinedOutput()
		if err != nil {
			binaryErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

var corpusWords = strings.Fields("the of and to in a is that for it as was with be by on not he this are or his from at which " +
	"but have an they you were her she there one all we their river stone cloud forest market window garden silver " +
	"copper ocean mountain valley bridge tower lantern harbor meadow orchard canyon glacier")

// dupCorpus writes files JSONL files of perFile rows each: fresh texts,
// exact copies and near copies (one word changed) of earlier texts, in
// this file or an earlier one, and short texts the quality stage drops.
// Even files have an id column, odd ones do not (their rows are named
// <file>:<line>); file 3 has a line that is not JSON.
func dupCorpus(t *testing.T, dir string, files, perFile int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	var docs []string
	in := filepath.Join(dir, "in")
	os.MkdirAll(in, 0o755)
	for f := 0; f < files; f++ {
		var b bytes.Buffer
		for j := 0; j < perFile; j++ {
			var text string
			switch r := rng.Float64(); {
			case len(docs) > 0 && r < 0.1:
				text = docs[rng.IntN(len(docs))]
			case len(docs) > 0 && r < 0.2:
				w := strings.Fields(docs[rng.IntN(len(docs))])
				w[rng.IntN(len(w))] = corpusWords[rng.IntN(len(corpusWords))]
				text = strings.Join(w, " ")
			case r < 0.23:
				text = "too short"
			default:
				w := make([]string, 20+rng.IntN(40))
				for k := range w {
					w[k] = corpusWords[rng.IntN(len(corpusWords))]
				}
				text = strings.Join(w, " ") + "."
			}
			docs = append(docs, text)
			if f == 3 && j == 5 {
				b.WriteString("{not json\n")
				continue
			}
			row := map[string]string{"text": text}
			if f%2 == 0 {
				row["id"] = fmt.Sprintf("d%d-%d", f, j)
			}
			line, _ := json.Marshal(row)
			b.Write(append(line, '\n'))
		}
		if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("part-%02d.jsonl", f)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return in
}

// dedupPipeline writes a pipeline file: a quality stage, exact and
// MinHash dedup.
func dedupPipeline(t *testing.T, dir, in string) string {
	t.Helper()
	path := filepath.Join(dir, "pipeline.yaml")
	text := fmt.Sprintf("input: [%q]\nstages:\n  - gopher_quality: {min_word_count: 5}\n  - dedup_exact: {}\n"+
		"  - dedup_minhash: {threshold: 0.7, num_perm: 64, bands: 16, ngram: 3}\n", in)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// datasettest.Dataset are what a dataset holds, in order: kept rows, removed rows
// (with _stage, _reason, _dup_of, _cluster), quarantined lines, and the
// manifest's counts and stage reports.

func TestLaunchGivesTheRowsOfOneProcessWhateverTheTasks(t *testing.T) {
	bin := sluiceBinary(t)
	dir := t.TempDir()
	in := dupCorpus(t, dir, 12, 200)
	pipe := dedupPipeline(t, dir, in)
	single := filepath.Join(dir, "single")
	runMain(t, "run", pipe, "-o", single, "--no-progress", "--batch-rows", "64")
	want := datasettest.Read(t, single)

	// The corpus must show what is tested: both dedups remove rows, some
	// near duplicates across files, and rows named by their line.
	reasons := map[string]int{}
	named := 0
	for _, r := range want.Removed {
		reasons[r["_reason"].(string)]++
		if r["_reason"] == "near_dup" && r["_cluster"] == nil {
			t.Fatalf("near duplicate without a cluster: %v", r)
		}
		if id, _ := r["_dup_of"].(string); strings.Contains(id, ".jsonl:") {
			named++
		}
	}
	if reasons["exact_dup"] < 50 || reasons["near_dup"] < 50 || named == 0 || len(want.Quarantine) != 1 {
		t.Fatalf("corpus too tame: removed by reason %v, %d named by line, quarantine %v", reasons, named, want.Quarantine)
	}

	for _, tasks := range []int{1, 7} {
		out := filepath.Join(dir, fmt.Sprintf("tasks-%d", tasks))
		stdout, _ := runMain(t, "launch", pipe, "-o", out, "--tasks", fmt.Sprint(tasks), "--sluice-binary", bin,
			"--no-progress", "--batch-rows", "64", "--max-parallel", "3")
		if !strings.Contains(stdout, "merge") {
			t.Fatalf("launch output names no phases:\n%s", stdout)
		}
		got := datasettest.Read(t, out)
		datasettest.Compare(t, fmt.Sprintf("--tasks %d", tasks), got, want)
		parts, _ := filepath.Glob(filepath.Join(out, "data", "part-*-*.parquet"))
		if shards := min(tasks, 12); len(parts) != shards {
			t.Errorf("--tasks %d: %d data parts, want one a shard (%d)", tasks, len(parts), shards)
		}
		// A second launch finds every task done and does nothing.
		stdout, _ = runMain(t, "launch", pipe, "-o", out, "--tasks", fmt.Sprint(tasks), "--sluice-binary", bin,
			"--no-progress", "--batch-rows", "64")
		if strings.Contains(stdout, "run now") {
			t.Errorf("--tasks %d: a second launch ran tasks again:\n%s", tasks, stdout)
		}
	}

	// Another number of tasks over the same output is another plan.
	var o, e bytes.Buffer
	code := Main([]string{"sluice", "launch", pipe, "-o", filepath.Join(dir, "tasks-7"), "--tasks", "3", "--sluice-binary", bin, "--no-progress"}, nil, &o, &e)
	if code != 2 || !strings.Contains(e.String(), "different plan") {
		t.Errorf("relaunch with other --tasks: exit %d, %s", code, e.String())
	}
}

// launchKillingAWriteTask runs `sluice launch` with args, whose output's
// files are at out, kills with SIGKILL the first of its 4 write tasks
// seen running (its lease under out/_work/markers) for which ready
// holds, polling every poll, and returns that task once the launch has
// failed. The test fails if no task was caught or the launch succeeded.
func launchKillingAWriteTask(t *testing.T, bin string, args []string, out string, poll time.Duration, ready func(task int) bool) int {
	t.Helper()
	launch := exec.Command(bin, args...)
	var log bytes.Buffer
	launch.Stdout, launch.Stderr = &log, &log
	if err := launch.Start(); err != nil {
		t.Fatal(err)
	}
	killed := -1
	deadline := time.Now().Add(2 * time.Minute)
	for killed < 0 && time.Now().Before(deadline) {
		for s := 0; s < 4 && killed < 0; s++ {
			b, err := os.ReadFile(filepath.Join(out, "_work", "markers", fmt.Sprintf("write-%05d.running", s)))
			if err != nil || !ready(s) {
				continue
			}
			var m struct{ PID int }
			if json.Unmarshal(b, &m) == nil && m.PID > 0 && syscall.Kill(m.PID, syscall.SIGKILL) == nil {
				killed = s
			}
		}
		time.Sleep(poll)
	}
	err := launch.Wait()
	if killed < 0 {
		t.Fatalf("no write task was caught; launch: %v\n%s", err, log.String())
	}
	if err == nil {
		t.Fatalf("launch succeeded although write task %d was killed:\n%s", killed, log.String())
	}
	return killed
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

func TestLaunchResumesAfterATaskIsKilledMidWrite(t *testing.T) {
	bin := sluiceBinary(t)
	dir := t.TempDir()
	in := dupCorpus(t, dir, 8, 4000)
	pipe := dedupPipeline(t, dir, in)
	args := func(out string) []string {
		return []string{"launch", pipe, "-o", out, "--tasks", "4", "--no-progress", "--batch-rows", "100",
			"--max-file-rows", "500", "--workers", "1", "--max-parallel", "2"}
	}
	whole := filepath.Join(dir, "whole")
	if out, err := exec.Command(bin, args(whole)...).CombinedOutput(); err != nil {
		t.Fatalf("uninterrupted launch: %v\n%s", err, out)
	}

	out := filepath.Join(dir, "killed")
	// Wait for a write task to have a part file half written, and kill it.
	killed := launchKillingAWriteTask(t, bin, args(out), out, 2*time.Millisecond, func(s int) bool {
		return len(strayFiles(filepath.Join(out, "_work", "write", fmt.Sprintf("%05d", s)))) > 0
	})
	if len(strayFiles(out)) == 0 {
		t.Fatalf("the killed task left no partial file: the test did not kill it mid-write")
	}
	var st, e bytes.Buffer
	Main([]string{"sluice", "status", out}, nil, &st, &e)
	if !strings.Contains(st.String(), fmt.Sprintf("task %d interrupted", killed)) {
		t.Errorf("status does not show the killed task:\n%s", st.String())
	}

	if res, err := exec.Command(bin, args(out)...).CombinedOutput(); err != nil {
		t.Fatalf("launch after the kill: %v\n%s", err, res)
	}
	if stray := strayFiles(out); len(stray) > 0 {
		t.Errorf("partial files left after the resumed launch: %v", stray)
	}
	datasettest.Compare(t, "resumed", datasettest.Read(t, out), datasettest.Read(t, whole))
	// The files are the same, byte for byte, and nothing else is there.
	hashes := func(root string) map[string]string {
		m := readManifest(t, filepath.Join(root, "manifest.json"))
		got := map[string]string{}
		for _, key := range []string{"outputs", "removed_outputs"} {
			for _, o := range m[key].([]any) {
				f := o.(map[string]any)
				rel, _ := filepath.Rel(root, f["path"].(string))
				got[rel] = f["xxhash64"].(string)
			}
		}
		files, _ := filepath.Glob(filepath.Join(root, "*", "part-*.parquet"))
		if len(files) != len(got) {
			t.Errorf("%s: %d part files, the manifest lists %d", root, len(files), len(got))
		}
		return got
	}
	if a, b := hashes(out), hashes(whole); !reflect.DeepEqual(a, b) {
		t.Errorf("resumed output files %v differ from the uninterrupted run's %v", a, b)
	}
}

// linesCorpus writes files JSONL files of perFile texts of a few lines
// each: boilerplate lines repeated across files, content lines of their
// own and now and then one borrowed from an earlier text, and some texts
// made only of boilerplate (left empty by keep none).
func linesCorpus(t *testing.T, dir string, files, perFile int) string {
	t.Helper()
	rng := rand.New(rand.NewPCG(3, 5))
	boiler := []string{"Menu | Home | About | Contact", "Accept all cookies to continue", "Subscribe to our newsletter",
		"All rights reserved.", "Share this page"}
	var content []string
	in := filepath.Join(dir, "lines-in")
	os.MkdirAll(in, 0o755)
	for f := 0; f < files; f++ {
		var b bytes.Buffer
		for j := 0; j < perFile; j++ {
			var lines []string
			if rng.IntN(3) > 0 {
				lines = append(lines, boiler[rng.IntN(len(boiler))])
			}
			if rng.IntN(10) > 0 {
				for k := 1 + rng.IntN(3); k > 0; k-- {
					if len(content) > 0 && rng.IntN(6) == 0 {
						lines = append(lines, content[rng.IntN(len(content))])
						continue
					}
					w := make([]string, 6+rng.IntN(10))
					for x := range w {
						w[x] = corpusWords[rng.IntN(len(corpusWords))]
					}
					line := strings.Join(w, " ")
					content = append(content, line)
					lines = append(lines, line)
				}
			}
			lines = append(lines, boiler[rng.IntN(len(boiler))])
			row, _ := json.Marshal(map[string]string{"id": fmt.Sprintf("t%d-%d", f, j), "text": strings.Join(lines, "\n")})
			b.Write(append(row, '\n'))
		}
		if err := os.WriteFile(filepath.Join(in, fmt.Sprintf("part-%02d.jsonl", f)), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return in
}

func TestLaunchDedupLinesGivesTheRowsOfOneProcess(t *testing.T) {
	bin := sluiceBinary(t)
	dir := t.TempDir()
	in := linesCorpus(t, dir, 6, 120)
	for _, keep := range []string{"none", "first"} {
		pipe := filepath.Join(dir, "lines-"+keep+".yaml")
		os.WriteFile(pipe, []byte(fmt.Sprintf("input: [%q]\nstages:\n  - dedup_lines: {keep: %s}\n", in, keep)), 0o644)
		single := filepath.Join(dir, "single-"+keep)
		runMain(t, "run", pipe, "-o", single, "--no-progress", "--batch-rows", "32")
		want := datasettest.Read(t, single)
		changed := 0
		for _, r := range want.Kept {
			if strings.Count(strings.TrimSuffix(r["text"].(string), "\n"), "\n") < 1 {
				changed++
			}
		}
		if keep == "none" && (len(want.Removed) == 0 || changed == 0) {
			t.Fatalf("keep none: corpus too tame: %d removed, %d texts down to one line", len(want.Removed), changed)
		}
		for _, tasks := range []int{1, 4} {
			out := filepath.Join(dir, fmt.Sprintf("lines-%s-%d", keep, tasks))
			runMain(t, "launch", pipe, "-o", out, "--tasks", fmt.Sprint(tasks), "--sluice-binary", bin,
				"--no-progress", "--batch-rows", "32", "--max-parallel", "2")
			datasettest.Compare(t, fmt.Sprintf("keep %s, --tasks %d", keep, tasks), datasettest.Read(t, out), want)
		}
	}
}

// One large Parquet file makes as many shards as tasks, by slices of its
// row groups, and the same rows as one process: ids by row number count
// from the file's first row in every slice.
func TestLaunchSlicesALargeParquetFile(t *testing.T) {
	bin := sluiceBinary(t)
	dir := t.TempDir()
	in := dupCorpus(t, dir, 6, 200)
	pq := filepath.Join(dir, "corpus.parquet")
	runMain(t, "convert", in, "-o", pq, "--batch-rows", "50", "--no-progress")
	pipe := filepath.Join(dir, "pq.yaml")
	os.WriteFile(pipe, []byte(fmt.Sprintf("input: [%q]\nstages:\n  - dedup_exact: {}\n"+
		"  - dedup_minhash: {threshold: 0.7, num_perm: 64, bands: 16, ngram: 3}\n", pq)), 0o644)
	single := filepath.Join(dir, "single")
	runMain(t, "run", pipe, "-o", single, "--no-progress", "--batch-rows", "50")
	want := datasettest.Read(t, single)
	named := 0
	for _, r := range want.Removed {
		if id, _ := r["_dup_of"].(string); strings.Contains(id, "corpus.parquet:") {
			named++
		}
	}
	if named == 0 {
		t.Fatal("no removed row names its kept row by row number")
	}
	out := filepath.Join(dir, "sliced")
	runMain(t, "launch", pipe, "-o", out, "--tasks", "4", "--sluice-binary", bin, "--no-progress", "--batch-rows", "50", "--max-parallel", "2")
	got := datasettest.Read(t, out)
	datasettest.Compare(t, "one Parquet file, --tasks 4", got, want)
	parts, _ := filepath.Glob(filepath.Join(out, "data", "part-*-*.parquet"))
	if len(parts) != 4 {
		t.Errorf("%d data parts, want 4 (one a shard)", len(parts))
	}
	m := readManifest(t, filepath.Join(out, "manifest.json"))
	if ins := m["inputs"].([]any); len(ins) != 1 || ins[0].(map[string]any)["rows"] != 1199.0 {
		t.Errorf("manifest inputs %v, want the one file with its 1199 rows", ins)
	}
}

// Kubernetes settings are checked before anything is written: without
// an image or a shared volume, launch exits 2 naming both flags and
// leaves no plan behind.
func TestLaunchK8sChecksItsFlagsFirst(t *testing.T) {
	dir := t.TempDir()
	pipeline := dedupPipeline(t, dir, dupCorpus(t, dir, 2, 10))
	out := filepath.Join(dir, "out")
	code, _, errs := mainOutput("launch", pipeline, "-o", out, "--tasks", "2", "--executor", "k8s")
	if code != 2 || !strings.Contains(errs, "--k8s-image") || !strings.Contains(errs, "--k8s-claim") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a refused launch wrote %s (%v)", out, err)
	}
	code, stdout, errs := mainOutput("launch", pipeline, "-o", out, "--tasks", "2", "--executor", "k8s", "--k8s-image", "reg/sluice:1", "--k8s-claim", "corpus", "--k8s-mount", dir)
	if code != 0 || !strings.Contains(stdout, "k8s-apply.sh") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, errs)
	}
}
