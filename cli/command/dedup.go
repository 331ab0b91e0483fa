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

// DedupOptions are the flags of `sluice dedup exact` and `sluice dedup lines`.
type DedupOptions struct {
	ConvertOptions
	Normalize    bool
	Keep         string
	MinLineChars int
}

func dedupCommand(s Streams) *cli.Command {
	o := &DedupOptions{}
	lo := &DedupOptions{}
	return &cli.Command{
		Name:  "dedup",
		Usage: "remove duplicate documents and repeated lines",
		Subcommands: []*cli.Command{{
			Name:      "lines",
			Usage:     "drop lines that occur more than once in the corpus (boilerplate: menus, banners, footers)",
			ArgsUsage: "IN... -o OUT",
			Description: "Two passes: the first counts every line's 64-bit hash over the whole corpus (saturating\n" +
				"counters, not strings), the second rewrites each text without the repeated lines. A text left\n" +
				"empty goes to removed/ with _reason empty_after_line_dedup. Lines compare with surrounding\n" +
				"white space trimmed; blank lines are neither counted nor removed.",
			Flags: append(append(inputFlags(&lo.ConvertOptions), outputFlags(&lo.ConvertOptions)...),
				&cli.StringFlag{Name: "keep", Value: "none", Destination: &lo.Keep,
					Usage: "none: remove every copy of a repeated line; first: keep its first copy in input order"},
				&cli.IntFlag{Name: "min-line-chars", Value: 0, Destination: &lo.MinLineChars,
					Usage: "leave lines shorter than this many characters alone"}),
			Action: action(func(c *cli.Context) error {
				return runDedupLines(c.Context, lo, c.Args().Slice(), os.Args, s)
			}),
		}, {
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
	m, err := twoPasses(ctx, cfg, command, s,
		stages.NewExactScan(o.TextField, params, index), stages.NewExactDedup(o.TextField, params, index), !o.NoProgress)
	if m != nil {
		printSummary(s.Out, cfg.Target, m)
		fmt.Fprintf(s.Out, "%d distinct texts; %d duplicates removed\n", index.Len(), m.Counts.Removed)
	}
	return err
}

func runDedupLines(ctx context.Context, o *DedupOptions, args, command []string, s Streams) error {
	params := stages.LinesParams{MinLineChars: o.MinLineChars}
	switch o.Keep {
	case "none":
	case "first":
		params.KeepFirst = true
	default:
		return usagef("--keep must be none or first, not %q", o.Keep)
	}
	if o.MinLineChars < 0 {
		return usagef("--min-line-chars must not be negative")
	}
	cfg, err := o.pipelineConfig(args)
	if err != nil {
		return err
	}
	if cfg.Workers < runtime.NumCPU() {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(cfg.Workers))
	}
	index := stages.NewLineIndex()
	m, err := twoPasses(ctx, cfg, command, s,
		stages.NewLinesScan(o.TextField, params, index), stages.NewDedupLines(o.TextField, params, index), !o.NoProgress)
	if m != nil {
		printSummary(s.Out, cfg.Target, m)
		fmt.Fprintf(s.Out, "%d distinct lines counted; %d texts left empty and removed\n", index.Len(), m.Counts.Removed)
	}
	return err
}

// twoPasses runs a global stage: scan reads every row and fills the
// stage's index (nothing is written), then filter writes the output.
func twoPasses(ctx context.Context, cfg pipeline.Config, command []string, s Streams, scan, filter pipeline.Stage, progress bool) (*dataset.Manifest, error) {
	first := cfg
	first.Target = dataset.Target{Kind: dataset.Discard}
	first.Stages = []pipeline.Stage{scan}
	bar := newProgress(s.Err, progress, "pass 1/2: counting")
	first.Progress = bar.set
	_, err := pipeline.Run(ctx, first, command, Version)
	bar.finish()
	if err != nil {
		return nil, err
	}
	cfg.Stages = []pipeline.Stage{filter}
	bar = newProgress(s.Err, progress, "pass 2/2: writing")
	cfg.Progress = bar.set
	m, err := pipeline.Run(ctx, cfg, command, Version)
	bar.finish()
	return m, err
}
