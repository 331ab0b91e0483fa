package scaleout

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
// complete, each depending (afterok) on the one submitted before it. It
// returns the job ids, in phase order.
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
	sbatch := o.Sbatch
	if sbatch == "" {
		sbatch = "sbatch"
	}
	var ids []string
	prev := ""
	for k, ph := range p.Phases {
		if p.doneTasks(ph) == ph.Tasks {
			fmt.Fprintf(progress, "%-24s %d tasks already done\n", ph.Name, ph.Tasks)
			continue
		}
		args := []string{"--parsable"}
		if prev != "" {
			args = append(args, "--dependency=afterok:"+prev)
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
	}
	return ids, nil
}

func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+%@") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
