package command

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/sluice-data/sluice/scaleout"
	"github.com/urfave/cli/v2"
)

func taskCommand(s Streams) *cli.Command {
	var phase, log string
	var index, workers int
	var serve bool
	var lease scaleout.LeaseTiming
	r := &Report{}
	return &cli.Command{
		Name:      "task",
		Usage:     "run one task of a launched plan (what a scheduler's array task calls)",
		ArgsUsage: "OUT/_plan.json --phase PHASE --index I | OUT/_plan.json --serve",
		Description: "The task writes only its own files, each renamed into place when complete, and its marker\n" +
			"last. A task already done returns at once; one that was interrupted starts again from clean.\n" +
			"It works under a lease (OUT/_work/markers/<phase>-<task>.running), renewed every --heartbeat:\n" +
			"while another copy of the task holds a live lease, this one waits for it to end (and does\n" +
			"nothing if that copy completed the task); a lease not renewed for --lease-expiry, or whose\n" +
			"process on this host is gone, is taken over.\n" +
			"With --serve it runs the tasks it is given on standard input instead, one after the other in\n" +
			"this process (each a JSON line {\"phase\", \"index\", \"workers\", \"log\", \"log_file\"}; each task's\n" +
			"output goes to its log_file), answers each on standard output, and ends with its input: what\n" +
			"the local executor of 'sluice launch' runs, one process a slot.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "phase", Destination: &phase, Usage: "the `PHASE`, as 'sluice status' names it"},
			&cli.IntFlag{Name: "index", Value: -1, Destination: &index, Usage: "the task's index in the phase, from 0"},
			&cli.StringFlag{Name: "log", Destination: &log, Usage: "the `FILE` the task's output goes to, recorded for 'sluice status'"},
			&cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Destination: &workers,
				Usage: "workers (and cores) of this task instead of the plan's; the output is the same (default: the plan's)"},
			&cli.DurationFlag{Name: "heartbeat", Value: scaleout.DefaultLease.Heartbeat, Destination: &lease.Heartbeat,
				Usage: "how often the task renews its lease"},
			&cli.DurationFlag{Name: "lease-expiry", Value: scaleout.DefaultLease.Expiry, Destination: &lease.Expiry,
				Usage: "how long the lease lives without renewal: past it, another copy of the task takes the task over"},
			&cli.BoolFlag{Name: "serve", Destination: &serve,
				Usage: "run the tasks requested on standard input, one after the other, until it ends (see above)"},
			jsonFlag(&r.JSON),
			quietFlag(&r.Quiet),
		},
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("task takes one plan file, got %d arguments", c.NArg())
			}
			if err := lease.Check(); err != nil {
				return usagef("--lease-expiry: %v", err)
			}
			if workers < 0 {
				return usagef("--workers must be at least 1")
			}
			planPath := c.Args().First()
			if serve {
				if phase != "" || index != -1 || log != "" || workers != 0 {
					return usagef("--serve takes each task's phase, index, workers and log from its input, not from flags")
				}
				jsonLog := c.String("log-format") == "json"
				return scaleout.ServeTasks(c.Context, s.In, s.Out,
					func(ctx context.Context, req scaleout.TaskRequest, log io.Writer) (bool, error) {
						return runTask(ctx, planPath, req.Phase, req.Index, req.Workers, req.Log, lease, *r, Streams{Out: log, Err: log})
					},
					func(w io.Writer, err error) { printError(w, err, jsonLog) })
			}
			if phase == "" {
				return usagef("task needs --phase (or --serve)")
			}
			if !c.IsSet("index") {
				return usagef("task needs --index I, the task's index in phase %s (from 0)", phase)
			}
			_, err := runTask(c.Context, planPath, phase, index, workers, log, lease, *r, s)
			return err
		}),
	}
}

// checkTask refuses a phase the plan has not, or an index past its tasks.
func checkTask(plan *scaleout.Plan, phase string, index int) error {
	ph, err := plan.Phase(phase)
	if err != nil {
		return fmt.Errorf("--phase: %w", err)
	}
	if index < 0 || index >= ph.Tasks {
		return fmt.Errorf("--index %d: phase %s has tasks 0 to %d", index, ph.Name, ph.Tasks-1)
	}
	return nil
}

// runTask runs one task and reports whether it ran (not: it was done).
func runTask(ctx context.Context, planPath, phase string, index, workers int, log string, lease scaleout.LeaseTiming, r Report, s Streams) (bool, error) {
	started := scaleout.ProcessStart() // the task's marker records its times from there
	plan, err := scaleout.ReadPlan(planPath)
	if err != nil {
		return false, usageError{err}
	}
	if err := checkTask(plan, phase, index); err != nil {
		return false, usageError{err}
	}
	if workers > 0 {
		plan.Settings.Workers = workers
	}
	// A task of an object-store output may run where the launch's
	// directory is not (a pod without a shared volume): it then runs in
	// its own, and the plan's inputs must be URLs or absolute paths.
	if err := os.Chdir(plan.Dir); err != nil && !(plan.IsRemote() && errors.Is(err, fs.ErrNotExist)) {
		return false, err
	}
	start := time.Now()
	restore := limitCores(plan.Settings.Workers)
	ran, err := scaleout.RunTaskWith(ctx, plan, phase, index, scaleout.TaskOptions{Version: Version, Log: log, Lease: lease, Progress: s.Err, Started: started})
	restore()
	if err != nil {
		return false, fmt.Errorf("phase %s task %d: %w", phase, index, err)
	}
	res := TaskResult{Phase: phase, Index: index, Ran: ran, Seconds: time.Since(start).Seconds()}
	return ran, r.result(s.Out, res, func(w io.Writer) {
		if ran {
			fmt.Fprintf(w, "phase %s task %d done in %.2fs\n", phase, index, res.Seconds)
		} else {
			fmt.Fprintf(w, "phase %s task %d was already done\n", phase, index)
		}
	})
}
