package command

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/sluice-data/sluice/scaleout"
	"github.com/urfave/cli/v2"
)

func taskCommand(s Streams) *cli.Command {
	var phase, log string
	var index int
	return &cli.Command{
		Name:      "task",
		Usage:     "run one task of a launched plan (what a scheduler's array task calls)",
		ArgsUsage: "OUT/_plan.json --phase PHASE --index I",
		Description: "The task writes only its own files, each renamed into place when complete, and its marker\n" +
			"last. A task already done returns at once; one that was interrupted starts again from clean.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "phase", Required: true, Destination: &phase, Usage: "the `PHASE`, as 'sluice status' names it"},
			&cli.IntFlag{Name: "index", Value: -1, Destination: &index, Usage: "the task's index in the phase, from 0"},
			&cli.StringFlag{Name: "log", Destination: &log, Usage: "the `FILE` the task's output goes to, recorded for 'sluice status'"},
		},
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("task takes one plan file, got %d arguments", c.NArg())
			}
			return runTask(c.Context, c.Args().First(), phase, index, log, s)
		}),
	}
}

func runTask(ctx context.Context, planPath, phase string, index int, log string, s Streams) error {
	plan, err := scaleout.ReadPlan(planPath)
	if err != nil {
		return usageError{err}
	}
	if err := os.Chdir(plan.Dir); err != nil {
		return err
	}
	start := time.Now()
	restore := limitCores(plan.Settings.Workers)
	ran, err := scaleout.RunTask(ctx, plan, phase, index, Version, log)
	restore()
	if err != nil {
		return fmt.Errorf("phase %s task %d: %w", phase, index, err)
	}
	if ran {
		fmt.Fprintf(s.Out, "phase %s task %d done in %.2fs\n", phase, index, time.Since(start).Seconds())
	} else {
		fmt.Fprintf(s.Out, "phase %s task %d was already done\n", phase, index)
	}
	return nil
}
