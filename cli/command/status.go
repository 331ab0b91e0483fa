package command

import (
	"fmt"
	"path/filepath"

	"github.com/sluice-data/sluice/scaleout"
	"github.com/urfave/cli/v2"
)

func statusCommand(s Streams) *cli.Command {
	return &cli.Command{
		Name:      "status",
		Usage:     "show the progress of a launched output: tasks done, running and failed per phase",
		ArgsUsage: "OUT",
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("status takes one output directory, got %d arguments", c.NArg())
			}
			plan, err := scaleout.ReadPlan(filepath.Join(c.Args().First(), scaleout.PlanFile))
			if err != nil {
				return usageError{err}
			}
			sts := scaleout.Status(plan)
			scaleout.PrintStatus(s.Out, sts)
			if scaleout.Complete(sts) {
				fmt.Fprintf(s.Out, "complete: %s\n", filepath.Join(c.Args().First(), "manifest.json"))
			}
			return nil
		}),
	}
}
