package command

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-data/sluice/kernels/pii"
	"github.com/sluice-data/sluice/kernels/quality"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/pipeline/pipefile"
	"github.com/sluice-data/sluice/recipes"
	"github.com/sluice-data/sluice/stages"
	"github.com/urfave/cli/v2"
	"go.yaml.in/yaml/v3"
)

// CleanOptions are the flags of `sluice clean` and `sluice run`.
type CleanOptions struct {
	ConvertOptions
	Normalize string
	Filters   string
	PII       string
	Annotate  bool
	Profile   string
	Config    string
	// Recipe is --recipe: a built-in pipeline file whose stages run.
	Recipe string
	// profileSet is whether --profile was given; it then overrides the
	// profile of a --config file or a recipe.
	profileSet bool
	// Lang is --lang: language codes to keep, or "any" to annotate only.
	Lang         string
	LangMinScore float64
	LangModel    string
	Classify     cli.StringSlice
	// Block lists of the url_filter stage.
	BlockDomains, BlockSubstrings string
}

// optionalValues lists flags whose value may be left out, with the value
// that stands in: `--normalize` alone means `--normalize=nfc`.
var optionalValues = map[string]struct {
	implied string
	allowed []string
}{
	"normalize": {"nfc", []string{"nfc", "nfkc", "none"}},
}

func cleanFlags(o *CleanOptions) []cli.Flag {
	return append([]cli.Flag{
		&cli.StringFlag{Name: "normalize", Destination: &o.Normalize,
			Usage: "normalize the text first: nfc (also --normalize alone) or nfkc; line endings, trailing spaces, blank-line runs, control and zero-width characters"},
		&cli.StringFlag{Name: "filters", Destination: &o.Filters,
			Usage: "quality rule sets, any of " + strings.Join(quality.Names, ",") + " (run in that order)"},
		&cli.StringFlag{Name: "pii", Destination: &o.PII,
			Usage: "mask personal data, any of email,phone,ip; adds pii_email, pii_phone, pii_ip count columns"},
		annotateFlag(o),
		&cli.StringFlag{Name: "profile", Value: string(quality.ProfilePaper), Destination: &o.Profile,
			Usage: "rule defaults where published tools differ: paper, datatrove, dolma or nemo; given, it replaces the profile of a --config file or a recipe"},
		&cli.StringFlag{Name: "config", Destination: &o.Config,
			Usage: "a pipeline file (YAML) giving the stages and their parameters instead of the flags above"},
		&cli.StringFlag{Name: "recipe", Destination: &o.Recipe,
			Usage: "run the stages of a built-in recipe `NAME` instead of stage flags: " + strings.Join(recipes.Names(), ", ") + " (sluice recipe lists them)"},
	}, classifierFlags(o)...)
}

func annotateFlag(o *CleanOptions) cli.Flag {
	return &cli.BoolFlag{Name: "annotate", Destination: &o.Annotate,
		Usage: "keep every row; add the signal columns, keep and drop_reason, so thresholds can be chosen later"}
}

// classifierFlags are the flags of the fastText stages, shared by clean
// and classify.
func classifierFlags(o *CleanOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "lang", Destination: &o.Lang,
			Usage: "identify the language (fastText lid.176, built in; columns lang, lang_score): `CODES` to keep, e.g. en,zh (ISO 639-1; others go to removed/ with _reason=lang), or any to annotate only"},
		&cli.Float64Flag{Name: "lang-min-score", Value: stages.DefaultLangMinScore, Destination: &o.LangMinScore,
			Usage: "with --lang CODES, rows whose language scores below this go to removed/ with _reason=lang_score"},
		&cli.StringFlag{Name: "lang-model", Destination: &o.LangModel,
			Usage: "another fastText language-ID model `FILE` (lid.176.bin, GlotLID) instead of the built-in lid.176.ftz"},
		&cli.StringSliceFlag{Name: "classify", Destination: &o.Classify,
			Usage: "run a fastText classifier, `SPEC` = NAME=MODEL.bin[:LABEL[:THRESHOLD]] (repeatable): adds NAME_label and NAME_score (of LABEL when given); with THRESHOLD, rows whose LABEL probability is below it go to removed/ (_stage classify_NAME, _reason NAME_score)"},
	}
}

func cleanCommand(s Streams) *cli.Command {
	o := &CleanOptions{}
	return &cli.Command{
		Name:      "clean",
		Usage:     "normalize, filter by quality rules and mask PII; removed rows go to removed/ with the rule they failed",
		ArgsUsage: "IN... -o OUT",
		Description: "The stages come from stage flags (--normalize, --lang, --filters, --pii, --classify, --block-*),\n" +
			"from a recipe (--recipe NAME) or from a pipeline file (--config), one of the three. Without any,\n" +
			"clean runs the default recipe: NFC normalization, then the gopher_quality, gopher_repetition, c4\n" +
			"and fineweb rules with the papers' thresholds (`sluice recipe default` prints it). The summary\n" +
			"names the recipe that ran. Stage flags run in this order: url_filter, normalize, lang,\n" +
			"gopher_quality, gopher_repetition, c4, fineweb, pii, classify.\n" +
			"A failing row goes to removed/ (OUT.removed.parquet for one-file outputs) with _stage and _reason\n" +
			"(the first rule it failed); --annotate keeps every row and adds the signals, keep and drop_reason.\n" +
			"Every threshold can be set in a pipeline file (--config, or `sluice run`); see the README.",
		Flags: append(append(append(inputFlags(&o.ConvertOptions), outputFlags(&o.ConvertOptions)...), cleanFlags(o)...),
			urlFilterFlags(&o.BlockDomains, &o.BlockSubstrings)...),
		Action: action(func(c *cli.Context) error {
			o.profileSet = c.IsSet("profile")
			return runClean(c.Context, o, c.Args().Slice(), commandLine(c), s)
		}),
	}
}

func runCommand(s Streams) *cli.Command {
	o := &CleanOptions{}
	out := &cli.StringFlag{Name: "output", Aliases: []string{"o"}, Destination: &o.Output,
		Usage: "the output `OUT`, instead of the one the pipeline file names"}
	flags := withOutput(append(inputFlags(&o.ConvertOptions), outputFlags(&o.ConvertOptions)...), out)
	return &cli.Command{
		Name:      "run",
		Usage:     "run a whole pipeline from one declarative file",
		ArgsUsage: "PIPELINE.yaml",
		Description: "The file names the input, the output and the ordered stages with their parameters;\n" +
			"the flags below set how it reads and writes. The README documents the format.",
		Flags: flags,
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("run takes one pipeline file, got %d arguments", c.NArg())
			}
			o.Config = c.Args().First()
			return runClean(c.Context, o, nil, commandLine(c), s)
		}),
	}
}

// stageSpecs turns the clean flags into stage specs, in the fixed order.
func (o *CleanOptions) stageSpecs() ([]pipefile.Spec, error) {
	var specs []pipefile.Spec
	if spec, ok := urlFilterSpec(o.BlockDomains, o.BlockSubstrings); ok {
		specs = append(specs, spec)
	}
	param := func(name string, v any) pipefile.Spec {
		var n yaml.Node
		n.Encode(v)
		return pipefile.Spec{Name: name, Params: &n, File: "--" + name, Where: "--" + name}
	}
	switch o.Normalize {
	case "", "none":
	default:
		specs = append(specs, param("normalize", map[string]any{"form": o.Normalize}))
	}
	if o.LangModel != "" && o.Lang == "" {
		return nil, usagef("--lang-model needs --lang (CODES to keep, or any)")
	}
	if o.Lang != "" {
		specs = append(specs, param("lang", stages.LangParams{Languages: strings.Split(o.Lang, ","), MinScore: &o.LangMinScore, Model: o.LangModel}))
	}
	if o.Filters != "" {
		chosen := map[string]bool{}
		for _, f := range strings.Split(o.Filters, ",") {
			f = strings.TrimSpace(f)
			known := false
			for _, n := range quality.Names {
				known = known || n == f
			}
			if !known {
				return nil, usagef("--filters: unknown rule set %q (want any of %s)", f, strings.Join(quality.Names, ","))
			}
			chosen[f] = true
		}
		for _, n := range quality.Names {
			if chosen[n] {
				specs = append(specs, pipefile.Spec{Name: n, File: "--filters", Where: "--filters"})
			}
		}
	}
	if o.PII != "" {
		if _, err := pii.ParseKinds(o.PII); err != nil {
			return nil, usagef("--pii: %s", strings.TrimPrefix(err.Error(), "pii: "))
		}
		specs = append(specs, param("pii", map[string]any{"kinds": strings.Split(o.PII, ",")}))
	}
	for _, v := range o.Classify.Value() {
		p, err := stages.ParseClassify(v)
		if err != nil {
			return nil, usagef("--classify: %v", err)
		}
		specs = append(specs, param("classify", p))
	}
	return specs, nil
}

// stageFlags names the flags that give stages, for the errors about
// giving stages two ways.
const stageFlags = "--normalize, --lang, --filters, --pii, --classify, --block-domains, --block-url-substrings"

// stageFlagsGiven reports whether any flag that gives stages was given
// (--normalize none included, which gives none).
func (o *CleanOptions) stageFlagsGiven() bool {
	return o.Normalize != "" || o.Lang != "" || o.Filters != "" || o.PII != "" ||
		len(o.Classify.Value()) > 0 || o.BlockDomains != "" || o.BlockSubstrings != ""
}

func runClean(ctx context.Context, o *CleanOptions, args, command []string, s Streams) error {
	specs, err := o.stageSpecs()
	if err != nil {
		return err
	}
	profile, err := quality.ParseProfile(o.Profile)
	if err != nil {
		return usagef("--profile: %s", strings.TrimPrefix(err.Error(), "quality: "))
	}
	common := pipefile.Common{TextField: o.TextField, Annotate: o.Annotate, Profile: profile}
	recipe := o.Recipe
	if recipe == "" && o.Config == "" && !o.stageFlagsGiven() {
		recipe = recipes.Default
	}
	switch {
	case o.Config != "" && o.Recipe != "":
		return usagef("give either --config or --recipe, not both (`sluice recipe %s > pipeline.yaml` writes the recipe as a pipeline file)", o.Recipe)
	case o.Config != "":
		if o.stageFlagsGiven() {
			return usagef("give the stages either in --config or as flags (%s), not both", stageFlags)
		}
		file, _, err := readPipelineFile(o.Config)
		if err != nil {
			return err
		}
		specs = file.Stages
		common = pipefile.Common{TextField: file.TextField, Annotate: file.Annotate || o.Annotate, Profile: file.Profile}
		if o.profileSet {
			common.Profile = profile
		}
		args = o.mergeFile(file, args)
	case recipe != "":
		if o.stageFlagsGiven() {
			return usagef("--recipe %s: give the stages either by a recipe or as flags (%s), not both; `sluice recipe %s > pipeline.yaml` writes the recipe as a pipeline file to edit", recipe, stageFlags, recipe)
		}
		r, err := recipes.Get(recipe)
		if err != nil {
			return usagef("--recipe: %v; `sluice recipe` lists them", err)
		}
		file, err := r.Parse()
		if err != nil {
			return err
		}
		specs = file.Stages
		common.Annotate = o.Annotate || file.Annotate
		if !o.profileSet {
			common.Profile = file.Profile
		}
	}
	if o.Output == "" {
		return usagef("no output: give -o OUT (or `output:` in the pipeline file)")
	}
	if len(specs) == 0 {
		return usagef("no stage to run: give --normalize, --lang, --filters, --pii or --classify, a --recipe or a pipeline file; `sluice convert` converts without stages")
	}
	var built []pipeline.Stage
	for _, spec := range specs {
		st, err := pipefile.Build(spec, common)
		if err != nil {
			return usageError{err}
		}
		built = append(built, st)
	}
	cfg, err := o.pipelineConfig(args)
	if err != nil {
		return err
	}
	v := o.view(s)
	if err := prepareGlobals(ctx, cfg, built, command, s, v); err != nil {
		return err
	}
	cfg.Stages = built
	cfg.BeforeCommit = saveContaminations(built)
	m, err := runWithProgress(ctx, cfg, command, s, v, "cleaning")
	if m != nil {
		if perr := printCleaned(o.Report, s.Out, cfg, m); err == nil {
			err = perr
		}
		if recipe != "" {
			fmt.Fprintf(o.Report.text(s.Out), "recipe: %s (`sluice recipe %s` prints its stages and where they come from)\n", recipe, recipe)
		}
	}
	return err
}
