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
	var lease scaleout.LeaseTiming
	r := &Report{}
	return &cli.Command{
		Name:      "task",
		Usage:     "run one task of a launched plan (what a scheduler's array task calls)",
		ArgsUsage: "OUT/_plan.json --phase PHASE --index I",
		Description: "The task writes only its own files, each renamed into place when complete, and its marker\n" +
			"last. A task already done returns at once; one that was interrupted starts again from clean.\n" +
			"It works under a lease (OUT/_work/markers/<phase>-<task>.running), renewed every --heartbeat:\n" +
			"while another copy of the task holds a live lease, this one waits for it to end (and does\n" +
			"nothing if that copy completed the task); a lease not renewed for --lease-expiry, or whose\n" +
			"process on this host is gone, is taken over.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "phase", Required: true, Destination: &phase, Usage: "the `PHASE`, as 'sluice status' names it"},
			&cli.IntFlag{Name: "index", Value: -1, Destination: &index, Usage: "the task's index in the phase, from 0"},
			&cli.StringFlag{Name: "log", Destination: &log, Usage: "the `FILE` the task's output goes to, recorded for 'sluice status'"},
			&cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Destination: &workers,
				Usage: "workers (and cores) of this task instead of the plan's; the output is the same (default: the plan's)"},
			&cli.DurationFlag{Name: "heartbeat", Value: scaleout.DefaultLease.Heartbeat, Destination: &lease.Heartbeat,
				Usage: "how often the task renews its lease"},
			&cli.DurationFlag{Name: "lease-expiry", Value: scaleout.DefaultLease.Expiry, Destination: &lease.Expiry,
				Usage: "how long the lease lives without renewal: past it, another copy of the task takes the task over"},
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
			return runTask(c.Context, c.Args().First(), phase, index, workers, log, lease, *r, s)
		}),
	}
}

func runTask(ctx context.Context, planPath, phase string, index, workers int, log string, lease scaleout.LeaseTiming, r Report, s Streams) error {
	started := scaleout.ProcessStart() // the task's marker records its times from there
	plan, err := scaleout.ReadPlan(planPath)
	if err != nil {
		return usageError{err}
	}
	if workers > 0 {
		plan.Settings.Workers = workers
	}
	// A task of an object-store output may run where the launch's
	// directory is not (a pod without a shared volume): it then runs in
	// its own, and the plan's inputs must be URLs or absolute paths.
	if err := os.Chdir(plan.Dir); err != nil && !(plan.IsRemote() && errors.Is(err, fs.ErrNotExist)) {
		return err
	}
	start := time.Now()
	restore := limitCores(plan.Settings.Workers)
	ran, err := scaleout.RunTaskWith(ctx, plan, phase, index, scaleout.TaskOptions{Version: Version, Log: log, Lease: lease, Progress: s.Err, Started: started})
	restore()
	if err != nil {
		return fmt.Errorf("phase %s task %d: %w", phase, index, err)
	}
	res := TaskResult{Phase: phase, Index: index, Ran: ran, Seconds: time.Since(start).Seconds()}
	return r.result(s.Out, res, func(w io.Writer) {
		if ran {
			fmt.Fprintf(w, "phase %s task %d done in %.2fs\n", phase, index, res.Seconds)
		} else {
			fmt.Fprintf(w, "phase %s task %d was already done\n", phase, index)
		}
	})
}
