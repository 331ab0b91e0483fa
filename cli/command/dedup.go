package command

import (
	"context"
	"fmt"
	"os"
	"runtime"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/stages"
	"github.com/urfave/cli/v2"
)

// DedupOptions are the flags of `sluice dedup exact`.
type DedupOptions struct {
	ConvertOptions
	Normalize bool
}

func dedupCommand(s Streams) *cli.Command {
	o := &DedupOptions{}
	return &cli.Command{
		Name:  "dedup",
		Usage: "remove duplicate documents",
		Subcommands: []*cli.Command{{
			Name:      "exact",
			Usage:     "keep one row per distinct text, the first in input order; the others go to removed/ with _dup_of",
			ArgsUsage: "IN... -o OUT",
			Description: "Two passes over the input: the first records the first occurrence of every text's 128-bit\n" +
				"hash (xxh3), the second keeps first occurrences and removes the others with _reason exact_dup\n" +
				"and _dup_of, the kept row's id (--id-field). Memory: one entry per distinct text.",
			Flags: append(append(inputFlags(&o.ConvertOptions), outputFlags(&o.ConvertOptions)...),
				&cli.BoolFlag{Name: "normalize", Destination: &o.Normalize,
					Usage: "compare texts in the matching normal form: lowercase, no punctuation, no accents, collapsed whitespace"}),
			Action: action(func(c *cli.Context) error {
				return runDedupExact(c.Context, o, c.Args().Slice(), os.Args, s)
			}),
		}},
	}
}

func runDedupExact(ctx context.Context, o *DedupOptions, args, command []string, s Streams) error {
	cfg, err := o.pipelineConfig(args)
	if err != nil {
		return err
	}
	if cfg.Workers < runtime.NumCPU() {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cfg.Workers))
	}
	params := stages.ExactParams{Normalize: o.Normalize, IDField: o.IDField}
	index := stages.NewExactIndex()

	scan := cfg
	scan.Target = dataset.Target{Kind: dataset.Discard}
	scan.Stages = []pipeline.Stage{stages.NewExactScan(o.TextField, params, index)}
	bar := newProgress(s.Err, !o.NoProgress, "pass 1/2: hashing")
	scan.Progress = bar.set
	_, err = pipeline.Run(ctx, scan, command, Version)
	bar.finish()
	if err != nil {
		return err
	}

	cfg.Stages = []pipeline.Stage{stages.NewExactDedup(o.TextField, params, index)}
	bar = newProgress(s.Err, !o.NoProgress, "pass 2/2: writing")
	cfg.Progress = bar.set
	m, err := pipeline.Run(ctx, cfg, command, Version)
	bar.finish()
	if m != nil {
		printSummary(s.Out, cfg.Target, m)
		fmt.Fprintf(s.Out, "%d distinct texts; %d duplicates removed\n", index.Len(), m.Counts.Removed)
	}
	return err
}
