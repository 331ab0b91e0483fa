package scaleout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fakeSlurm writes sbatch, squeue and scancel scripts into dir: sbatch
// answers job ids from 2001 on; squeue prints the file queue (or fails
// as Slurm does when it knows none of the jobs asked, if queue is
// empty); both record their arguments in calls.
func fakeSlurm(t *testing.T, dir, queue string) (SlurmOptions, string) {
	t.Helper()
	calls := filepath.Join(dir, "calls")
	q := filepath.Join(dir, "queue")
	if err := os.WriteFile(q, []byte(queue), 0o644); err != nil {
		t.Fatal(err)
	}
	o := SlurmOptions{
		Sbatch: writeScript(t, filepath.Join(dir, "bin", "sbatch"), fmt.Sprintf(
			"echo \"sbatch $*\" >> %[1]s\nn=0\nwhile read -r _; do n=$((n + 1)); done < %[1]s\necho \"$((2000 + n))\"\n", calls)),
		Squeue: writeScript(t, filepath.Join(dir, "bin", "squeue"), fmt.Sprintf(
			"echo \"squeue $*\" >> %[1]s\nif [ ! -s %[2]s ]; then echo 'slurm_load_jobs error: Invalid job id specified' >&2; exit 1; fi\nwhile IFS= read -r line; do echo \"$line\"; done < %[2]s\n", calls, q)),
		Scancel: writeScript(t, filepath.Join(dir, "bin", "scancel"), fmt.Sprintf("echo \"scancel $*\" >> %s\n", calls)),
	}
	return o, calls
}

func readCalls(t *testing.T, calls string) []string {
	t.Helper()
	b, err := os.ReadFile(calls)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// SubmitSlurm records the chain it submitted; SlurmJobs reads what
// squeue says of it; CancelSubmitted cancels the jobs still queued and
// forgets the chain.
func TestSlurmChainIsRecordedListedAndCancelled(t *testing.T) {
	p, planPath, dir := smallPlan(t)
	// squeue: phase 1's array has one element running and two pending
	// (throttled); the write job waits on a dependency that failed; the
	// first job is not in the queue any more.
	queue := "2002|2002_0|RUNNING|None\n2002|2002_[1-2%1]|PENDING|JobArrayTaskLimit\n" +
		"2003|2003_[0-2]|PENDING|DependencyNeverSatisfied\n2004|2004|PENDING|Dependency\n"
	o, calls := fakeSlurm(t, dir, queue)
	ids, err := SubmitSlurm(context.Background(), p, planPath, o, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := p.Submitted()
	if err != nil || rec == nil {
		t.Fatalf("no record of the submission: %v", err)
	}
	var recorded []string
	for k, j := range rec.Jobs {
		recorded = append(recorded, j.Job)
		if j.Phase != p.Phases[k].Name || !strings.HasSuffix(j.Script, p.Phases[k].Name+".sbatch") {
			t.Errorf("recorded job %d: %+v", k, j)
		}
	}
	if !reflect.DeepEqual(recorded, ids) || len(ids) != len(p.Phases) {
		t.Errorf("recorded %v, submitted %v", recorded, ids)
	}

	jobs, err := SlurmJobs(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 3 {
		t.Fatalf("jobs %+v, want the 3 still queued", jobs)
	}
	if j := jobs[0]; j.Job != "2002" || j.Phase != p.Phases[1].Name || j.Running != 1 || j.Pending != 2 || j.Broken() {
		t.Errorf("job 2002: %+v", j)
	}
	if j := jobs[1]; j.Job != "2003" || j.Pending != 3 || !j.Broken() {
		t.Errorf("job 2003: %+v", j)
	}
	var text bytes.Buffer
	PrintSlurmJobs(&text, jobs)
	for _, want := range []string{
		"slurm job 2002 (s2-exact-reduce): 1 running, 2 pending (JobArrayTaskLimit)\n",
		"slurm job 2003 (write): 0 running, 3 pending (DependencyNeverSatisfied); it will never start, a job before it failed: launch again to cancel it and resubmit\n",
		"slurm job 2004 (merge): 0 running, 1 pending (Dependency)\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("jobs listed lack %q:\n%s", want, text.String())
		}
	}

	os.Remove(calls)
	var progress bytes.Buffer
	if err := CancelSubmitted(context.Background(), p, o, &progress); err != nil {
		t.Fatal(err)
	}
	got := readCalls(t, calls)
	if len(got) != 2 || !strings.Contains(got[0], "--jobs=2001,2002,2003,2004") || got[1] != "scancel 2002 2003 2004" {
		t.Errorf("calls %q: want squeue of the chain, then scancel of the jobs queued", got)
	}
	if !strings.Contains(progress.String(), "cancelled job 2003 of the last launch (0 running, 3 pending)") {
		t.Errorf("progress: %q", progress.String())
	}
	if rec, _ := p.Submitted(); rec != nil {
		t.Errorf("the chain is still recorded once cancelled: %+v", rec)
	}
	// Nothing recorded: nothing to ask or cancel.
	os.Remove(calls)
	if err := CancelSubmitted(context.Background(), p, o, &progress); err != nil || readCalls(t, calls) != nil {
		t.Errorf("without a record: %v, calls %q", err, readCalls(t, calls))
	}
}

// A chain that ended is forgotten without a scancel; one whose state is
// unknown (no squeue) stops the new launch with the job ids to cancel.
func TestCancelSubmittedWhenTheChainEndedOrIsUnknown(t *testing.T) {
	p, planPath, dir := smallPlan(t)
	o, calls := fakeSlurm(t, dir, "")
	if _, err := SubmitSlurm(context.Background(), p, planPath, o, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if jobs, err := SlurmJobs(context.Background(), p, o); err != nil || len(jobs) != 0 {
		t.Errorf("jobs squeue does not know: %+v, %v", jobs, err)
	}
	os.Remove(calls)
	if err := CancelSubmitted(context.Background(), p, o, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	if got := readCalls(t, calls); len(got) != 1 || !strings.HasPrefix(got[0], "squeue ") {
		t.Errorf("calls %q: want squeue alone", got)
	}

	if _, err := SubmitSlurm(context.Background(), p, planPath, o, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	o.Squeue = filepath.Join(dir, "no-such-squeue")
	_, err := SlurmJobs(context.Background(), p, o)
	if !errors.Is(err, ErrNoSqueue) {
		t.Errorf("SlurmJobs without squeue: %v", err)
	}
	err = CancelSubmitted(context.Background(), p, o, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "scancel 2002 2003 2004 2005") || !strings.Contains(err.Error(), "submitted.json") {
		t.Errorf("CancelSubmitted without squeue: %v", err)
	}
}

func TestArrayElements(t *testing.T) {
	for id, want := range map[string]int{"12": 1, "12_3": 1, "12_[0-3]": 4, "12_[0-3,7%2]": 5, "12_[5]": 1, "12_[1,4-5]": 3} {
		if got := arrayElements(id); got != want {
			t.Errorf("%s: %d elements, want %d", id, got, want)
		}
	}
}
