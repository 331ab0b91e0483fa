package command

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/scaleout"
	"github.com/urfave/cli/v2"
)

func statusCommand(s Streams) *cli.Command {
	r := &Report{}
	return &cli.Command{
		Name:      "status",
		Usage:     "show the progress of a launched output: tasks done, running and failed per phase",
		ArgsUsage: "OUT",
		Flags:     reportFlags(r),
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("status takes one output directory, got %d arguments", c.NArg())
			}
			if err := r.check(); err != nil {
				return err
			}
			join := func(dir, name string) string { return filepath.Join(dir, name) }
			if blob.IsURL(c.Args().First()) {
				join = func(dir, name string) string { return blob.Join(dir, name) }
			}
			plan, err := scaleout.ReadPlan(join(c.Args().First(), scaleout.PlanFile))
			if err != nil {
				return usageError{err}
			}
			sts := scaleout.Status(plan)
			res := StatusResult{Output: c.Args().First(), Phases: phaseStates(sts), Complete: scaleout.Complete(sts)}
			if res.Complete {
				res.Manifest = join(c.Args().First(), "manifest.json")
			}
			// The jobs of the last Slurm launch still queued, when squeue is here.
			jobs, jobsErr := scaleout.SlurmJobs(c.Context, plan, scaleout.SlurmOptions{})
			if errors.Is(jobsErr, scaleout.ErrNoSqueue) {
				jobsErr = nil
			}
			if err := r.result(s.Out, res, func(w io.Writer) {
				scaleout.PrintStatus(w, sts)
				scaleout.PrintSlurmJobs(w, jobs)
				if jobsErr != nil {
					fmt.Fprintf(w, "the Slurm jobs of the last launch are unknown: %v\n", jobsErr)
				}
				if res.Complete {
					fmt.Fprintf(w, "complete: %s\n", res.Manifest)
				}
			}); err != nil {
				return err
			}
			return failedTasks(sts) // exit 1 when the launch failed
		}),
	}
}

// maxFailedListed bounds the failed tasks the error names; the status
// lines above it list them all.
const maxFailedListed = 3

// failedTasks returns an error naming the phase, index and log of the
// failed and interrupted tasks, or nil when there are none (the launch
// is waiting, running or complete).
func failedTasks(sts []scaleout.PhaseStatus) error {
	var failed []string
	n := 0
	for _, st := range sts {
		for _, m := range append(append([]scaleout.TaskStatus(nil), st.Failed...), st.Interrupted...) {
			n++
			if len(failed) == maxFailedListed {
				continue
			}
			msg := fmt.Sprintf("phase %s task %d %s", st.Phase.Name, m.Index, m.State)
			if m.State == scaleout.TaskInterrupted {
				msg += fmt.Sprintf(" on %s (pid %d): %s", m.Host, m.PID, m.Why)
			}
			if m.Error != "" {
				msg += ": " + m.Error
			}
			if m.Log != "" {
				msg += " (log " + m.Log + ")"
			}
			failed = append(failed, msg)
		}
	}
	if n == 0 {
		return nil
	}
	if n > len(failed) {
		failed = append(failed, fmt.Sprintf("and %d more", n-len(failed)))
	}
	return fmt.Errorf("launch failed: %d task(s) failed or were interrupted: %s; fix the cause and launch again to rerun them",
		n, strings.Join(failed, "; "))
}
