package scaleout

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/datasettest"
	"github.com/sluice-data/sluice/internal/testenv"
)

// smallPlan is a plan of exact dedup over 6 small files in 3 tasks,
// written to out/_plan.json: phases of 3 tasks, and a merge of 1.
func smallPlan(t *testing.T) (*Plan, string, string) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	p, path := newPlan(t, exactPipeline, baseConfig(scan(t, corpus(t, dir, 6, 10))), out, 3)
	return p, path, dir
}

// writeScript writes an executable shell script.
func writeScript(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+text), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// directive returns the value of the #SBATCH option name in script, or "".
func directive(script, name string) string {
	m := regexp.MustCompile(`(?m)^#SBATCH --` + name + `=(.*)$`).FindStringSubmatch(script)
	if m == nil {
		return ""
	}
	return m[1]
}

func TestSlurmScriptsOneArrayAPhase(t *testing.T) {
	p, planPath, dir := smallPlan(t)
	p.Binary = filepath.Join(dir, "bin dir", "sluice")
	o := SlurmOptions{Partition: "cpu", CPUsPerTask: 4, Mem: "8G", Time: "2:00:00", MaxParallel: 2, TasksPerJob: 2}
	paths, err := SlurmScripts(p, planPath, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != len(p.Phases) {
		t.Fatalf("%d scripts for %d phases", len(paths), len(p.Phases))
	}
	for k, ph := range p.Phases {
		if want := filepath.Join(p.Out, "_jobs", fmt.Sprintf("%02d-%s.sbatch", k, ph.Name)); paths[k] != want {
			t.Errorf("script %d is %s, want %s", k, paths[k], want)
		}
		b, err := os.ReadFile(paths[k])
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		jobs := (ph.Tasks + 1) / 2
		checks := map[string]string{"job-name": "sluice-" + ph.Name, "array": fmt.Sprintf("0-%d%%2", jobs-1),
			"partition": "cpu", "cpus-per-task": "4", "mem": "8G", "time": "2:00:00",
			"kill-on-invalid-dep": "yes", "open-mode": "append",
			"output": filepath.Join(p.Out, "_logs", ph.Name+"-%A_%a.log")}
		for name, want := range checks {
			if got := directive(s, name); got != want {
				t.Errorf("%s: --%s=%q, want %q", ph.Name, name, got, want)
			}
		}
		for _, want := range []string{
			"#!/bin/bash\n", "set -euo pipefail\n", "cd " + shellQuote(p.Dir) + "\n",
			"first=$((SLURM_ARRAY_TASK_ID * 2))\n",
			fmt.Sprintf("for ((i = first; i < first + 2 && i < %d; i++)); do\n", ph.Tasks),
			fmt.Sprintf("  '%s' task %s --phase %s --index \"$i\" --log ", p.Binary, planPath, ph.Name),
		} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: script lacks %q:\n%s", ph.Name, want, s)
			}
		}
	}

	// Defaults: one task an element, no throttle, no resources asked.
	paths, err = SlurmScripts(p, planPath, SlurmOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(paths[0])
	s := string(b)
	if got := directive(s, "array"); got != fmt.Sprintf("0-%d", p.Phases[0].Tasks-1) {
		t.Errorf("default array %q", got)
	}
	for _, name := range []string{"partition", "cpus-per-task", "mem", "time"} {
		if directive(s, name) != "" {
			t.Errorf("default script asks for --%s:\n%s", name, s)
		}
	}
}

// The script's loop runs the tasks of its array element, in turn: run it
// with bash and a binary that records its arguments.
func TestSlurmScriptRunsTheTasksOfItsElement(t *testing.T) {
	bash := testenv.Require(t, "bash")
	p, planPath, dir := smallPlan(t)
	record := filepath.Join(dir, "calls")
	p.Binary = writeScript(t, filepath.Join(dir, "fake-sluice"), fmt.Sprintf("echo \"$@\" >> %s\n", record))
	paths, err := SlurmScripts(p, planPath, SlurmOptions{TasksPerJob: 2})
	if err != nil {
		t.Fatal(err)
	}
	ph := p.Phases[0] // 3 tasks: element 0 runs 0 and 1, element 1 runs 2
	for element, want := range [][]int{{0, 1}, {2}} {
		os.Remove(record)
		cmd := exec.Command(bash, paths[0])
		cmd.Env = append(os.Environ(), fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", element), "SLURM_ARRAY_JOB_ID=77")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("element %d: %v\n%s", element, err, out)
		}
		b, _ := os.ReadFile(record)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != len(want) {
			t.Fatalf("element %d ran %q, want tasks %v", element, lines, want)
		}
		for k, i := range want {
			log := filepath.Join(p.Out, "_logs", fmt.Sprintf("%s-77_%d.log", ph.Name, element))
			if w := fmt.Sprintf("task %s --phase %s --index %d --log %s", planPath, ph.Name, i, log); lines[k] != w {
				t.Errorf("element %d call %d: %q, want %q", element, k, lines[k], w)
			}
		}
	}
}

// SubmitSlurm submits the phases not complete, each after the one before
// it (afterok), and returns the job ids.
func TestSubmitSlurmChainsThePhasesLeft(t *testing.T) {
	p, planPath, dir := smallPlan(t)
	calls := filepath.Join(dir, "sbatch-calls")
	sbatch := writeScript(t, filepath.Join(dir, "sbatch"), fmt.Sprintf(
		"echo \"$PWD $@\" >> %[1]s\nn=0\nwhile read -r _; do n=$((n + 1)); done < %[1]s\necho \"$((1000 + n));cluster-a\"\n", calls))
	runPhases(t, p, p.Phases[:1]) // the first phase is done
	var progress bytes.Buffer
	ids, err := SubmitSlurm(context.Background(), p, planPath, SlurmOptions{Sbatch: sbatch}, &progress)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"1001", "1002", "1003"}; !slices.Equal(ids, want) {
		t.Fatalf("job ids %v, want %v", ids, want)
	}
	b, _ := os.ReadFile(calls)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	for k, line := range lines {
		ph := p.Phases[k+1]
		want := fmt.Sprintf("%s --parsable %s", p.Dir, filepath.Join(p.Out, "_jobs", fmt.Sprintf("%02d-%s.sbatch", k+1, ph.Name)))
		if k > 0 {
			want = fmt.Sprintf("%s --parsable --dependency=afterok:%d --kill-on-invalid-dep=yes %s", p.Dir, 1000+k,
				filepath.Join(p.Out, "_jobs", fmt.Sprintf("%02d-%s.sbatch", k+1, ph.Name)))
		}
		if line != want {
			t.Errorf("sbatch call %d: %q, want %q", k, line, want)
		}
	}
	if !strings.Contains(progress.String(), p.Phases[0].Name) || !strings.Contains(progress.String(), "already done") ||
		!strings.Contains(progress.String(), "job 1003") {
		t.Errorf("progress:\n%s", progress.String())
	}
	if st, err := os.Stat(filepath.Join(p.Out, "_logs")); err != nil || !st.IsDir() {
		t.Errorf("no log folder for Slurm's --output files: %v", err)
	}

	for name, script := range map[string]string{
		"fails":       "echo 'sbatch: error: invalid partition' >&2\nexit 1\n",
		"talks oddly": "echo 'Submitted batch job'\n",
	} {
		bad := writeScript(t, filepath.Join(dir, "bad-sbatch"), script)
		ids, err := SubmitSlurm(context.Background(), p, planPath, SlurmOptions{Sbatch: bad}, &bytes.Buffer{})
		if err == nil || len(ids) != 0 || !strings.Contains(err.Error(), bad) {
			t.Errorf("sbatch %s: %v, %v", name, ids, err)
		}
		if name == "fails" && !strings.Contains(err.Error(), "invalid partition") {
			t.Errorf("the error does not tell what sbatch said: %v", err)
		}
	}
}

// helperEnv makes the test binary run one task as `sluice task` would
// (see TestHelperTask).
const helperEnv = "SLUICE_SCALEOUT_HELPER_TASK"

// TestHelperTask is `sluice task PLAN --serve` when the test binary runs
// as a task process of RunLocal; otherwise it does nothing. Every task
// but the merge's must get its share of the cores as its workers.
func TestHelperTask(t *testing.T) {
	if os.Getenv(helperEnv) != "1" {
		return
	}
	args := os.Args
	for len(args) > 0 && args[0] != "--" {
		args = args[1:]
	}
	code := func() int {
		if len(args) != 4 || args[1] != "task" || args[3] != "--serve" {
			fmt.Fprintf(os.Stderr, "unexpected task arguments %q\n", args)
			return 2
		}
		run := func(ctx context.Context, req TaskRequest, log io.Writer) (bool, error) {
			p, err := ReadPlan(args[2])
			if err != nil {
				return false, err
			}
			if w := req.Workers; req.Phase != string(Merge) && (w < 1 || w > max(1, runtime.NumCPU())) {
				return false, fmt.Errorf("workers %d: not a share of the %d cores", w, runtime.NumCPU())
			}
			if req.Phase == string(Merge) && req.Workers != 0 {
				return false, fmt.Errorf("the merge got %d workers, not the plan's", req.Workers)
			}
			return RunTaskWith(ctx, p, req.Phase, req.Index, TaskOptions{Version: testVersion, Log: req.Log, Progress: log})
		}
		if err := ServeTasks(context.Background(), os.Stdin, os.Stdout, run, func(w io.Writer, err error) { fmt.Fprintln(w, "error:", err) }); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}()
	os.Exit(code)
}

// taskBinary writes a script that runs the test binary as a task.
func taskBinary(t *testing.T, dir string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	return writeScript(t, filepath.Join(dir, "sluice"),
		fmt.Sprintf("%s=1 exec %s -test.run='^TestHelperTask$' -- \"$@\"\n", helperEnv, shellQuote(self)))
}

func TestRunLocalRunsEveryPhaseAndResumes(t *testing.T) {
	dir := t.TempDir()
	cfg := baseConfig(scan(t, corpus(t, dir, 4, 15)))
	single := filepath.Join(dir, "single")
	runSingle(t, exactPipeline, cfg, single)
	out := filepath.Join(dir, "out")
	p, planPath := newPlan(t, exactPipeline, cfg, out, 2)
	p.Binary = taskBinary(t, dir)
	// One task is done already; RunLocal leaves it.
	runPhases(t, p, []Phase{{Name: p.Phases[0].Name, Tasks: 1}})
	var progress bytes.Buffer
	if err := RunLocal(context.Background(), p, planPath, 2, &progress); err != nil {
		logs, _ := filepath.Glob(filepath.Join(out, "_logs", "*"))
		for _, l := range logs {
			b, _ := os.ReadFile(l)
			t.Logf("%s:\n%s", l, b)
		}
		t.Fatalf("RunLocal: %v\n%s", err, progress.String())
	}
	datasettest.Compare(t, "RunLocal", datasettest.Read(t, out), datasettest.Read(t, single))
	lines := strings.Split(strings.TrimSpace(progress.String()), "\n")
	if len(lines) != len(p.Phases) {
		t.Fatalf("progress:\n%s", progress.String())
	}
	for k, ph := range p.Phases {
		run := ph.Tasks
		if k == 0 {
			run--
		}
		if !strings.HasPrefix(lines[k], ph.Name) || !strings.Contains(lines[k], fmt.Sprintf("%d tasks done (%d run now", ph.Tasks, run)) {
			t.Errorf("progress line %d: %q, want %s with %d tasks run", k, lines[k], ph.Name, run)
		}
		for i := 0; i < ph.Tasks; i++ {
			if k == 0 && i == 0 {
				continue
			}
			if _, err := os.Stat(filepath.Join(out, "_logs", fmt.Sprintf("%s-%05d.attempt-1.log", ph.Name, i))); err != nil {
				t.Errorf("no log of task %s/%d: %v", ph.Name, i, err)
			}
		}
	}
	if !Complete(Status(p)) {
		t.Error("not complete after RunLocal")
	}

	// Again: every task is done, none runs.
	progress.Reset()
	p.Binary = "/nonexistent/sluice"
	if err := RunLocal(context.Background(), p, planPath, 2, &progress); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(progress.String(), "tasks already done"); n != len(p.Phases) {
		t.Errorf("second RunLocal:\n%s", progress.String())
	}
}

func TestRunLocalStopsAtAFailedPhase(t *testing.T) {
	p, planPath, dir := smallPlan(t)
	p.Binary = writeScript(t, filepath.Join(dir, "failing-sluice"), "echo \"cannot run $*\"\nexit 3\n")
	var progress bytes.Buffer
	err := RunLocal(context.Background(), p, planPath, 0, &progress)
	first := p.Phases[0]
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("phase %s: %d of %d tasks failed", first.Name, first.Tasks, first.Tasks)) ||
		!strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("RunLocal with failing tasks: %v", err)
	}
	log := filepath.Join(p.Out, "_logs", first.Name+"-00001.attempt-1.log")
	if !strings.Contains(err.Error(), log) {
		t.Errorf("the error does not name the log %s: %v", log, err)
	}
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), fmt.Sprintf("cannot run task %s --serve", planPath)) {
		t.Errorf("log %s: %q", log, b)
	}
	if sts := Status(p); sts[0].Done != 0 || sts[1].Done != 0 {
		t.Errorf("status after the failed phase: %+v", sts[:2])
	}
	if progress.Len() != 0 {
		t.Errorf("progress for a failed phase: %q", progress.String())
	}

	// A second attempt logs to a log of its own; the first attempt's stays.
	p.Binary = writeScript(t, filepath.Join(dir, "failing-again-sluice"), "echo \"still cannot run $*\"\nexit 4\n")
	err = RunLocal(context.Background(), p, planPath, 0, &progress)
	log2 := filepath.Join(p.Out, "_logs", first.Name+"-00001.attempt-2.log")
	if err == nil || !strings.Contains(err.Error(), log2) {
		t.Errorf("the second attempt's error does not name its log %s: %v", log2, err)
	}
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), "cannot run task") || strings.Contains(string(b), "still") {
		t.Errorf("the first attempt's log after a second attempt: %q", b)
	}
	if b, _ := os.ReadFile(log2); !strings.Contains(string(b), fmt.Sprintf("still cannot run task %s --serve", planPath)) {
		t.Errorf("the second attempt's log %s: %q", log2, b)
	}

	// A cancelled context stops it too.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p.Binary = writeScript(t, filepath.Join(dir, "slow-sluice"), "sleep 5\n")
	if err := RunLocal(ctx, p, planPath, 2, &progress); err == nil {
		t.Error("RunLocal with a cancelled context succeeded")
	}
}
