package command

import "github.com/urfave/cli/v2"

func demoCommand(s Streams) *cli.Command {
	return &cli.Command{Name: "demo", Usage: "run the pipeline on a sample corpus built into the binary"}
}
