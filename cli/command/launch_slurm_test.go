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
	st, _ := runMain(t, "status", out)
	if !strings.Contains(st, "complete: ") {
		t.Errorf("status of a finished launch:\n%s", st)
	}
	fmt.Fprint(os.Stderr, st)
}
