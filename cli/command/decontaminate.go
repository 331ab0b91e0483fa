package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/sluice-data/sluice/contam"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/stages"
	"github.com/urfave/cli/v2"
)

// DecontaminateOptions are the flags of `sluice decontaminate`.
type DecontaminateOptions struct {
	ConvertOptions
	Params     stages.DecontamParams
	Eval       cli.StringSlice
	EvalFields string
	Annotate   bool
	// sourceSet tells whether --source-field was given; the default
	// column may be missing.
	sourceSet bool
}

func decontaminateCommand(s Streams) *cli.Command {
	o := &DecontaminateOptions{Params: stages.DefaultDecontamParams()}
	p := &o.Params
	p.SourceField = "meta.source"
	return &cli.Command{
		Name:      "decontaminate",
		Usage:     "remove or flag rows that share long word n-grams with evaluation sets",
		ArgsUsage: "IN... --eval EVAL... -o OUT",
		Description: "Every evaluation example (a row of an --eval file, JSONL or Parquet) is cut into word n-grams of\n" +
			"its text in the matching normal form (lowercase, no punctuation, no accents), hashed to 64 bits.\n" +
			"A corpus row is contaminated when it shares at least --min-overlap of an example's n-grams (and,\n" +
			"with --min-fraction, that fraction of them). Contaminated rows go to removed/ with _reason\n" +
			"contaminated and _eval_ids (\"set:id\" of each example found); --annotate keeps every row and adds\n" +
			"contam_hits and contam_eval_ids instead. The report (per eval set: examples found in the corpus;\n" +
			"per source: rows hit) is printed and written to contamination.json beside the manifest.\n" +
			"Examples are named set:id, the set being the eval file's name without suffix and the id the\n" +
			"--eval-id-field value or the line (JSONL) or row (Parquet) number.",
		Flags: append(append(inputFlags(&o.ConvertOptions), outputFlags(&o.ConvertOptions)...),
			&cli.StringSliceFlag{Name: "eval", Required: true, Destination: &o.Eval,
				Usage: "evaluation files, globs or directories (JSONL, .gz, .zst or Parquet); repeat the flag or separate with commas"},
			&cli.IntFlag{Name: "ngram", Value: p.NGram, Destination: &p.NGram,
				Usage: "words per n-gram (13 as in the GPT-3 study; 8 catches shorter passages)"},
			&cli.StringFlag{Name: "eval-fields", Destination: &o.EvalFields,
				Usage: "comma-separated fields forming an example's text, dotted for nested members (question,choices);\n\tobjects and lists give every string and number inside; default: every field but the id"},
			&cli.StringFlag{Name: "eval-id-field", Value: p.EvalIDField, Destination: &p.EvalIDField,
				Usage: "the member naming an evaluation example; its line or row number when absent"},
			&cli.IntFlag{Name: "min-overlap", Value: p.MinOverlap, Destination: &p.MinOverlap,
				Usage: "least number of an example's distinct n-grams a row must share"},
			&cli.Float64Flag{Name: "min-fraction", Value: 0, Destination: &p.MinFraction,
				Usage: "also require this fraction (0-1) of an example's n-grams in the row (0: off)"},
			&cli.IntFlag{Name: "max-ngram-examples", Value: p.MaxNGramExamples, Destination: &p.MaxNGramExamples,
				Usage: "ignore n-grams found in more than this many eval examples (templates, boilerplate); 0 keeps all"},
			&cli.StringFlag{Name: "source-field", Value: p.SourceField, Destination: &p.SourceField,
				Action: func(*cli.Context, string) error { o.sourceSet = true; return nil },
				Usage:  "corpus column the report counts hits by (dotted for struct members); by input file when the default is absent or empty"},
			&cli.BoolFlag{Name: "annotate", Destination: &o.Annotate,
				Usage: "keep every row; add contam_hits and contam_eval_ids instead of removing contaminated rows"}),
		Action: action(func(c *cli.Context) error {
			return runDecontaminate(c.Context, o, c.Args().Slice(), commandLine(c), s)
		}),
	}
}

func runDecontaminate(ctx context.Context, o *DecontaminateOptions, args, command []string, s Streams) error {
	p := o.Params
	p.IDField = o.IDField
	for _, e := range o.Eval.Value() {
		for _, part := range strings.Split(e, ",") {
			if part = strings.TrimSpace(part); part != "" {
				p.Eval = append(p.Eval, part)
			}
		}
	}
	p.EvalFields = nil
	for _, f := range strings.Split(o.EvalFields, ",") {
		if f = strings.TrimSpace(f); f != "" {
			p.EvalFields = append(p.EvalFields, f)
		}
	}
	if err := p.Params.Validate(); err != nil {
		return usageError{err}
	}
	cfg, err := o.pipelineConfig(args)
	if err != nil {
		return err
	}
	t0 := time.Now()
	st, err := stages.NewDecontaminate(o.TextField, p, o.Annotate)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, input.ErrNoInput) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	if !o.sourceSet {
		st.SourceIfPresent()
	}
	x := st.Index()
	index := EvalIndexSummary{Examples: x.Examples(), Sets: len(x.Sets), NGram: p.NGram, DistinctNGrams: x.Distinct,
		IgnoredNGrams: x.Ignored, Seconds: time.Since(t0).Seconds()}
	fmt.Fprintf(o.text(s.Out), "eval index: %d examples in %d set(s), %d distinct %d-grams (%d ignored), %.2fs\n",
		index.Examples, index.Sets, index.DistinctNGrams, p.NGram, index.IgnoredNGrams, index.Seconds)
	cfg.Stages = []pipeline.Stage{st}
	cfg.BeforeCommit = saveContaminations(cfg.Stages)
	m, err := runWithProgress(ctx, cfg, command, s, o.view(s), "decontaminating")
	if m == nil {
		return err
	}
	res := DecontaminateResult{Summary: newSummary(cfg.Target, m), EvalIndex: index,
		ReportFile: cfg.Target.SidePath("contamination.json"), Contamination: st.Contamination()}
	if perr := o.result(s.Out, res, func(w io.Writer) {
		printSummary(w, cfg.Target, m)
		printContamination(cfg.Target, res.Contamination, w, false)
	}); err == nil {
		err = perr
	}
	return err
}

// saveContaminations returns what a run does before its output is
// committed when it has a decontamination stage: write its report to
// contamination.json beside the staged manifest, so the report is a file
// of the output.
func saveContaminations(sts []pipeline.Stage) func(dataset.Target, *dataset.Manifest) error {
	return func(staged dataset.Target, _ *dataset.Manifest) error {
		for _, st := range sts {
			if d, ok := st.(*stages.Decontaminate); ok {
				if _, err := saveContamination(staged, d.Contamination()); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// printContamination prints a decontamination report saved beside
// target's manifest (as text, or the JSON itself).
func printContamination(target dataset.Target, rep contam.Report, w io.Writer, asJSON bool) error {
	fmt.Fprintf(w, "report: %s\n\n", target.SidePath("contamination.json"))
	if asJSON {
		return rep.WriteJSON(w)
	}
	rep.WriteText(w, 20)
	return nil
}

// saveContamination writes a decontamination report to contamination.json
// beside the target's manifest and returns its path.
func saveContamination(target dataset.Target, rep contam.Report) (string, error) {
	path := target.SidePath("contamination.json")
	var b bytes.Buffer
	if err := rep.WriteJSON(&b); err != nil {
		return "", err
	}
	return path, dataset.WriteFile(path, b.Bytes())
}
