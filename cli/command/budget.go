package command

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sluice-data/sluice/budget"
	"github.com/sluice-data/sluice/internal/sidefile"
	"github.com/urfave/cli/v2"
)

// BudgetOptions are the flags of `sluice budget`. Counts are kept as typed
// (125M, 1.5T, 7e9...) and read by budget.ParseCount.
type BudgetOptions struct {
	Tokens         string
	Docs           string
	TokensPerDoc   string
	Epochs         string
	Params         string
	TokensPerParam string
	Mix            cli.StringSlice
	SourceTokens   cli.StringSlice
	TargetTokens   string
	MixFile        string
	JSON           bool
	Tokenizer      string
}

func budgetCommand(s Streams) *cli.Command {
	o := &BudgetOptions{}
	return &cli.Command{
		Name:  "budget",
		Usage: "plan a training run: tokens seen, compute-optimal tokens and model size, FLOPs, epochs per source",
		Description: "Give the corpus as a PATH (a dataset or JSONL it counts with --tokenizer, or the counts.json that\n" +
			"`sluice tokens -o counts.json` wrote), as --tokens (the number `sluice tokens` prints), or as --docs × --tokens-per-doc,\n" +
			"or a mixture with --mix, --source-tokens and --target-tokens (or --mix-file). Counts take 800,\n" +
			"1_000_000, 7e9, 125M, 2.4B, 1.5T (K, M, B, T in any case).\n\n" +
			"tokens seen = corpus tokens × epochs; compute-optimal tokens = params × tokens per parameter\n" +
			"(~20, Hoffmann et al. 2022); training FLOPs ≈ 6 × params × tokens (Kaplan et al. 2020).\n" +
			"Repetition beyond ~4 epochs gives diminishing returns and beyond ~16 epochs little at all\n" +
			"(Muennighoff et al. 2023).\n\n" +
			"A mixture file looks like:\n\n" +
			"   target_tokens: 1T\n" +
			"   sources:\n" +
			"     web:  {tokens: 800B, weight: 0.7}\n" +
			"     code: {tokens: 100B, weight: 0.3}",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "tokens", Destination: &o.Tokens,
				Usage: "the corpus size in unique tokens, `N`: e.g. the total 'sluice tokens' prints (2.4B, 7e9...)"},
			&cli.StringFlag{Name: "docs", Destination: &o.Docs,
				Usage: "the corpus size in documents, `N`, with --tokens-per-doc instead of --tokens"},
			&cli.StringFlag{Name: "tokens-per-doc", Destination: &o.TokensPerDoc,
				Usage: "mean tokens per document, `M`, with --docs"},
			&cli.StringFlag{Name: "epochs", Destination: &o.Epochs, DefaultText: "1",
				Usage: "passes over the corpus, `E` (fractions allowed); not with a mixture, whose target sets them"},
			&cli.StringFlag{Name: "params", Destination: &o.Params,
				Usage: "the model size in parameters, `P` (125M, 7B...); without it only the compute-optimal model size is reported"},
			&cli.StringFlag{Name: "tokens-per-param", Value: "20", Destination: &o.TokensPerParam,
				Usage: "compute-optimal tokens per parameter, `R` (the Chinchilla rule of thumb is 20)"},
			&cli.StringSliceFlag{Name: "mix", Destination: &o.Mix,
				Usage: "a data mixture as `SOURCE=WEIGHT,...` (weights are normalized), with --source-tokens"},
			&cli.StringSliceFlag{Name: "source-tokens", Destination: &o.SourceTokens,
				Usage: "unique tokens of each --mix source as `SOURCE=N,...` (e.g. web=800B,code=100B)"},
			&cli.StringFlag{Name: "target-tokens", Destination: &o.TargetTokens,
				Usage: "tokens to train the mixture for, `N` (default: the compute-optimal tokens for --params); overrides the mixture file's"},
			&cli.StringFlag{Name: "mix-file", Destination: &o.MixFile, TakesFile: true,
				Usage: "a YAML mixture `FILE` with target_tokens and sources (see above), instead of --mix"},
			jsonFlag(&o.JSON),
			&cli.StringFlag{Name: "tokenizer", Value: "cl100k_base", Destination: &o.Tokenizer,
				Usage: "with a dataset PATH: the encoding its tokens are counted with"},
		},
		ArgsUsage: "[PATH]",
		Action: action(func(c *cli.Context) error {
			return runBudget(c.Context, o, c.Args().Slice(), s)
		}),
	}
}

// budgetInput checks the options and turns them into the planner's input;
// every problem found is reported at once.
func (o *BudgetOptions) budgetInput(args []string) (budget.Input, error) {
	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	count := func(flag, s string) float64 {
		if s == "" {
			return 0
		}
		n, err := budget.ParseCount(s)
		switch {
		case err != nil:
			bad("--%s: %v", flag, err)
		case n == 0:
			bad("--%s must be positive", flag)
		}
		return n
	}
	var in budget.Input
	if len(args) > 0 {
		bad("budget takes at most one dataset or counts file, not %q", strings.Join(args, " "))
	}
	in.CorpusTokens = count("tokens", o.Tokens)
	in.Docs = count("docs", o.Docs)
	in.TokensPerDoc = count("tokens-per-doc", o.TokensPerDoc)
	in.Params = count("params", o.Params)
	in.TokensPerParam = count("tokens-per-param", o.TokensPerParam)
	if o.Epochs != "" {
		e, err := strconv.ParseFloat(strings.TrimSpace(o.Epochs), 64)
		if err != nil || !(e > 0) || e > 1e12 {
			bad("--epochs must be a positive number, not %q", o.Epochs)
		}
		in.Epochs = e
	}
	target := count("target-tokens", o.TargetTokens)

	mixFlags, sourceFlags := o.Mix.Value(), o.SourceTokens.Value()
	mixing := len(mixFlags) > 0 || o.MixFile != ""
	switch {
	case len(mixFlags) > 0 && o.MixFile != "":
		bad("--mix and --mix-file are exclusive")
	case len(sourceFlags) > 0 && o.MixFile != "":
		bad("--source-tokens goes with --mix; a mixture file gives each source's tokens")
	case len(sourceFlags) > 0 && len(mixFlags) == 0:
		bad("--source-tokens needs --mix")
	case len(mixFlags) > 0 && len(sourceFlags) == 0:
		bad("--mix needs --source-tokens (the unique tokens of each source)")
	case o.TargetTokens != "" && !mixing:
		bad("--target-tokens needs --mix or --mix-file (for one corpus use --tokens and --epochs)")
	}
	if mixing {
		if o.Tokens != "" || o.Docs != "" || o.TokensPerDoc != "" {
			bad("--tokens, --docs and --tokens-per-doc do not go with a mixture, which gives the corpus size")
		}
		if o.Epochs != "" {
			bad("--epochs does not go with a mixture: its target tokens set each source's epochs")
		}
	} else {
		switch {
		case o.Tokens != "" && (o.Docs != "" || o.TokensPerDoc != ""):
			bad("--tokens and --docs/--tokens-per-doc are exclusive")
		case o.Docs != "" && o.TokensPerDoc == "":
			bad("--docs needs --tokens-per-doc")
		case o.TokensPerDoc != "" && o.Docs == "":
			bad("--tokens-per-doc needs --docs")
		case o.Tokens == "" && o.Docs == "":
			bad("no corpus size: give --tokens N (the number `sluice tokens` prints), --docs N --tokens-per-doc M, or a mixture")
		}
	}
	if len(problems) > 0 {
		return in, usageError{fmt.Errorf("%s", strings.Join(problems, "; "))}
	}
	if !mixing {
		return in, nil
	}

	var mix budget.Mix
	if o.MixFile != "" {
		data, err := sidefile.ReadFile(o.MixFile, sidefile.Mixture)
		if err != nil {
			return in, usagef("--mix-file: %v", err)
		}
		if mix, err = budget.ParseMixFile(data); err != nil {
			return in, usagef("--mix-file %s: %v", o.MixFile, err)
		}
	} else {
		weights, err := assignments("mix", mixFlags, func(s string) (float64, error) {
			w, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil {
				return 0, fmt.Errorf("weight %q is not a number", s)
			}
			return w, nil
		})
		if err != nil {
			return in, err
		}
		tokens, err := assignments("source-tokens", sourceFlags, budget.ParseCount)
		if err != nil {
			return in, err
		}
		available := map[string]float64{}
		for _, t := range tokens {
			available[t.name] = t.value
		}
		for _, w := range weights {
			n, ok := available[w.name]
			if !ok {
				problems = append(problems, fmt.Sprintf("--source-tokens has no count for source %s", w.name))
			}
			delete(available, w.name)
			mix.Sources = append(mix.Sources, budget.Source{Name: w.name, Tokens: n, Weight: w.value})
		}
		for _, t := range tokens {
			if _, stray := available[t.name]; stray {
				problems = append(problems, fmt.Sprintf("--source-tokens names %s, which --mix has not", t.name))
			}
		}
		if len(problems) > 0 {
			return in, usageError{fmt.Errorf("%s", strings.Join(problems, "; "))}
		}
	}
	if o.TargetTokens != "" {
		mix.TargetTokens = target
	}
	in.Mix = &mix
	return in, nil
}

type assignment struct {
	name  string
	value float64
}

// assignments reads name=value items, in order.
func assignments(flag string, items []string, parse func(string) (float64, error)) ([]assignment, error) {
	var out []assignment
	for _, item := range items {
		name, value, ok := strings.Cut(item, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return nil, usagef("--%s: want source=value, not %q", flag, item)
		}
		v, err := parse(value)
		if err != nil {
			return nil, usagef("--%s: source %s: %v", flag, name, err)
		}
		out = append(out, assignment{name, v})
	}
	return out, nil
}

func runBudget(ctx context.Context, o *BudgetOptions, args []string, s Streams) error {
	if len(args) == 1 {
		if o.Tokens != "" || o.Docs != "" {
			return usagef("give the corpus as a path or as --tokens/--docs, not both")
		}
		tokens, docs, err := o.corpusFromPath(ctx, args[0], s)
		if err != nil {
			return err
		}
		o.Docs, o.TokensPerDoc = strconv.FormatInt(docs, 10), strconv.FormatFloat(float64(tokens)/float64(max(docs, 1)), 'f', -1, 64)
		args = nil
	}
	in, err := o.budgetInput(args)
	if err != nil {
		return err
	}
	plan, err := budget.Compute(in)
	if err != nil {
		return usageError{err} // every input came from the command line
	}
	if o.JSON {
		return printJSON(s.Out, newBudgetReport(plan))
	}
	printBudget(s.Out, plan)
	return nil
}

// budgetReport is the --json output. Numbers that need --params (or
// documents, or a mixture) are null without it; the keys are always there.
type budgetReport struct {
	CorpusTokens           float64         `json:"corpus_tokens"`
	Docs                   *float64        `json:"docs"`
	TokensPerDoc           *float64        `json:"tokens_per_doc"`
	Epochs                 float64         `json:"epochs"`
	TokensSeen             float64         `json:"tokens_seen"`
	Params                 *float64        `json:"params"`
	TokensPerParam         float64         `json:"tokens_per_param"`
	FLOPs                  *float64        `json:"flops"`
	OptimalTokens          *float64        `json:"optimal_tokens"`
	EpochsNeeded           *float64        `json:"epochs_needed"`
	OptimalFLOPs           *float64        `json:"optimal_flops"`
	OptimalParams          float64         `json:"optimal_params"`
	OptimalParamsSeen      float64         `json:"optimal_params_seen"`
	OptimalParamsSeenFLOPs float64         `json:"optimal_params_seen_flops"`
	Mixture                *mixtureReport  `json:"mixture"`
	Warnings               []warningReport `json:"warnings"`
}

type mixtureReport struct {
	TargetTokens float64        `json:"target_tokens"`
	Sources      []sourceReport `json:"sources"`
}

type sourceReport struct {
	Name              string  `json:"name"`
	Weight            float64 `json:"weight"`
	Share             float64 `json:"share"`
	Tokens            float64 `json:"tokens"`
	ContributedTokens float64 `json:"contributed_tokens"`
	Epochs            float64 `json:"epochs"`
}

type warningReport struct {
	Code    string `json:"code"`
	Source  string `json:"source,omitempty"`
	Message string `json:"message"`
}

func newBudgetReport(p budget.Plan) budgetReport {
	opt := func(x float64, ok bool) *float64 {
		if !ok {
			return nil
		}
		return &x
	}
	hasParams := p.Params > 0
	r := budgetReport{
		CorpusTokens:           p.CorpusTokens,
		Docs:                   opt(p.Docs, p.Docs > 0),
		TokensPerDoc:           opt(p.TokensPerDoc, p.Docs > 0),
		Epochs:                 p.Epochs,
		TokensSeen:             p.TokensSeen,
		Params:                 opt(p.Params, hasParams),
		TokensPerParam:         p.TokensPerParam,
		FLOPs:                  opt(p.FLOPs, hasParams),
		OptimalTokens:          opt(p.OptimalTokens, hasParams),
		EpochsNeeded:           opt(p.EpochsNeeded, hasParams),
		OptimalFLOPs:           opt(p.OptimalFLOPs, hasParams),
		OptimalParams:          p.OptimalParams,
		OptimalParamsSeen:      p.OptimalParamsSeen,
		OptimalParamsSeenFLOPs: p.OptimalParamsSeenFLOPs,
		Warnings:               []warningReport{},
	}
	if p.Mix {
		r.Mixture = &mixtureReport{TargetTokens: p.TokensSeen, Sources: []sourceReport{}}
		for _, s := range p.Sources {
			r.Mixture.Sources = append(r.Mixture.Sources, sourceReport{Name: s.Name, Weight: s.Weight, Share: s.Share,
				Tokens: s.Tokens, ContributedTokens: s.Contributed, Epochs: s.Epochs})
		}
	}
	for _, w := range p.Warnings {
		r.Warnings = append(r.Warnings, warningReport{Code: w.Code, Source: w.Source, Message: w.Message})
	}
	return r
}

// printBudget writes the plan as aligned tables.
func printBudget(w io.Writer, p budget.Plan) {
	tokens := func(x float64) string { return budget.Count(x) + " tokens" }
	params := func(x float64) string { return budget.Count(x) + " params" }
	flops := func(x float64) string { return budget.Scientific(x) + " FLOPs" }

	run := [][]string{}
	row := func(cells ...string) { run = append(run, cells) }
	switch {
	case p.Mix:
		row("corpus", tokens(p.CorpusTokens), fmt.Sprintf("%d sources", len(p.Sources)))
		row("tokens seen", tokens(p.TokensSeen), "mixture target")
		row("epochs", budget.Number(p.Epochs), "on average; per source below")
	case p.Docs > 0:
		row("corpus", tokens(p.CorpusTokens), fmt.Sprintf("%s docs × %s tokens", budget.Count(p.Docs), budget.Count(p.TokensPerDoc)))
		row("epochs", budget.Number(p.Epochs), "")
		row("tokens seen", tokens(p.TokensSeen), "corpus × epochs")
	default:
		row("corpus", tokens(p.CorpusTokens), "")
		row("epochs", budget.Number(p.Epochs), "")
		row("tokens seen", tokens(p.TokensSeen), "corpus × epochs")
	}
	if p.Params > 0 {
		row("model", params(p.Params), "")
		row("training compute", flops(p.FLOPs), "6 × params × tokens seen (Kaplan et al. 2020)")
	}
	optimal := [][]string{}
	row = func(cells ...string) { optimal = append(optimal, cells) }
	if p.Params > 0 {
		row("tokens", tokens(p.OptimalTokens), "for "+params(p.Params))
		row("epochs needed", budget.Number(p.EpochsNeeded), "optimal tokens / corpus")
		row("compute", flops(p.OptimalFLOPs), "6 × params × optimal tokens")
	}
	row("model for the corpus", params(p.OptimalParams), "one epoch")
	row("model for tokens seen", params(p.OptimalParamsSeen), "trained in "+flops(p.OptimalParamsSeenFLOPs))

	t := &table{indent: "  "}
	t.measure(run)
	t.measure(optimal)
	fmt.Fprintln(w, "run")
	t.write(w, run)
	fmt.Fprintf(w, "\ncompute-optimal at %s tokens per parameter (Hoffmann et al. 2022)\n", budget.Number(p.TokensPerParam))
	t.write(w, optimal)

	if p.Mix {
		mix := [][]string{{"source", "weight", "share", "available", "contributed", "epochs"}}
		for _, s := range p.Sources {
			mix = append(mix, []string{s.Name, budget.Number(s.Weight), budget.Number(100*s.Share) + "%",
				budget.Count(s.Tokens), budget.Count(s.Contributed), budget.Number(s.Epochs)})
		}
		fmt.Fprintf(w, "\nmixture for %s\n", tokens(p.TokensSeen))
		(&table{indent: "  ", right: alignRight(1, len(mix[0]))}).print(w, mix)
	}

	if len(p.Warnings) > 0 {
		fmt.Fprintln(w, "\nwarnings")
		for _, warn := range p.Warnings {
			fmt.Fprintf(w, "  ! %s\n", warn.Message)
		}
	}
}

// corpusFromPath reads the corpus size from a counts file that `sluice
// tokens -o counts.json` wrote, or counts the tokens of a dataset.
func (o *BudgetOptions) corpusFromPath(ctx context.Context, path string, s Streams) (tokens, docs int64, err error) {
	note := s.Out
	if o.JSON {
		note = s.Err // stdout holds only the JSON object
	}
	if strings.HasSuffix(path, ".json") {
		data, err := sidefile.ReadFile(path, sidefile.Counts)
		if err != nil {
			return 0, 0, usageError{err}
		}
		var rep TokenReport
		if err := json.Unmarshal(data, &rep); err == nil && rep.Tokenizer != "" {
			fmt.Fprintf(note, "corpus from %s: %s tokens (%s) in %d documents\n\n", path, budget.Count(float64(rep.Total.Tokens)), rep.Tokenizer, rep.Total.Documents)
			return rep.Total.Tokens, rep.Total.Documents, nil
		}
	}
	co, err := convertDefaults()
	if err != nil {
		return 0, 0, err
	}
	co.NoProgress = true
	to := &TokensOptions{ConvertOptions: *co, Tokenizer: o.Tokenizer}
	rep, err := countTokens(ctx, to, []string{path}, nil, s, nil)
	if err != nil {
		return 0, 0, err
	}
	fmt.Fprintf(note, "corpus from %s: %s tokens (%s) in %d documents\n\n", path, budget.Count(float64(rep.Total.Tokens)), rep.Tokenizer, rep.Total.Documents)
	return rep.Total.Tokens, rep.Total.Documents, nil
}
