package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/report"
	"github.com/urfave/cli/v2"
)

func init() {
	examples["report"] = []string{"sluice report clean/ -o report.html", "sluice report raw/ clean/ deduped/ -o run.html",
		"sluice report clean/ --compare clean-v1/", "sluice report clean/ --card --license cc-by-4.0"}
}

// ReportOptions are the flags of `sluice report`.
type ReportOptions struct {
	Output      string
	Compare     string
	Card        bool
	License     string
	Overwrite   bool
	JSON        bool
	TextField   string
	IDField     string
	SourceField string
	Examples    int
	Top         int
	Workers     int
}

func reportCommand(s Streams) *cli.Command {
	o := &ReportOptions{}
	return &cli.Command{
		Name:      "report",
		Usage:     "one self-contained HTML page of a run (funnel, removals, signals, tokens, languages, ...) or a dataset card",
		ArgsUsage: "DATASET... [-o report.html]",
		Description: "Reads the manifests of the DATASETs (the steps of one run in the order they ran, each reading\n" +
			"the output of the one before) and only the columns it needs from their Parquet files, and writes\n" +
			"one HTML file with inline CSS and SVG charts: no script, nothing fetched, it opens offline. Sections:\n" +
			"the funnel (rows in, out and removed per stage and reason, quarantined), removed rows by reason with\n" +
			"examples, signal histograms with the thresholds of their stages, tokens per source and language,\n" +
			"languages, duplicate cluster sizes, contamination per eval set, the quarantine by error, the\n" +
			"schema, provenance (command, version, config of every stage, inputs with sizes and hashes, time\n" +
			"per stage) and the task times of a launched run. --compare OTHER adds what changed against another\n" +
			"run. --card writes a Hugging Face dataset card (README.md) instead of the page: YAML front matter\n" +
			"(configs, features, language, size category, license), the processing steps, statistics, and how\n" +
			"to load it. An existing output is replaced only with --overwrite, and only when sluice wrote it (the\n" +
			"manifest beside it, report.html.manifest.json or README.md.manifest.json, lists it).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Destination: &o.Output,
				Usage: "the file to write (default: report.html; with --card, README.md in the last DATASET)"},
			&cli.StringFlag{Name: "compare", Destination: &o.Compare,
				Usage: "another run's dataset to set beside this one: config, counts and distributions"},
			&cli.BoolFlag{Name: "card", Destination: &o.Card,
				Usage: "write a Hugging Face dataset card (README.md) instead of the HTML page"},
			&cli.StringFlag{Name: "license", Value: "unknown", Destination: &o.License,
				Usage: "the license the card declares (a Hugging Face license id, e.g. cc-by-4.0, odc-by)"},
			&cli.BoolFlag{Name: "overwrite", Destination: &o.Overwrite,
				Usage: "replace the output file a previous report wrote"},
			&cli.BoolFlag{Name: "json", Destination: &o.JSON,
				Usage: "print one JSON object (what was written, counts, seconds) instead of the summary"},
			&cli.StringFlag{Name: "text-field", Destination: &o.TextField,
				Usage: "the text column of the examples (default: the manifest's, or text)"},
			&cli.StringFlag{Name: "id-field", Destination: &o.IDField,
				Usage: "the id column of the examples (default: the manifest's, or id)"},
			&cli.StringFlag{Name: "source-field", Destination: &o.SourceField,
				Usage: "the column that names each row's source, nested as meta.source (default: source or meta.source)"},
			&cli.IntFlag{Name: "examples", Value: 3, Destination: &o.Examples,
				Usage: "example rows shown per removal reason and quarantine error"},
			&cli.IntFlag{Name: "top", Value: 10, Destination: &o.Top,
				Usage: "languages and sources drawn in the charts (the tables list all)"},
			&cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Value: runtime.NumCPU(), Destination: &o.Workers,
				Usage: "row groups read at once; 0 for every core"},
		},
		Action: action(func(c *cli.Context) error {
			return runReport(c.Context, o, c.Args().Slice(), commandLine(c), s)
		}),
	}
}

func runReport(ctx context.Context, o *ReportOptions, args, command []string, s Streams) error {
	start := time.Now()
	if len(args) == 0 {
		return usagef("report needs at least one DATASET (a sluice dataset directory or one-file output)")
	}
	if o.Examples < 0 {
		return usagef("--examples %d: must be 0 or more", o.Examples)
	}
	if o.Top < 1 {
		return usagef("--top %d: must be at least 1", o.Top)
	}
	if o.Workers < 0 {
		return usagef("--workers %d: must be 0 (every core) or more", o.Workers)
	}
	if o.Workers == 0 {
		o.Workers = runtime.NumCPU()
	}
	if o.Card && o.Compare != "" {
		return usagef("--card and --compare: a dataset card describes one dataset; leave out --compare")
	}
	out := o.Output
	if out == "" {
		out = "report.html"
		if o.Card {
			out = filepath.Join(reportCardDir(args[len(args)-1]), "README.md")
		}
	}
	what := "report"
	if o.Card {
		what = "dataset card"
	}
	inputs := append([]string(nil), args...)
	if o.Compare != "" {
		inputs = append(inputs, o.Compare)
	}
	file, err := dataset.BeginArtifact(ctx, dataset.ArtifactSpec{Path: out, What: what, Inputs: inputs,
		Overwrite: o.Overwrite, Command: command, Version: Version, Written: isReportFile})
	if err != nil && o.Output != "" {
		return fmt.Errorf("-o: %w", err)
	}
	if err != nil {
		return err
	}
	defer file.Abort()
	ropts := report.Options{TextField: o.TextField, IDField: o.IDField, SourceField: o.SourceField,
		Examples: max(o.Examples, 0), Top: o.Top, Workers: o.Workers}
	if o.Examples == 0 {
		ropts.Examples = -1
	}
	rep, err := report.Gather(ctx, args, ropts)
	if err != nil {
		return reportError(err)
	}
	var buf bytes.Buffer
	if o.Card {
		err = report.WriteCard(&buf, rep, report.CardOptions{License: o.License})
	} else {
		var cmp *report.Comparison
		if o.Compare != "" {
			other, err := report.Gather(ctx, []string{o.Compare}, ropts)
			if err != nil {
				return reportError(fmt.Errorf("--compare: %w", err))
			}
			if cmp, err = report.Compare(rep, other); err != nil {
				return err
			}
		}
		err = report.WriteHTML(&buf, rep, cmp)
	}
	if err != nil {
		return err
	}
	if err := file.Commit(buf.Bytes()); err != nil {
		return err
	}
	if o.JSON {
		return printJSON(s.Out, map[string]any{"output": out, "card": o.Card, "bytes": buf.Len(), "rows_in": rep.Counts.RowsIn,
			"rows_out": rep.Counts.RowsOut, "removed": rep.Counts.Removed, "quarantined": rep.Counts.Quarantined,
			"charts": len(rep.Charts()), "seconds": time.Since(start).Seconds()})
	}
	fmt.Fprintf(s.Out, "%s: %s (%s; %d rows in, %d written, %d removed, %d quarantined) in %.2fs\n", what, out,
		humanBytes(int64(buf.Len())), rep.Counts.RowsIn, rep.Counts.RowsOut, rep.Counts.Removed,
		rep.Counts.Quarantined, time.Since(start).Seconds())
	return nil
}

// reportError makes a path that is no dataset, or datasets out of order, a
// usage error.
func reportError(err error) error {
	if errors.Is(err, report.ErrNotDataset) || errors.Is(err, report.ErrNotChain) {
		return usageError{err}
	}
	return err
}

// reportCardDir is where the card of a dataset goes: its directory, or the
// folder of a one-file output.
func reportCardDir(path string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return path
	}
	return filepath.Dir(path)
}

// reportMarks are in every page and card sluice writes: a page or card
// written before they had a manifest beside them is recognised by them
// (and replaced with --overwrite).
var reportMarks = [][]byte{[]byte(`<meta name="generator" content="sluice report">`), []byte("# written by sluice report")}

// isReportFile reports whether the file at path starts like a page or a
// card sluice wrote.
func isReportFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	for _, m := range reportMarks {
		if bytes.Contains(head[:n], m) {
			return true
		}
	}
	return false
}
