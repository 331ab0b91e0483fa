package scaleout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sluice-data/sluice/io/dataset"
)

// SlurmOptions are the sbatch settings of every phase's job array.
type SlurmOptions struct {
	Partition   string // --partition, when set
	CPUsPerTask int    // --cpus-per-task, when above 0
	Mem         string // --mem, e.g. 8G, when set
	Time        string // --time, e.g. 2:00:00, when set
	MaxParallel int    // the array's % throttle, when above 0
	TasksPerJob int    // tasks each array element runs in turn, so that N tasks fit MaxArraySize
	Sbatch      string // the sbatch program; "sbatch" when empty
	Squeue      string // the squeue program; "squeue" when empty
	Scancel     string // the scancel program; "scancel" when empty
}

func (o SlurmOptions) program(set, name string) string {
	if set != "" {
		return set
	}
	return name
}

// SlurmScripts writes one sbatch array script per phase into OUT/_jobs/
// and returns their paths, in phase order. Array element j runs tasks
// j*TasksPerJob to (j+1)*TasksPerJob-1 of the phase; a task already done
// returns at once, so a resubmitted array redoes only what is missing.
func SlurmScripts(p *Plan, planPath string, o SlurmOptions) ([]string, error) {
	tpj := max(o.TasksPerJob, 1)
	var paths []string
	for k, ph := range p.Phases {
		jobs := (ph.Tasks + tpj - 1) / tpj
		array := fmt.Sprintf("0-%d", jobs-1)
		if o.MaxParallel > 0 {
			array += "%" + strconv.Itoa(o.MaxParallel)
		}
		var b strings.Builder
		b.WriteString("#!/bin/bash\n")
		fmt.Fprintf(&b, "#SBATCH --job-name=sluice-%s\n", ph.Name)
		fmt.Fprintf(&b, "#SBATCH --array=%s\n", array)
		fmt.Fprintf(&b, "#SBATCH --output=%s\n", p.absPath("_logs", ph.Name+"-%A_%a.log"))
		// A requeued element appends to its log; a job whose dependency
		// can never be met (a task before it failed) is cancelled rather
		// than left pending.
		b.WriteString("#SBATCH --open-mode=append\n#SBATCH --kill-on-invalid-dep=yes\n")
		if o.Partition != "" {
			fmt.Fprintf(&b, "#SBATCH --partition=%s\n", o.Partition)
		}
		if o.CPUsPerTask > 0 {
			fmt.Fprintf(&b, "#SBATCH --cpus-per-task=%d\n", o.CPUsPerTask)
		}
		if o.Mem != "" {
			fmt.Fprintf(&b, "#SBATCH --mem=%s\n", o.Mem)
		}
		if o.Time != "" {
			fmt.Fprintf(&b, "#SBATCH --time=%s\n", o.Time)
		}
		fmt.Fprintf(&b, "# phase %d of %d: %s, %d tasks, %d per array element\n", k+1, len(p.Phases), ph.Name, ph.Tasks, tpj)
		b.WriteString("set -euo pipefail\n")
		fmt.Fprintf(&b, "cd %s\n", shellQuote(p.Dir))
		fmt.Fprintf(&b, "first=$((SLURM_ARRAY_TASK_ID * %d))\n", tpj)
		fmt.Fprintf(&b, "for ((i = first; i < first + %d && i < %d; i++)); do\n", tpj, ph.Tasks)
		fmt.Fprintf(&b, "  %s task %s --phase %s --index \"$i\" --log %s\n", shellQuote(p.Binary), shellQuote(planPath), ph.Name,
			shellQuote(p.absPath("_logs", ph.Name))+"-\"${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}\".log")
		b.WriteString("done\n")
		path := p.absPath("_jobs", fmt.Sprintf("%02d-%s.sbatch", k, ph.Name))
		if err := dataset.WriteFile(path, []byte(b.String())); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// SubmitSlurm writes the scripts and submits the phases that are not
// complete, each depending (afterok, --kill-on-invalid-dep=yes) on the
// one submitted before it, and records the job ids in
// OUT/_jobs/submitted.json as it goes. It returns the job ids, in phase
// order. Cancel the chain of an earlier launch first (CancelSubmitted).
func SubmitSlurm(ctx context.Context, p *Plan, planPath string, o SlurmOptions, progress io.Writer) ([]string, error) {
	scripts, err := SlurmScripts(p, planPath, o)
	if err != nil {
		return nil, err
	}
	// Slurm opens the --output files itself, and fails the job if their
	// directory is missing.
	if err := os.MkdirAll(p.absPath("_logs"), 0o755); err != nil {
		return nil, err
	}
	sbatch := o.program(o.Sbatch, "sbatch")
	rec := Submission{Submitted: now()}
	var ids []string
	prev := ""
	for k, ph := range p.Phases {
		if p.doneTasks(ph) == ph.Tasks {
			fmt.Fprintf(progress, "%-24s %d tasks already done\n", ph.Name, ph.Tasks)
			continue
		}
		args := []string{"--parsable"}
		if prev != "" {
			args = append(args, "--dependency=afterok:"+prev, "--kill-on-invalid-dep=yes")
		}
		args = append(args, scripts[k])
		cmd := exec.CommandContext(ctx, sbatch, args...)
		cmd.Dir = p.Dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return ids, fmt.Errorf("%s %s: %v: %s", sbatch, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		id, _, _ := strings.Cut(strings.TrimSpace(string(out)), ";")
		if _, err := strconv.Atoi(id); err != nil {
			return ids, fmt.Errorf("%s: unexpected answer %q", sbatch, out)
		}
		fmt.Fprintf(progress, "%-24s job %s (%s)\n", ph.Name, id, filepath.Base(scripts[k]))
		ids = append(ids, id)
		prev = id
		rec.Jobs = append(rec.Jobs, SubmittedJob{Phase: ph.Name, Job: id, Script: scripts[k]})
		if err := writeJSON(p.submittedPath(), rec); err != nil {
			return ids, err
		}
	}
	return ids, nil
}

// Submission is OUT/_jobs/submitted.json: the chain of jobs the last
// Slurm launch of the output submitted.
type Submission struct {
	Submitted string         `json:"submitted"`
	Jobs      []SubmittedJob `json:"jobs"`
}

// SubmittedJob is one phase's job array.
type SubmittedJob struct {
	Phase  string `json:"phase"`
	Job    string `json:"job"`
	Script string `json:"script"`
}

func (p *Plan) submittedPath() string { return p.absPath("_jobs", "submitted.json") }

// Submitted reads the chain of jobs the last Slurm launch of the output
// submitted; nil when there is none.
func (p *Plan) Submitted() (*Submission, error) {
	b, err := os.ReadFile(p.submittedPath())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s Submission
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", p.submittedPath(), err)
	}
	return &s, nil
}

// SlurmJob is what squeue says of a submitted job array.
type SlurmJob struct {
	SubmittedJob
	Pending, Running, Other int
	// Reasons are the reasons squeue gives for the pending elements.
	Reasons []string
}

// Queued reports whether any element of the job is still queued.
func (j SlurmJob) Queued() bool { return j.Pending+j.Running+j.Other > 0 }

// Broken reports whether the job waits on a dependency that can never
// be met: a job before it in the chain failed.
func (j SlurmJob) Broken() bool { return slices.Contains(j.Reasons, "DependencyNeverSatisfied") }

// ErrNoSqueue is returned when the squeue program is not installed.
var ErrNoSqueue = errors.New("squeue is not installed")

// SlurmJobs asks squeue about the jobs of the last Slurm launch of the
// output: those still queued, in phase order. It returns nil when the
// output has no record of submitted jobs, and ErrNoSqueue (wrapped) when
// squeue is not installed.
func SlurmJobs(ctx context.Context, p *Plan, o SlurmOptions) ([]SlurmJob, error) {
	rec, err := p.Submitted()
	if err != nil || rec == nil || len(rec.Jobs) == 0 {
		return nil, err
	}
	squeue, err := exec.LookPath(o.program(o.Squeue, "squeue"))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoSqueue, err)
	}
	ids := make([]string, len(rec.Jobs))
	for k, j := range rec.Jobs {
		ids[k] = j.Job
	}
	cmd := exec.CommandContext(ctx, squeue, "--noheader", "--jobs="+strings.Join(ids, ","), "--format=%F|%i|%T|%r")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		// squeue fails when it knows none of the jobs: they all ended.
		if strings.Contains(stderr.String(), "Invalid job id") {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: %v: %s", squeue, err, strings.TrimSpace(stderr.String()))
	}
	byID := map[string]*SlurmJob{}
	jobs := make([]SlurmJob, len(rec.Jobs))
	for k, j := range rec.Jobs {
		jobs[k].SubmittedJob = j
		byID[j.Job] = &jobs[k]
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) != 4 {
			continue
		}
		j := byID[f[0]]
		if j == nil {
			continue
		}
		n := arrayElements(f[1])
		switch f[2] {
		case "PENDING":
			j.Pending += n
			if !slices.Contains(j.Reasons, f[3]) {
				j.Reasons = append(j.Reasons, f[3])
			}
		case "RUNNING":
			j.Running += n
		default:
			j.Other += n
		}
	}
	return slices.DeleteFunc(jobs, func(j SlurmJob) bool { return !j.Queued() }), nil
}

// arrayElements counts the elements squeue's job id names: 12_3 is one,
// 12_[0-3,7%2] five.
func arrayElements(id string) int {
	_, r, ok := strings.Cut(id, "_[")
	if !ok {
		return 1
	}
	r, _, _ = strings.Cut(strings.TrimSuffix(r, "]"), "%")
	n := 0
	for _, part := range strings.Split(r, ",") {
		a, b, isRange := strings.Cut(part, "-")
		lo, err1 := strconv.Atoi(a)
		hi, err2 := strconv.Atoi(b)
		if isRange && err1 == nil && err2 == nil && hi >= lo {
			n += hi - lo + 1
		} else {
			n++
		}
	}
	return n
}

// CancelSubmitted cancels the jobs of the output's last Slurm launch
// that are still queued (pending or running), so that a new launch does
// not leave a chain of the old one behind, and removes the record. It
// says what it cancelled, or what it could not, to progress.
func CancelSubmitted(ctx context.Context, p *Plan, o SlurmOptions, progress io.Writer) error {
	rec, err := p.Submitted()
	if err != nil || rec == nil {
		return err
	}
	jobs, err := SlurmJobs(ctx, p, o)
	if err != nil {
		var ids []string
		for _, j := range rec.Jobs {
			ids = append(ids, j.Job)
		}
		return fmt.Errorf("the last launch of %s submitted Slurm jobs %s, and whether they still run is unknown (%v); "+
			"cancel them (scancel %s) or remove %s, then launch again", p.Out, strings.Join(ids, ", "), err,
			strings.Join(ids, " "), p.submittedPath())
	}
	if len(jobs) > 0 {
		scancel := o.program(o.Scancel, "scancel")
		args := make([]string, len(jobs))
		for k, j := range jobs {
			args[k] = j.Job
		}
		out, err := exec.CommandContext(ctx, scancel, args...).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s %s: %v: %s", scancel, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
		for _, j := range jobs {
			fmt.Fprintf(progress, "%-24s cancelled job %s of the last launch (%d running, %d pending)\n", j.Phase, j.Job, j.Running, j.Pending)
		}
	}
	return os.Remove(p.submittedPath())
}

// PrintSlurmJobs writes a line for each job of the last Slurm launch
// still queued.
func PrintSlurmJobs(w io.Writer, jobs []SlurmJob) {
	for _, j := range jobs {
		fmt.Fprintf(w, "slurm job %s (%s): %d running, %d pending", j.Job, j.Phase, j.Running, j.Pending)
		if len(j.Reasons) > 0 {
			fmt.Fprintf(w, " (%s)", strings.Join(j.Reasons, ", "))
		}
		if j.Broken() {
			fmt.Fprint(w, "; it will never start, a job before it failed: launch again to cancel it and resubmit")
		}
		fmt.Fprintln(w)
	}
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+%@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
