package command

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/sluice-data/sluice/demo"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/kernels/quality"
	"github.com/sluice-data/sluice/kernels/tokenize"
	"github.com/sluice-data/sluice/pipeline/pipefile"
	"github.com/sluice-data/sluice/stages"
	"github.com/urfave/cli/v2"
)

// DemoOptions are the flags of `sluice demo`.
type DemoOptions struct {
	Output    string
	Overwrite bool
	Workers   int
	Report
}

// demoInput is the name under which the manifest and the quarantine record
// the built-in sample, instead of the temporary file it is read from.
const demoInput = demo.SampleName + " (built in)"

func demoCommand(s Streams) *cli.Command {
	o := &DemoOptions{}
	return &cli.Command{
		Name:      "demo",
		Usage:     "run the pipeline on a sample corpus built into the binary",
		ArgsUsage: "[-o OUT]",
		Description: "Runs the pipeline on a sample corpus of about 300 documents (web pages, books, forum threads,\n" +
			"code docs) with the defaults of `sluice convert`, MinHash near-dedup at 0.8, language ID (lang and\n" +
			"lang_score columns) and the stages of `sluice clean --normalize --filters\n" +
			"gopher_quality,gopher_repetition,c4,fineweb --pii email,phone,ip` into the dataset directory OUT,\n" +
			"then tells where to look. It then extracts the text of web pages from a built-in WARC file\n" +
			"into OUT/web, checks the kept rows against a small evaluation set with a planted leak\n" +
			"(OUT/decontaminated, with memorization probes), and validates, converts and splits a\n" +
			"built-in fine-tuning file in OUT/tasks.\n" +
			"The sample has the faults of a real crawl: malformed lines (quarantined), invalid UTF-8 (repaired),\n" +
			"a row without text, duplicates, near duplicates, boilerplate, personal data and non-English text.\n" +
			"OUT is replaced when it holds an earlier demo's output; any other existing OUT is refused unless\n" +
			"--overwrite is given, and even then only a sluice dataset is replaced (only the files its manifest lists).",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "sluice-demo", Destination: &o.Output,
				Usage: "the dataset directory to write"},
			&cli.BoolFlag{Name: "overwrite", Destination: &o.Overwrite,
				Usage: "replace OUT if it is a sluice dataset other than an earlier demo's (which is replaced anyway)"},
			&cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Value: runtime.NumCPU(), Destination: &o.Workers,
				Usage: "goroutines that parse and encode batches (and the CPU cores used)"},
		}, reportFlags(&o.Report)...),
		Action: action(func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("demo takes no arguments, got %q (the output is set with -o)", c.Args().First())
			}
			return runDemo(c.Context, o, commandLine(c), s)
		}),
	}
}

// convertDefaults returns the options `sluice convert` runs with when no
// flag is given, read from the convert flags themselves so that the demo
// follows them when they change.
func convertDefaults() (*ConvertOptions, error) {
	o := &ConvertOptions{}
	set := flag.NewFlagSet("convert", flag.ContinueOnError)
	for _, f := range append(inputFlags(o), outputFlags(o)...) {
		if err := f.Apply(set); err != nil {
			return nil, err
		}
	}
	return o, nil
}

func runDemo(ctx context.Context, o *DemoOptions, command []string, s Streams) error {
	if dataset.ParseTarget(o.Output).Kind != dataset.Directory {
		return usagef("--output %s: the demo writes a dataset directory; give a path without a .parquet or .jsonl suffix", o.Output)
	}
	if err := o.check(); err != nil {
		return err
	}
	// The demo's text goes where --json and --quiet say; the runs show
	// no progress bar, and with --verbose their details.
	v := &view{}
	if o.Verbose {
		v.detail = s.Err
	}
	text := Streams{In: s.In, Out: o.text(s.Out), Err: s.Err}
	co, err := convertDefaults()
	if err != nil {
		return err
	}
	co.Output, co.Overwrite, co.Workers, co.NoProgress = o.Output, o.Overwrite || isDemoOutput(o.Output), o.Workers, true

	tmp, err := os.MkdirTemp("", "sluice-demo-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	in := filepath.Join(tmp, demo.SampleName)
	if err := os.WriteFile(in, demo.Sample(), 0o644); err != nil {
		return err
	}

	cfg, err := co.pipelineConfig([]string{in})
	if err != nil {
		return err
	}
	cfg.Inputs[0].Name = demoInput
	// Near duplicates (exact copies included) go first: MinHash links the
	// clusters in passes over the input, then its filter leads the pipeline.
	mh := stages.DefaultMinHashParams()
	mh.IDField = co.IDField
	near, err := stages.NewGlobalMinHash(co.TextField, mh, false)
	if err != nil {
		return err
	}
	cfg.Stages = append(cfg.Stages, near)
	lang, err := demoLangStage(co.TextField)
	if err != nil {
		return err
	}
	cfg.Stages = append(cfg.Stages, lang)
	cleanOpts := &CleanOptions{Normalize: "nfc", Filters: strings.Join(quality.Names, ","), PII: "email,phone,ip"}
	specs, err := cleanOpts.stageSpecs()
	if err != nil {
		return err
	}
	for _, spec := range specs {
		st, err := pipefile.Build(spec, pipefile.Common{TextField: co.TextField, Profile: quality.ProfilePaper})
		if err != nil {
			return err
		}
		cfg.Stages = append(cfg.Stages, st)
	}
	enc, err := tokenize.Get("cl100k_base")
	if err != nil {
		return err
	}
	tokens := stages.NewTokens(co.TextField, enc.Name(), func() stages.TokenCounter { return enc.NewCounter() },
		[]string{"meta.source"}, true)
	cfg.Stages = append(cfg.Stages, tokens)
	if err := prepareGlobals(ctx, cfg, cfg.Stages, command, s, v); err != nil {
		return err
	}
	m, err := runPipeline(ctx, cfg, command)
	if err != nil {
		return err
	}
	v.finished(m)
	printDemo(text.Out, cfg.Target, m)
	groups, total := tokens.Groups()
	res := DemoResult{Summary: newSummary(cfg.Target, m), Tokens: tokenReport(enc.Name(), []string{"meta.source"}, groups, total, m),
		Tasks: filepath.Join(o.Output, "tasks")}
	fmt.Fprintf(text.Out, "\nTokens of the kept rows (cl100k_base, column n_tokens; `sluice tokens` and `sluice budget` plan with them):\n")
	printTokenTable(text.Out, res.Tokens)
	contamOut := filepath.Join(o.Output, "decontaminated")
	if err := runDemoContamination(ctx, []string{filepath.Join(cfg.Target.Path, "data")}, contamOut, o.Workers, command, text); err != nil {
		return err
	}
	if res.Decontaminated, err = readDemoContamination(contamOut); err != nil {
		return err
	}
	fmt.Fprintf(text.Out, "\nWeb pages from a built-in WARC file: block list, main-content extraction, exact dedup (sluice extract):\n")
	webOut := filepath.Join(o.Output, "web")
	web, err := runWARCDemo(ctx, webOut, co.Overwrite, o.Workers, command, text)
	if err != nil {
		return err
	}
	res.Web = newSummary(dataset.ParseTarget(webOut), web)
	fmt.Fprintf(text.Out, "\nFine-tuning task files: a built-in chat sample, validated, converted and split (sluice tasks):\n\n")
	if err := tasksDemo(ctx, res.Tasks, text); err != nil {
		return err
	}
	if err := demoReport(ctx, o.Output, co.Overwrite, o.Workers, command, text); err != nil {
		return err
	}
	examples := filepath.Join(o.Output, demoExamplesDir)
	names, err := writeDemoExamples(ctx, examples, o.Workers)
	if err != nil {
		return err
	}
	printDemoExamples(text.Out, examples, names)
	if o.JSON {
		return printJSON(s.Out, res)
	}
	return nil
}

// readDemoContamination reads back what the demo's decontamination wrote
// into dir: its manifest and report.
func readDemoContamination(dir string) (DemoContamination, error) {
	t := dataset.ParseTarget(dir)
	m, err := dataset.ReadManifest(t.SidePath("manifest.json"))
	if err != nil {
		return DemoContamination{}, err
	}
	res := DemoContamination{Summary: newSummary(t, m), Probes: filepath.Join(dir, "probes.jsonl")}
	b, err := os.ReadFile(t.SidePath("contamination.json"))
	if err != nil {
		return res, err
	}
	return res, json.Unmarshal(b, &res.Contamination)
}

// isDemoOutput reports whether dir holds what an earlier demo wrote: a
// sluice dataset made from the built-in sample.
func isDemoOutput(dir string) bool {
	m, err := dataset.ReadManifest(filepath.Join(dir, "manifest.json"))
	return err == nil && len(m.Inputs) == 1 && m.Inputs[0].Path == demoInput
}

func printDemo(w io.Writer, t dataset.Target, m *dataset.Manifest) {
	c := m.Counts
	var bytesIn, bytesOut, blank int64
	for _, in := range m.Inputs {
		bytesIn += in.Bytes
		blank += in.BlankLines
	}
	for _, out := range m.Outputs {
		bytesOut += out.Bytes
	}
	fmt.Fprintf(w, "sluice demo: ran the built-in sample corpus (%s) through convert, MinHash near-dedup, normalize,\n"+
		"language ID, the Gopher, C4 and FineWeb quality rules, PII masking and token counting, in %.2fs\n\n", humanBytes(bytesIn), m.WallSecs)

	row := func(label string, n int64, what string) {
		num := ""
		if n >= 0 {
			num = strconv.FormatInt(n, 10)
		}
		fmt.Fprintf(w, "  %-15s %6s   %s\n", label, num, what)
	}
	row("rows in", c.RowsIn, "documents: web pages, books, forum threads, code docs")
	if len(m.Outputs) == 1 {
		row("written", c.RowsOut, fmt.Sprintf("%s (%s)", m.Outputs[0].Path, humanBytes(bytesOut)))
	} else {
		row("written", c.RowsOut, fmt.Sprintf("%s (%d files, %s)", filepath.Join(t.Path, "data"), len(m.Outputs), humanBytes(bytesOut)))
	}
	if c.Removed > 0 {
		row("removed", c.Removed, filepath.Join(t.Path, "removed")+": duplicates and rows a quality rule dropped, with _stage and _reason")
	}
	if q := m.Side["quarantine"]; q != "" {
		row("quarantined", c.Quarantined, q+": lines that are not JSON objects, with line, error and raw text")
	} else {
		row("quarantined", c.Quarantined, "")
	}
	row("UTF-8 repaired", c.UTF8Repaired, "rows with invalid bytes, replaced by U+FFFD and kept")
	row("without text", c.MissingText, "rows with no \"text\" member, kept with a null text")
	blankNote := ""
	if blank == 1 {
		blankNote = "; the blank line is not a row"
	} else if blank > 1 {
		blankNote = fmt.Sprintf("; the %d blank lines are not rows", blank)
	}
	row("manifest", -1, t.SidePath("manifest.json")+": config, input hash and counts")
	fmt.Fprintf(w, "  %-15s %6s   (%d in = %d written + %d removed + %d quarantined%s)\n", "", "",
		c.RowsIn, c.RowsOut, c.Removed, c.Quarantined, blankNote)

	fmt.Fprint(w, "\nStages:\n")
	printStageCounts(w, m)
	fmt.Fprint(w, "\nLeft in the data: boilerplate lines repeated across pages (cookie banners, newsletter prompts,\n"+
		"navigation) for `sluice dedup lines`. The lang column labels every row; the sample's texts in eight\n"+
		"other languages were dropped by the Gopher rules, which are written for English.\n")

	glob := filepath.ToSlash(filepath.Join(t.Path, "data", "*.parquet"))
	sqlPath := strings.ReplaceAll(glob, "'", "''")
	fmt.Fprint(w, "\nLook at it (the duckdb lines need DuckDB's command line, https://duckdb.org/docs/installation):\n")
	fmt.Fprintf(w, "  duckdb -c %s\n", dquote("SELECT meta.source, count(*) FROM read_parquet('"+sqlPath+"') GROUP BY 1"))
	fmt.Fprintf(w, "  duckdb -c %s\n", dquote("SELECT count(*) AS copies, list(id) AS ids FROM read_parquet('"+sqlPath+
		"') GROUP BY text HAVING copies > 1"))
	fmt.Fprintf(w, "  duckdb -c %s\n", dquote(demoLangQuery(sqlPath)))
	removedGlob := strings.ReplaceAll(filepath.ToSlash(filepath.Join(t.Path, "removed", "*.parquet")), "'", "''")
	fmt.Fprintf(w, "  duckdb -c %s\n", dquote("SELECT _stage, _reason, count(*) FROM read_parquet('"+removedGlob+"') GROUP BY ALL ORDER BY 3 DESC"))
	if q := m.Side["quarantine"]; q != "" {
		fmt.Fprintf(w, "  cat %s\n", squote(q))
	}
	fmt.Fprintf(w, "  %s inspect %s\n", demoSelf(), squote(t.Path))
}

// squote quotes s for a POSIX shell when it needs quoting.
func squote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// dquote puts s in double quotes for a POSIX shell.
func dquote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")
	return `"` + r.Replace(s) + `"`
}
