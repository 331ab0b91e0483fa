package command

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sluice-data/sluice/internal/sidefile"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/memorize"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/stages"
	"github.com/urfave/cli/v2"
)

// MemorizeOptions are the flags of the `sluice memorize` commands.
type MemorizeOptions struct {
	ConvertOptions
	Probes      memorize.ProbeParams
	SourceField string
	Canaries    memorize.CanaryParams
	Repeats     string
	Into        cli.StringSlice
	As          string // splice or rows
	ProbesFile  string
	CanaryFile  string
	Generations string
	Verbatim    int
}

func memorizeCommand(s Streams) *cli.Command {
	po := &MemorizeOptions{}
	co := &MemorizeOptions{}
	so := &MemorizeOptions{}
	canaryOut := &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Destination: &co.Output,
		Usage: "without --into: the canary file (.jsonl); with --into: the dataset copy (a .parquet or .jsonl file, or a dataset directory)"}
	return &cli.Command{
		Name:  "memorize",
		Usage: "memorization tests: probes sampled from a corpus, canaries planted in it, scores of model outputs",
		Subcommands: []*cli.Command{{
			Name:      "probes",
			Usage:     "sample documents and cut each into a prefix and its true continuation, in tokens",
			ArgsUsage: "IN... -o probes.jsonl",
			Description: "Documents are sampled with a seed (bottom-k on a hash of the seed and the row id: the same\n" +
				"sample whatever --workers or the order of rows) and cut into --prefix-tokens and --suffix-tokens\n" +
				"tokens of --tokenizer, at the start or at a random place. Each probe records its row id, token and\n" +
				"byte offsets, the text and token ids of prefix and suffix, and, when the input has the\n" +
				"minhash_cluster_size column of `sluice dedup minhash --annotate`, its duplicate count.\n" +
				"The probes' parameters and inputs go to OUT.manifest.json beside the probes.",
			Flags: append(inputFlags(&po.ConvertOptions),
				&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Destination: &po.Output, Usage: "the probes file (.jsonl)"},
				&cli.BoolFlag{Name: "overwrite", Destination: &po.Overwrite, Usage: "replace an existing probes file"},
				&cli.IntFlag{Name: "count", Aliases: []string{"n"}, Value: 1000, Destination: &po.Probes.N, Usage: "number of probes"},
				&cli.IntFlag{Name: "prefix-tokens", Value: 32, Destination: &po.Probes.PrefixTokens, Usage: "tokens of the prompt"},
				&cli.IntFlag{Name: "suffix-tokens", Value: 32, Destination: &po.Probes.SuffixTokens, Usage: "tokens of the true continuation"},
				&cli.StringFlag{Name: "tokenizer", Value: "cl100k_base", Destination: &po.Probes.Tokenizer, Usage: "cl100k_base, o200k_base or r50k_base (gpt2)"},
				&cli.Uint64Flag{Name: "seed", Value: 1, Destination: &po.Probes.Seed, Usage: "sampling seed, recorded in the manifest"},
				&cli.StringFlag{Name: "stratify-by", Destination: &po.Probes.StratifyBy,
					Usage: "share the probes equally among sources (source) or duplicate-count strata 1, 2, 3-4, 5-8, ... (dup_count)"},
				&cli.StringFlag{Name: "offset", Value: "random", Destination: &po.Probes.Offset, Usage: "where a probe starts in its document: start or random"},
				&cli.StringFlag{Name: "source-field", Value: "meta.source", Destination: &po.SourceField, Usage: "the column naming a row's source"}),
			Action: action(func(c *cli.Context) error {
				return runMemorizeProbes(c.Context, po, c.Args().Slice(), commandLine(c), s)
			}),
		}, {
			Name:      "canaries",
			Usage:     "generate random canaries and insert each a given number of times into a copy of a dataset",
			ArgsUsage: "-o OUT [--into DATASET...]",
			Description: "Canary i is --format with {secret} replaced by --digits random digits (from --seed) and is\n" +
				"inserted --repeats[i mod k] times. With --into, every copy goes, as a paragraph of its own at a\n" +
				"random paragraph boundary, into a row with text picked at random (--as splice), or as a row of its\n" +
				"own right after that row (--as rows: the canary's text, id <canary>.<copy>, other columns null;\n" +
				"the manifest counts them as inserted); OUT is the dataset copy and the\n" +
				"canary file (canary, secret, repeats, the rows it went into) is written beside it as\n" +
				"OUT/canaries.jsonl or OUT.canaries.jsonl. Without --into, OUT is the canary file alone.",
			Flags: append(withOutput(append(inputFlags(&co.ConvertOptions), outputFlags(&co.ConvertOptions)...), canaryOut),
				&cli.IntFlag{Name: "count", Aliases: []string{"n"}, Value: 100, Destination: &co.Canaries.N, Usage: "number of canaries"},
				&cli.StringFlag{Name: "repeats", Value: "1,10,100", Destination: &co.Repeats, Usage: "insertion counts, assigned to the canaries in turn"},
				&cli.Uint64Flag{Name: "seed", Value: 1, Destination: &co.Canaries.Seed, Usage: "seed of the secrets and of where they go"},
				&cli.StringFlag{Name: "format", Value: memorize.DefaultFormat, Destination: &co.Canaries.Format, Usage: "canary text, {secret} marking the secret"},
				&cli.IntFlag{Name: "digits", Value: 9, Destination: &co.Canaries.Digits, Usage: "digits of a secret (4-18): the secret space is 10^digits"},
				&cli.StringSliceFlag{Name: "into", Destination: &co.Into, Usage: "the dataset (files, globs, directories) to copy with the canaries inserted"},
				&cli.StringFlag{Name: "as", Value: "splice", Destination: &co.As,
					Usage: "how a copy goes into the dataset: splice (a paragraph of a row's text) or rows (a row of its own after that row)"}),
			Action: action(func(c *cli.Context) error { return runMemorizeCanaries(c.Context, co, commandLine(c), s) }),
		}, {
			Name:      "score",
			Usage:     "score a model's generations for probes or canaries",
			ArgsUsage: "--probes probes.jsonl | --canaries canaries.jsonl --generations gen.jsonl",
			Description: "Generations are JSONL {\"id\", \"generation\"} (or \"generation_ids\", token ids) from any inference\n" +
				"engine; for canaries also \"rank\" (the canary's rank among all secrets, 1 = most likely) or \"loglik\"\n" +
				"and \"candidate_logliks\" (other random secrets) for the exposure. Reported: exact-match rate of the\n" +
				"continuation, longest common token prefix (mean, p50, p90, max, histogram), fraction with at least\n" +
				"--verbatim-tokens reproduced, by duplicate count (probes) or repeat count (canaries).",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "probes", Destination: &so.ProbesFile, Usage: "the probes `FILE` that 'sluice memorize probes' wrote"},
				&cli.StringFlag{Name: "canaries", Destination: &so.CanaryFile, Usage: "the canaries `FILE` that 'sluice memorize canaries' wrote"},
				&cli.StringFlag{Name: "generations", Required: true, Destination: &so.Generations, Usage: "the model's generations (JSONL)"},
				&cli.IntFlag{Name: "verbatim-tokens", Value: 50, Destination: &so.Verbatim, Usage: "common prefix length that counts as verbatim"},
				jsonFlag(&so.JSON),
			},
			Action: action(func(c *cli.Context) error {
				if c.Args().Present() {
					return usagef("score takes no arguments, got %q", c.Args().First())
				}
				return runMemorizeScore(so, s)
			}),
		}},
	}
}

func runMemorizeProbes(ctx context.Context, o *MemorizeOptions, args, command []string, s Streams) error {
	if !strings.HasSuffix(o.Output, ".jsonl") {
		return usagef("--output %s: probes are written as one .jsonl file", o.Output)
	}
	sampler, err := memorize.NewSampler(o.Probes)
	if err != nil {
		return usageError{err}
	}
	// The pass writes nothing; the output options only need to be valid.
	defaults, err := convertDefaults()
	if err != nil {
		return err
	}
	co := o.ConvertOptions
	co.Output, co.Compression, co.CompressionLevel, co.PageBytes, co.MaxFileRows, co.MaxFileBytes =
		"probes", defaults.Compression, defaults.CompressionLevel, defaults.PageBytes, defaults.MaxFileRows, defaults.MaxFileBytes
	cfg, err := co.pipelineConfig(args)
	if err != nil {
		return err
	}
	file, err := beginArtifact(ctx, "--output", dataset.ArtifactSpec{Path: o.Output, What: "memorization probes",
		Inputs: inputsOf(args, cfg.Inputs), Overwrite: o.Overwrite, Command: command})
	if err != nil {
		return err
	}
	defer file.Abort()
	cfg.Target = dataset.Target{Kind: dataset.Discard}
	stage := stages.NewProbeSample(o.TextField, o.IDField, o.SourceField, sampler)
	cfg.Stages = []pipeline.Stage{stage}
	m, err := runWithProgress(ctx, cfg, command, s, o.view(s), "sampling")
	if err != nil {
		return err
	}
	probes := sampler.Probes()
	var b bytes.Buffer
	if err := appendJSONLines(&b, probes); err != nil {
		return err
	}
	file.Manifest.Options, file.Manifest.Inputs, file.Rows = o.Probes, m.Inputs, int64(len(probes))
	file.Manifest.Report = map[string]any{"source_field": o.SourceField, "probes": len(probes), "counts": m.Counts,
		"documents_offered": sampler.Offered, "candidates_too_short": sampler.TooShort, "dup_counts": stage.HasDupCounts()}
	if err := file.Commit(b.Bytes()); err != nil {
		return err
	}
	out, side := file.Path(), file.ManifestPath()
	strata := map[string]int{}
	var names []string
	for _, p := range probes {
		if strata[p.Stratum] == 0 {
			names = append(names, p.Stratum)
		}
		strata[p.Stratum]++
	}
	res := ProbesResult{Output: out, Manifest: side, Probes: len(probes), Params: o.Probes, DocumentsOffered: sampler.Offered,
		TooShort: sampler.TooShort, DupCounts: stage.HasDupCounts(), Counts: m.Counts}
	if o.Probes.StratifyBy != "" {
		res.Strata = strata
	}
	return o.result(s.Out, res, func(w io.Writer) {
		fmt.Fprintf(w, "%d probes (%d+%d %s tokens, seed %d) from %d documents with text: %s\n", len(probes),
			o.Probes.PrefixTokens, o.Probes.SuffixTokens, o.Probes.Tokenizer, o.Probes.Seed, sampler.Offered, out)
		if len(probes) < o.Probes.N {
			fmt.Fprintf(w, "fewer than the %d asked: not enough documents of at least %d tokens\n", o.Probes.N, o.Probes.PrefixTokens+o.Probes.SuffixTokens)
		}
		if o.Probes.StratifyBy != "" {
			for _, n := range names {
				fmt.Fprintf(w, "  %s %s: %d\n", o.Probes.StratifyBy, n, strata[n])
			}
		}
		if !stage.HasDupCounts() {
			fmt.Fprintf(w, "no %s column: probes carry no duplicate count (annotate with `sluice dedup minhash --annotate` first)\n", stages.DupCountColumn)
		}
		fmt.Fprintf(w, "manifest: %s\n", side)
	})
}

func runMemorizeCanaries(ctx context.Context, o *MemorizeOptions, command []string, s Streams) error {
	if err := o.Report.check(); err != nil {
		return err
	}
	o.Canaries.Repeats = nil
	for _, r := range strings.Split(o.Repeats, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(r))
		if err != nil {
			return usagef("--repeats: %q is not a number", r)
		}
		o.Canaries.Repeats = append(o.Canaries.Repeats, n)
	}
	canaries, err := memorize.Generate(o.Canaries)
	if err != nil {
		return usageError{err}
	}
	if o.As != "splice" && o.As != "rows" {
		return usagef("--as must be splice or rows, not %q", o.As)
	}
	into := o.Into.Value()
	if len(into) == 0 {
		if !strings.HasSuffix(o.Output, ".jsonl") {
			return usagef("--output %s: without --into the canaries are written as one .jsonl file", o.Output)
		}
		file, err := beginArtifact(ctx, "--output", dataset.ArtifactSpec{Path: o.Output, What: "canaries",
			Overwrite: o.Overwrite, Command: command})
		if err != nil {
			return err
		}
		defer file.Abort()
		var b bytes.Buffer
		if err := appendJSONLines(&b, canaries); err != nil {
			return err
		}
		file.Rows = int64(len(canaries))
		if err := file.Commit(b.Bytes()); err != nil {
			return err
		}
		res := CanariesResult{Canaries: len(canaries), Seed: o.Canaries.Seed, Digits: o.Canaries.Digits, CanaryFile: o.Output}
		return o.result(s.Out, res, func(w io.Writer) {
			fmt.Fprintf(w, "%d canaries (seed %d, %d digits) written to %s\n", len(canaries), o.Canaries.Seed, o.Canaries.Digits, o.Output)
		})
	}
	cfg, err := o.pipelineConfig(into)
	if err != nil {
		return err
	}
	counted := stages.NewTextRowCount(o.TextField)
	count := pipeline.PassConfig(cfg, []pipeline.Stage{counted})
	v := o.view(s)
	if _, err := runWithProgress(ctx, count, command, s, v, "counting"); err != nil {
		return err
	}
	plan, err := memorize.Plan(canaries, counted.Total(), o.Canaries.Seed)
	if err != nil {
		return err
	}
	splice := stages.NewCanarySplice(o.TextField, o.IDField, canaries, plan, counted)
	splice.AsRows = o.As == "rows"
	cfg.Stages = []pipeline.Stage{splice}
	cfg.BeforeCommit = func(staged dataset.Target, _ *dataset.Manifest) error {
		return writeCanaries(staged.SidePath("canaries.jsonl"), splice.Canaries())
	}
	m, err := runWithProgress(ctx, cfg, command, s, v, "inserting")
	if m == nil {
		return err
	}
	sum := newSummary(cfg.Target, m)
	res := CanariesResult{Summary: &sum, Canaries: len(canaries), Seed: o.Canaries.Seed, Digits: o.Canaries.Digits,
		CanaryFile: cfg.Target.SidePath("canaries.jsonl"), As: o.As, RowsWithText: counted.Total()}
	for _, c := range canaries {
		res.Copies += c.Repeats
	}
	how := "spliced into"
	if splice.AsRows {
		how = "added as rows after"
	}
	if perr := o.result(s.Out, res, func(w io.Writer) {
		printSummary(w, cfg.Target, m)
		if err == nil {
			fmt.Fprintf(w, "%d canaries (seed %d), %d copies %s %d rows with text; canary file: %s\n",
				len(canaries), o.Canaries.Seed, res.Copies, how, counted.Total(), res.CanaryFile)
		}
	}); err == nil {
		err = perr
	}
	return err
}

func writeCanaries(path string, canaries []memorize.Canary) error {
	var b bytes.Buffer
	if err := appendJSONLines(&b, canaries); err != nil {
		return err
	}
	return dataset.WriteFile(path, b.Bytes())
}

// appendJSONLines writes each item as one line of JSON.
func appendJSONLines[T any](b *bytes.Buffer, items []T) error {
	for _, it := range items {
		line, err := json.Marshal(it)
		if err != nil {
			return err
		}
		b.Write(append(line, '\n'))
	}
	return nil
}

func runMemorizeScore(o *MemorizeOptions, s Streams) error {
	if (o.ProbesFile == "") == (o.CanaryFile == "") {
		return usagef("give one of --probes or --canaries")
	}
	if o.Verbatim < 1 {
		return usagef("--verbatim-tokens must be at least 1")
	}
	gens := map[string]memorize.Generation{}
	err := readJSONLines(o.Generations, func(line []byte) error {
		var g memorize.Generation
		if err := json.Unmarshal(line, &g); err != nil {
			return err
		}
		if g.ID == "" {
			return fmt.Errorf("no \"id\"")
		}
		if _, dup := gens[g.ID]; dup {
			return fmt.Errorf("a second generation for id %q", g.ID)
		}
		gens[g.ID] = g
		return nil
	})
	if err != nil {
		return err
	}
	var rep memorize.Report
	if o.ProbesFile != "" {
		var probes []memorize.Probe
		if err := readJSONLines(o.ProbesFile, func(line []byte) error {
			var p memorize.Probe
			if err := json.Unmarshal(line, &p); err != nil {
				return err
			}
			probes = append(probes, p)
			return nil
		}); err != nil {
			return err
		}
		if rep, err = memorize.ScoreProbes(probes, gens, o.Verbatim); err != nil {
			return err
		}
	} else {
		var canaries []memorize.Canary
		if err := readJSONLines(o.CanaryFile, func(line []byte) error {
			var c memorize.Canary
			if err := json.Unmarshal(line, &c); err != nil {
				return err
			}
			canaries = append(canaries, c)
			return nil
		}); err != nil {
			return err
		}
		rep = memorize.ScoreCanaries(canaries, gens, o.Verbatim)
	}
	if o.JSON {
		return printJSON(s.Out, rep)
	}
	rep.WriteText(s.Out)
	return nil
}

// readJSONLines calls fn with every non-blank line of a JSONL file (plain,
// .gz or .zst); errors name the file and line.
func readJSONLines(path string, fn func(line []byte) error) error {
	f, err := input.Stat(path)
	if err != nil {
		return usageError{err}
	}
	if err := sidefile.Input(f, sidefile.TestSet); err != nil {
		return err
	}
	st, err := input.Open(f)
	if err != nil {
		return err
	}
	defer st.Close()
	lines := jsonl.NewLineReader(st, 0)
	for {
		line, err := lines.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", path, lines.Line(), err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("%s:%d: %w", path, lines.Line(), err)
		}
	}
}
