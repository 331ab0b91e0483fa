package command

import (
	"context"

	"github.com/urfave/cli/v2"
)

func classifyCommand(s Streams) *cli.Command {
	o := &CleanOptions{}
	return &cli.Command{
		Name:      "classify",
		Usage:     "language ID and fastText classifiers: add lang/lang_score and NAME_label/NAME_score columns, or filter by them",
		ArgsUsage: "IN... -o OUT (--lang CODES|any and/or --classify NAME=MODEL.bin[:LABEL[:THRESHOLD]])",
		Description: "Runs the fastText stages of `sluice clean` alone: lang (the built-in lid.176 model, or --lang-model)\n" +
			"and one classify stage per --classify, in that order. Models are read by sluice itself (.bin and\n" +
			"quantized .ftz) and predict what the fastText command line predicts. Filtered rows go to removed/\n" +
			"with _stage and _reason; --annotate keeps every row and adds keep and drop_reason.",
		Flags: append(append(append(inputFlags(&o.ConvertOptions), optionalOutput(outputFlags(&o.ConvertOptions))...),
			annotateFlag(o)),
			classifierFlags(o)...),
		Action: action(func(c *cli.Context) error {
			return runClassify(c.Context, o, c.Args().Slice(), commandLine(c), s)
		}),
		Subcommands: []*cli.Command{classifyTrainCommand(s), classifyTestCommand(s)},
	}
}

// optionalOutput makes -o optional where urfave/cli would check it: a
// command with subcommands checks its own required flags before it
// dispatches to a subcommand, so `classify train` would need classify's
// -o. runClassify checks it instead.
func optionalOutput(flags []cli.Flag) []cli.Flag {
	for _, f := range flags {
		if o, ok := f.(*cli.StringFlag); ok && o.Name == "output" {
			o.Required = false
		}
	}
	return flags
}

func runClassify(ctx context.Context, o *CleanOptions, args, command []string, s Streams) error {
	if o.Output == "" {
		return usagef("no output: give -o OUT (a dataset directory or a .parquet or .jsonl file)")
	}
	if o.Lang == "" && len(o.Classify.Value()) == 0 {
		return usagef("nothing to classify: give --lang CODES (or any) and/or --classify NAME=MODEL.bin[:LABEL[:THRESHOLD]]")
	}
	return runClean(ctx, o, args, command, s)
}
