package command

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sluice-data/sluice/internal/datasettest"
	"github.com/sluice-data/sluice/scaleout"
)

// TestLaunchOnSlurm runs the pipeline as Slurm job arrays. It runs when
// SLUICE_TEST_SLURM=1: it then starts a one-node cluster with
// .ci/slurm.sh unless one answers already, and stops what it started.
func TestLaunchOnSlurm(t *testing.T) {
	requireSlurm(t)
	bin := sluiceBinary(t)
	// Slurm's jobs run on the node's file system: the test's temporary
	// directory is local to this machine, as the one node is.
	dir := t.TempDir()
	in := dupCorpus(t, dir, 12, 200)
	pipe := dedupPipeline(t, dir, in)
	single := filepath.Join(dir, "single")
	runMain(t, "run", pipe, "-o", single, "--no-progress", "--batch-rows", "64")

	out := filepath.Join(dir, "slurm")
	stdout, _ := runMain(t, "launch", pipe, "-o", out, "--executor", "slurm", "--tasks", "4", "--sluice-binary", bin,
		"--no-progress", "--batch-rows", "64", "--workers", "1", "--slurm-cpus-per-task", "1", "--slurm-time", "10:00",
		"--max-parallel", "2", "--tasks-per-job", "2")
	var jobs []string
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[1] == "job" {
			jobs = append(jobs, f[2])
		}
	}
	if len(jobs) == 0 {
		t.Fatalf("launch submitted no job:\n%s", stdout)
	}
	t.Cleanup(func() { exec.Command("scancel", jobs...).Run() }) // those still queued after a failure
	scripts, _ := filepath.Glob(filepath.Join(out, "_jobs", "*.sbatch"))
	if len(scripts) == 0 {
		t.Fatal("no sbatch script in _jobs")
	}
	b, _ := os.ReadFile(scripts[0])
	if !strings.Contains(string(b), "#SBATCH --array=0-1%2") {
		t.Errorf("4 tasks, 2 a job, 2 at once should be --array=0-1%%2:\n%s", b)
	}
	plan, err := scaleout.ReadPlan(filepath.Join(out, scaleout.PlanFile))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		sts := scaleout.Status(plan)
		if scaleout.Complete(sts) {
			break
		}
		for _, st := range sts {
			if len(st.Failed) > 0 {
				var sb strings.Builder
				scaleout.PrintStatus(&sb, sts)
				t.Fatalf("a task failed on Slurm:\n%s", sb.String())
			}
		}
		if time.Now().After(deadline) {
			var sb strings.Builder
			scaleout.PrintStatus(&sb, sts)
			q, _ := exec.Command("squeue").CombinedOutput()
			t.Fatalf("Slurm jobs did not finish in 3 minutes:\n%s\n%s", sb.String(), q)
		}
		time.Sleep(500 * time.Millisecond)
	}
	datasettest.Compare(t, "slurm --tasks 4", datasettest.Read(t, out), datasettest.Read(t, single))
	if rec, _ := plan.Submitted(); rec == nil || len(rec.Jobs) != len(jobs) {
		t.Errorf("the submitted jobs %v are not recorded in _jobs/submitted.json: %+v", jobs, rec)
	}
	st, _ := runMain(t, "status", out)
	if !strings.Contains(st, "complete: ") {
		t.Errorf("status of a finished launch:\n%s", st)
	}
	fmt.Fprint(os.Stderr, st)
}

// requireSlurm skips the test unless SLUICE_TEST_SLURM=1; it then starts
// a one-node cluster with .ci/slurm.sh unless one answers already, and
// stops what it started.
func requireSlurm(t *testing.T) {
	t.Helper()
	if os.Getenv("SLUICE_TEST_SLURM") != "1" {
		t.Skip("set SLUICE_TEST_SLURM=1 to run against a Slurm cluster (.ci/slurm.sh starts one on this machine)")
	}
	if exec.Command("sinfo").Run() != nil {
		script, _ := filepath.Abs("../../.ci/slurm.sh")
		if out, err := exec.Command("sh", script, "start").CombinedOutput(); err != nil {
			t.Fatalf("starting Slurm: %v\n%s", err, out)
		}
		t.Cleanup(func() { exec.Command("sh", script, "stop").Run() })
	}
}

// submittedJobs returns the job ids a launch printed.
func submittedJobs(stdout string) []string {
	var jobs []string
	for _, line := range strings.Split(stdout, "\n") {
		if f := strings.Fields(line); len(f) >= 3 && f[1] == "job" {
			jobs = append(jobs, f[2])
		}
	}
	return jobs
}

// queued returns the jobs of ids that squeue still lists.
func queued(t *testing.T, ids []string) string {
	t.Helper()
	out, _ := exec.Command("squeue", "--noheader", "--jobs="+strings.Join(ids, ","), "--format=%i %T %r").CombinedOutput()
	if strings.Contains(string(out), "Invalid job id") {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// On Slurm, a failed task does not leave the jobs after it pending
// forever: they are cancelled (--kill-on-invalid-dep). A relaunch cancels
// the chain of the launch before it that is still queued, and completes.
func TestLaunchOnSlurmCancelsTheChainOfAFailedTask(t *testing.T) {
	requireSlurm(t)
	bin := sluiceBinary(t)
	dir := t.TempDir()
	in := dupCorpus(t, dir, 8, 150)
	pipe := dedupPipeline(t, dir, in)
	single := filepath.Join(dir, "single")
	runMain(t, "run", pipe, "-o", single, "--no-progress", "--batch-rows", "64")
	// The tasks' binary moves the input away when the first phase starts:
	// the tasks of that phase fail on the missing files.
	failing := filepath.Join(dir, "failing-sluice")
	script := fmt.Sprintf("#!/bin/sh\nif [ \"$4\" = s1-exact-map ] && [ -d %[1]s ]; then mv %[1]s %[1]s.aside; fi\nexec %[2]s \"$@\"\n", in, bin)
	if err := os.WriteFile(failing, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	args := func(out, binary string) []string {
		return []string{"launch", pipe, "-o", out, "--executor", "slurm", "--tasks", "4", "--sluice-binary", binary,
			"--no-progress", "--batch-rows", "64", "--workers", "1", "--slurm-cpus-per-task", "1", "--slurm-time", "10:00",
			"--max-parallel", "2"}
	}
	out := filepath.Join(dir, "slurm")
	stdout, _ := runMain(t, args(out, failing)...)
	jobs := submittedJobs(stdout)
	if len(jobs) < 3 {
		t.Fatalf("launch submitted %d jobs:\n%s", len(jobs), stdout)
	}
	t.Cleanup(func() { exec.Command("scancel", jobs...).Run() })
	deadline := time.Now().Add(3 * time.Minute)
	for queued(t, jobs) != "" {
		if time.Now().After(deadline) {
			t.Fatalf("jobs of the failed chain are still queued after 3 minutes:\n%s", queued(t, jobs))
		}
		time.Sleep(500 * time.Millisecond)
	}
	code, st, errs := mainCode("status", out)
	if code != 1 || !strings.Contains(errs, "phase s1-exact-map task") || !strings.Contains(errs, "log ") {
		t.Errorf("status of the failed chain: exit %d\n%s%s", code, st, errs)
	}

	// Put the input back and launch twice: the second launch cancels the
	// first's chain, still queued, and its own completes.
	if err := os.Rename(in+".aside", in); err != nil {
		t.Fatal(err)
	}
	stdout, _ = runMain(t, args(out, bin)...)
	first := submittedJobs(stdout)
	t.Cleanup(func() { exec.Command("scancel", first...).Run() })
	stdout, _ = runMain(t, args(out, bin)...)
	second := submittedJobs(stdout)
	t.Cleanup(func() { exec.Command("scancel", second...).Run() })
	if !strings.Contains(stdout, "cancelled job "+first[len(first)-1]+" of the last launch") {
		t.Errorf("the relaunch does not say it cancelled the queued job %s:\n%s", first[len(first)-1], stdout)
	}
	if q := queued(t, first); q != "" {
		t.Errorf("jobs of the first chain still queued after the relaunch:\n%s", q)
	}
	plan, err := scaleout.ReadPlan(filepath.Join(out, scaleout.PlanFile))
	if err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(3 * time.Minute)
	for !scaleout.Complete(scaleout.Status(plan)) {
		if time.Now().After(deadline) {
			_, st, _ := mainCode("status", out)
			t.Fatalf("the relaunched chain did not complete in 3 minutes:\n%s\n%s", st, queued(t, second))
		}
		time.Sleep(500 * time.Millisecond)
	}
	datasettest.Compare(t, "slurm, relaunched", datasettest.Read(t, out), datasettest.Read(t, single))
}
