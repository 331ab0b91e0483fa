package command

import "github.com/urfave/cli/v2"

func inspectCommand(s Streams) *cli.Command {
	return &cli.Command{Name: "inspect", Usage: "show a dataset's schema, rows, sizes, null counts and text lengths"}
}
