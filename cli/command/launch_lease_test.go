package command

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sluice-data/sluice/internal/datasettest"
	"github.com/sluice-data/sluice/scaleout"
)

// plannedLaunch writes the plan of a launch of pipe over out without
// running a task (the tasks' binary does nothing), and returns its path.
func plannedLaunch(t *testing.T, pipe, out string, args ...string) string {
	t.Helper()
	var o, e bytes.Buffer
	Main(append([]string{"sluice", "launch", pipe, "-o", out, "--sluice-binary", "/bin/true", "--no-progress"}, args...), nil, &o, &e)
	plan := filepath.Join(out, scaleout.PlanFile)
	if _, err := os.Stat(plan); err != nil {
		t.Fatalf("no plan written: %v\n%s%s", err, o.String(), e.String())
	}
	return plan
}

// taskCmd is `sluice task` of task i of phase, its output in a file.
func taskCmd(t *testing.T, bin, plan, phase string, i int, log string, extra ...string) *exec.Cmd {
	t.Helper()
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	cmd := exec.Command(bin, append([]string{"task", plan, "--phase", phase, "--index", fmt.Sprint(i), "--log", log}, extra...)...)
	cmd.Stdout, cmd.Stderr = f, f
	return cmd
}

// waitFor polls cond until it holds, or fails the test after a minute.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// leaseOf reads the lease (running marker) of task i of phase under out.
func leaseOf(out, phase string, i int) (scaleout.Marker, bool) {
	var m scaleout.Marker
	b, err := os.ReadFile(filepath.Join(out, "_work", "markers", fmt.Sprintf("%s-%05d.running", phase, i)))
	return m, err == nil && json.Unmarshal(b, &m) == nil
}

func fileHas(path, text string) bool {
	b, _ := os.ReadFile(path)
	return strings.Contains(string(b), text)
}

// Two processes of the same task at once: the second waits for the
// first's live lease and does not run the task; a copy that finds the
// lease expired (its holder stopped) takes the task over, and the holder,
// resumed, stops without touching the dataset. The dataset is the one of
// one process.
func TestASecondCopyOfATaskDoesNotRunIt(t *testing.T) {
	bin := sluiceBinary(t)
	dir := t.TempDir()
	in := dupCorpus(t, dir, 8, 600)
	pipe := dedupPipeline(t, dir, in)
	single := filepath.Join(dir, "single")
	runMain(t, "run", pipe, "-o", single, "--no-progress", "--batch-rows", "50")
	out := filepath.Join(dir, "out")
	plan := plannedLaunch(t, pipe, out, "--tasks", "2", "--batch-rows", "50", "--workers", "1")
	p, err := scaleout.ReadPlan(plan)
	if err != nil {
		t.Fatal(err)
	}
	for _, ph := range p.Phases {
		if ph.Name == "write" {
			break
		}
		for i := 0; i < ph.Tasks; i++ {
			if res, err := exec.Command(bin, "task", plan, "--phase", ph.Name, "--index", fmt.Sprint(i)).CombinedOutput(); err != nil {
				t.Fatalf("task %s/%d: %v\n%s", ph.Name, i, err, res)
			}
		}
	}

	// Write task 0: the first process is stopped while it holds its live
	// lease; the second waits; the first goes on and completes the task.
	logA, logB := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	a := taskCmd(t, bin, plan, "write", 0, logA)
	if err := a.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first copy's lease", func() bool { m, ok := leaseOf(out, "write", 0); return ok && m.PID == a.Process.Pid })
	a.Process.Signal(syscall.SIGSTOP)
	b := taskCmd(t, bin, plan, "write", 0, logB)
	if err := b.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second copy to wait", func() bool { return fileHas(logB, "waiting for it to end") })
	a.Process.Signal(syscall.SIGCONT)
	if err := a.Wait(); err != nil {
		t.Fatalf("the first copy: %v", err)
	}
	if err := b.Wait(); err != nil {
		t.Fatalf("the second copy: %v", err)
	}
	bOut, _ := os.ReadFile(logB)
	if !fileHas(logA, "phase write task 0 done in") || !strings.Contains(string(bOut), "was already done") ||
		!strings.Contains(string(bOut), fmt.Sprintf("is held by %s (pid %d)", hostname(t), a.Process.Pid)) {
		a, _ := os.ReadFile(logA)
		t.Errorf("first copy said:\n%s\nsecond copy said:\n%s", a, bOut)
	}

	// Write task 1: the holder stops renewing its short lease; the second
	// copy takes the task over once it expires and runs it; the holder,
	// resumed, finds its lease gone and fails without a marker.
	logC, logD := filepath.Join(dir, "c.log"), filepath.Join(dir, "d.log")
	short := []string{"--heartbeat", "100ms", "--lease-expiry", "1s"}
	c := taskCmd(t, bin, plan, "write", 1, logC, short...)
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	// Stopped mid-write: its work folder holds a part being written.
	waitFor(t, "the holder to write", func() bool {
		m, ok := leaseOf(out, "write", 1)
		return ok && m.PID == c.Process.Pid && len(strayFiles(filepath.Join(out, "_work", "write", "00001"))) > 0
	})
	c.Process.Signal(syscall.SIGSTOP)
	d := taskCmd(t, bin, plan, "write", 1, logD, short...)
	if err := d.Run(); err != nil {
		b, _ := os.ReadFile(logD)
		t.Fatalf("the copy that takes over: %v\n%s", err, b)
	}
	dOut, _ := os.ReadFile(logD)
	if !strings.Contains(string(dOut), fmt.Sprintf("took over the stale lease of %s (pid %d)", hostname(t), c.Process.Pid)) ||
		!strings.Contains(string(dOut), "phase write task 1 done in") {
		t.Errorf("the copy that took over said:\n%s", dOut)
	}
	c.Process.Signal(syscall.SIGCONT)
	if err := c.Wait(); err == nil || !fileHas(logC, "lost its lease") {
		b, _ := os.ReadFile(logC)
		t.Errorf("the resumed holder: %v\n%s", err, b)
	}

	if failed, _ := filepath.Glob(filepath.Join(out, "_work", "markers", "*.failed")); len(failed) > 0 {
		t.Errorf("failed markers: %v", failed)
	}
	if res, err := exec.Command(bin, "task", plan, "--phase", "merge", "--index", "0").CombinedOutput(); err != nil {
		t.Fatalf("merge: %v\n%s", err, res)
	}
	if leases, _ := filepath.Glob(filepath.Join(out, "_work", "markers", "*.running")); len(leases) > 0 {
		t.Errorf("leases left: %v", leases)
	}
	datasettest.Compare(t, "two copies of the write tasks", datasettest.Read(t, out), datasettest.Read(t, single))
}

func hostname(t *testing.T) string {
	t.Helper()
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Killing launch (kill -9) leaves its tasks running; a launch started at
// once over the same output waits for their leases instead of running
// the same tasks again, and gives the dataset of one process.
func TestRelaunchWhileTheKilledLaunchsTasksRun(t *testing.T) {
	bin := sluiceBinary(t)
	dir := t.TempDir()
	in := dupCorpus(t, dir, 8, 1500)
	pipe := dedupPipeline(t, dir, in)
	single := filepath.Join(dir, "single")
	runMain(t, "run", pipe, "-o", single, "--no-progress", "--batch-rows", "100")
	out := filepath.Join(dir, "out")
	args := []string{"launch", pipe, "-o", out, "--tasks", "4", "--no-progress", "--batch-rows", "100", "--workers", "1", "--max-parallel", "2"}
	first := exec.Command(bin, args...)
	var firstOut bytes.Buffer
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a write task to run", func() bool {
		leases, _ := filepath.Glob(filepath.Join(out, "_work", "markers", "write-*.running"))
		return len(leases) > 0
	})
	first.Process.Kill()
	first.Wait()
	// The tasks of the killed launch run on: stop them for a while, so
	// that the relaunch finds them holding their leases.
	var orphans []int
	leases, _ := filepath.Glob(filepath.Join(out, "_work", "markers", "*.running"))
	for _, l := range leases {
		var m scaleout.Marker
		if b, err := os.ReadFile(l); err == nil && json.Unmarshal(b, &m) == nil && syscall.Kill(m.PID, syscall.SIGSTOP) == nil {
			orphans = append(orphans, m.PID)
		}
	}
	if len(orphans) == 0 {
		t.Skipf("the tasks of the killed launch ended before the relaunch:\n%s", firstOut.String())
	}
	resume := func() {
		for _, pid := range orphans {
			syscall.Kill(pid, syscall.SIGCONT)
		}
	}
	defer resume()
	second := exec.Command(bin, args...)
	var res bytes.Buffer
	second.Stdout, second.Stderr = &res, &res
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	waited := func() []string {
		var found []string
		logs, _ := filepath.Glob(filepath.Join(out, "_logs", "*.attempt-2.log"))
		for _, l := range logs {
			if fileHas(l, "waiting for it to end") {
				found = append(found, l)
			}
		}
		return found
	}
	waitFor(t, "a task of the relaunch to wait for the killed launch's", func() bool { return len(waited()) > 0 })
	resume()
	if err := second.Wait(); err != nil {
		t.Fatalf("relaunch: %v\n%s", err, res.String())
	}
	for _, l := range waited() {
		if !fileHas(l, "was already done") {
			b, _ := os.ReadFile(l)
			t.Errorf("%s: the waiting attempt ran the task:\n%s", l, b)
		}
	}
	if failed, _ := filepath.Glob(filepath.Join(out, "_work", "markers", "*.failed")); len(failed) > 0 {
		t.Errorf("failed markers: %v", failed)
	}
	if stray := strayFiles(out); len(stray) > 0 {
		t.Errorf("partial files left: %v", stray)
	}
	datasettest.Compare(t, "relaunched over running tasks", datasettest.Read(t, out), datasettest.Read(t, single))
}

// A launch removes _work's intermediates after the merge (unless
// --keep-work), warns when the input gives fewer shards than --tasks,
// and a relaunch after manifest.json was removed merges again.
func TestLaunchRemovesTheWorkAndRelaunchesWithoutAManifest(t *testing.T) {
	bin := sluiceBinary(t)
	dir := t.TempDir()
	in := dupCorpus(t, dir, 3, 150)
	gzipFiles(t, in) // a compressed file is not cut: 3 shards for 4 tasks
	pipe := dedupPipeline(t, dir, in)
	single := filepath.Join(dir, "single")
	runMain(t, "run", pipe, "-o", single, "--no-progress", "--batch-rows", "50")
	want := datasettest.Read(t, single)
	args := func(out string, more ...string) []string {
		return append([]string{"launch", pipe, "-o", out, "--tasks", "4", "--sluice-binary", bin, "--no-progress",
			"--batch-rows", "50", "--max-parallel", "2"}, more...)
	}
	work := func(out string) []string {
		entries, _ := os.ReadDir(filepath.Join(out, "_work"))
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		return names
	}

	out := filepath.Join(dir, "out")
	_, errs := runMain(t, args(out)...)
	if !strings.Contains(errs, "warning: --tasks 4, but the plan has 3 shards: 3 compressed JSONL files (gzip, zstd) are not cut") {
		t.Errorf("no warning of the shards fewer than --tasks:\n%s", errs)
	}
	if got := work(out); !reflect.DeepEqual(got, []string{"markers"}) {
		t.Errorf("_work after the launch: %v, want the markers alone", got)
	}
	datasettest.Compare(t, "launch", datasettest.Read(t, out), want)
	first := readManifest(t, filepath.Join(out, "manifest.json"))
	if err := os.Remove(filepath.Join(out, "manifest.json")); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := mainCode("status", out); code != 0 || strings.Contains(stdout, "complete:") {
		t.Errorf("status without manifest.json: exit %d\n%s", code, stdout)
	}
	stdout, _ := runMain(t, args(out)...)
	for _, line := range []string{"manifest.json is gone: the merge runs again", "the merge removed the intermediates it needs",
		"s1-exact-map", fmt.Sprintf("%-24s 3 tasks already done", "write"), fmt.Sprintf("%-24s 1 tasks done (1 run now", "merge")} {
		if !strings.Contains(stdout, line) {
			t.Errorf("relaunch without manifest.json does not say %q:\n%s", line, stdout)
		}
	}
	datasettest.Compare(t, "relaunched without manifest.json", datasettest.Read(t, out), want)
	again := readManifest(t, filepath.Join(out, "manifest.json"))
	for _, key := range []string{"counts", "outputs", "removed_outputs", "stages", "files"} {
		if !reflect.DeepEqual(again[key], first[key]) {
			t.Errorf("manifest merged again: %s %v, first %v", key, again[key], first[key])
		}
	}

	kept := filepath.Join(dir, "kept")
	runMain(t, args(kept, "--keep-work")...)
	if got := strings.Join(work(kept), " "); !strings.Contains(got, "s2-minhash-sign") || !strings.Contains(got, "markers") {
		t.Errorf("--keep-work: _work holds %s", got)
	}
	// --keep-work is no other plan: a launch without it resumes.
	if stdout, _ := runMain(t, args(kept)...); strings.Contains(stdout, "run now") {
		t.Errorf("relaunch without --keep-work ran tasks:\n%s", stdout)
	}
}

// status lists the jobs of the last Slurm launch that are still queued,
// as squeue tells, and says when one can never start; and an interrupted
// task makes it exit 1 as a failed one does.
func TestStatusListsTheQueuedJobsOfTheLastSlurmLaunch(t *testing.T) {
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Skip(err)
	}
	out := writeStatusPlan(t, "done", "", "")
	rec := `{"submitted": "2026-01-02T03:04:05Z", "jobs": [{"phase": "s0-exact-map", "job": "146", "script": "x.sbatch"},` +
		`{"phase": "write", "job": "147", "script": "y.sbatch"}]}`
	os.MkdirAll(filepath.Join(out, "_jobs"), 0o755)
	if err := os.WriteFile(filepath.Join(out, "_jobs", "submitted.json"), []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	squeue := "#!/bin/sh\necho '146|146_1|RUNNING|None'\necho '147|147_[0-3]|PENDING|DependencyNeverSatisfied'\n"
	if err := os.WriteFile(filepath.Join(bin, "squeue"), []byte(squeue), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	code, stdout, errs := mainCode("status", out)
	if code != 0 {
		t.Fatalf("status: exit %d\n%s%s", code, stdout, errs)
	}
	for _, want := range []string{"slurm job 146 (s0-exact-map): 1 running, 0 pending",
		"slurm job 147 (write): 0 running, 4 pending (DependencyNeverSatisfied); it will never start"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("status lacks %q:\n%s", want, stdout)
		}
	}
	// Without squeue, status says nothing of the jobs.
	t.Setenv("PATH", t.TempDir())
	if code, stdout, _ := mainCode("status", out); code != 0 || strings.Contains(stdout, "slurm") {
		t.Errorf("status without squeue: exit %d\n%s", code, stdout)
	}

	// A task whose process is gone without a marker: exit 1, naming it.
	m := scaleout.Marker{Phase: "s0-exact-map", Index: 1, Host: hostname(t), PID: gone.Process.Pid, Started: "2026-01-02T03:04:05Z",
		Log: "/logs/t1.log"}
	b, _ := json.Marshal(m)
	os.WriteFile(filepath.Join(out, "_work", "markers", "s0-exact-map-00001.running"), b, 0o644)
	code, stdout, errs = mainCode("status", out)
	if code != 1 || !strings.Contains(errs, "phase s0-exact-map task 1 interrupted on "+hostname(t)) ||
		!strings.Contains(errs, "the process is gone (log /logs/t1.log)") || !strings.Contains(stdout, "1 interrupted  interrupted") {
		t.Errorf("status of an interrupted task: exit %d\n%s%s", code, stdout, errs)
	}
}

// gzipFiles replaces each file of dir by its gzip-compressed copy, name.gz.
func gzipFiles(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		w.Write(b)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f+".gz", z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(f)
	}
}
