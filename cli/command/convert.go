package command

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/sluice-data/sluice/internal/sidefile"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/io/warc"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/schema"
	"github.com/urfave/cli/v2"
)

// ConvertOptions are the flags of `sluice convert`.
type ConvertOptions struct {
	Output           string
	Overwrite        bool
	Workers          int
	BatchRows        int
	BatchBytes       string
	InferRows        string
	SchemaFile       string
	Strict           bool
	InvalidUTF8      string
	MaxDepth         int
	MaxLineBytes     string
	TextField        string
	IDField          string
	Compression      string
	CompressionLevel int
	MaxFileRows      int64
	MaxFileBytes     string
	NoProgress       bool
	PageBytes        string
	WARCTypes        string
	AllowIncomplete  bool
	Lineage          bool
	Limit            int64
	Report
}

func convertCommand(s Streams) *cli.Command {
	o := &ConvertOptions{}
	return &cli.Command{
		Name:      "convert",
		Usage:     "convert JSONL (plain, .gz, .zst) to Parquet and back, streaming, in parallel",
		ArgsUsage: "IN... -o OUT",
		Description: "IN are files, globs or directories (searched for .jsonl, .jsonl.gz, .jsonl.zst, .parquet).\n" +
			"OUT ending in .parquet, .jsonl, .jsonl.gz or .jsonl.zst is one file (manifest and quarantine\n" +
			"beside it); any other OUT is a dataset directory: OUT/data/part-NNNNN.parquet, OUT/quarantine.jsonl,\n" +
			"OUT/manifest.json. Rows keep their input order whatever the number of workers. Lines that are not\n" +
			"JSON objects go to the quarantine with file, line and error; members that do not fit the schema\n" +
			"go to the _extra column (or the quarantine with --strict).",
		Flags: append(inputFlags(o), outputFlags(o)...),
		Action: action(func(c *cli.Context) error {
			return runConvert(c.Context, o, c.Args().Slice(), commandLine(c), s)
		}),
	}
}

func inputFlags(o *ConvertOptions) []cli.Flag {
	return append([]cli.Flag{
		&cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Value: runtime.NumCPU(), Destination: &o.Workers,
			Usage: "goroutines that parse and encode batches (and the CPU cores used); 0 for every core"},
		&cli.IntFlag{Name: "batch-rows", Value: pipeline.DefaultBatchRows, Destination: &o.BatchRows,
			Usage: "most rows in one record batch (and one Parquet row group)"},
		&cli.StringFlag{Name: "batch-bytes", Value: "16MiB", Destination: &o.BatchBytes,
			Usage: "a batch ends once its input lines reach this size (KB, MiB, GB... accepted)"},
		&cli.StringFlag{Name: "infer-rows", Value: strconv.Itoa(pipeline.DefaultInferRows), Destination: &o.InferRows,
			Usage: "rows read to infer the schema, or 'all' for a full first pass (then no _extra column is needed)"},
		&cli.StringFlag{Name: "schema", Destination: &o.SchemaFile,
			Usage: "a schema file instead of inference (format in the README)"},
		&cli.BoolFlag{Name: "strict", Destination: &o.Strict,
			Usage: "quarantine rows with members the schema has no place for, instead of keeping them in _extra"},
		&cli.StringFlag{Name: "invalid-utf8", Value: "repair", Destination: &o.InvalidUTF8,
			Usage: "invalid UTF-8 inside strings: repair (replace with U+FFFD and count) or quarantine"},
		&cli.IntFlag{Name: "max-depth", Value: jsonl.DefaultMaxDepth, Destination: &o.MaxDepth,
			Usage: "deepest nesting of objects and arrays accepted; deeper lines are quarantined"},
		&cli.StringFlag{Name: "max-line-bytes", Value: "512MiB", Destination: &o.MaxLineBytes,
			Usage: "longest line accepted; longer lines are quarantined (their first KB kept)"},
		&cli.StringFlag{Name: "text-field", Value: pipeline.DefaultTextField, Destination: &o.TextField,
			Usage: "the column holding the document text"},
		&cli.StringFlag{Name: "id-field", Value: "id", Destination: &o.IDField,
			Usage: "the column holding the document id"},
		&cli.StringFlag{Name: "warc-types", Value: strings.Join(warc.DefaultTypes, ","), Destination: &o.WARCTypes,
			Usage: "WARC/WET inputs: the record types that become rows, any of " + strings.Join(warc.RecordTypes, ", ")},
		&cli.BoolFlag{Name: "allow-incomplete", Destination: &o.AllowIncomplete,
			Usage: "read a dataset directory that has part files but no manifest (a run that did not finish) instead of refusing it"},
		&cli.BoolFlag{Name: "lineage", Destination: &o.Lineage,
			Usage: "add _src_file and _src_row (line, Parquet row or WARC record offset) to every kept and removed row; kept when the input has them"},
		limitFlag(&o.Limit),
		&cli.BoolFlag{Name: "no-progress", Destination: &o.NoProgress,
			Usage: "no progress bar (none is shown anyway when stderr is not a terminal)"},
	}, reportFlags(&o.Report)...)
}

// limitFlag is --limit N, which every command that reads rows into a
// pipeline has: read the first N rows of the input only.
func limitFlag(dest *int64) cli.Flag {
	return &cli.Int64Flag{Name: "limit", Destination: dest,
		Usage: "read only the first N rows of the input (lines, records or Parquet rows, in input order), to try a command on a few; the manifest counts those and records the limit",
		Action: func(_ *cli.Context, n int64) error {
			if n < 1 {
				return usagef("--limit must be at least 1, not %d", n)
			}
			return nil
		}}
}

func outputFlags(o *ConvertOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Destination: &o.Output,
			Usage: "output: a .parquet or .jsonl[.gz|.zst] file, a dataset directory, or - for JSONL on standard output"},
		&cli.BoolFlag{Name: "overwrite", Destination: &o.Overwrite,
			Usage: "replace an existing sluice output: only the files its manifest lists, once the new output is complete"},
		&cli.StringFlag{Name: "compression", Value: "zstd", Destination: &o.Compression,
			Usage: "Parquet compression: zstd, snappy or none"},
		&cli.IntFlag{Name: "compression-level", Value: 3, Destination: &o.CompressionLevel,
			Usage: "zstd level: 3 files about DuckDB's size; 1 faster, about 7% larger; up to 22"},
		&cli.StringFlag{Name: "page-bytes", Value: "1MiB", Destination: &o.PageBytes,
			Usage: "target size of a Parquet data page (larger pages compress better, readers skip less)"},
		&cli.Int64Flag{Name: "max-file-rows", Value: 1_000_000, Destination: &o.MaxFileRows,
			Usage: "dataset directories: start a new part file after this many rows"},
		&cli.StringFlag{Name: "max-file-bytes", Value: "512MiB", Destination: &o.MaxFileBytes,
			Usage: "dataset directories: start a new part file after this many bytes"},
	}
}

// withOutput returns flags with the output flag replaced by out, for
// commands whose -o means something else or is optional.
func withOutput(flags []cli.Flag, out cli.Flag) []cli.Flag {
	res := make([]cli.Flag, 0, len(flags))
	for _, f := range flags {
		if f.Names()[0] == "output" {
			f = out
		}
		res = append(res, f)
	}
	return res
}

// pipelineConfig checks the options and turns them into a pipeline
// configuration; every problem found is reported at once.
func (o *ConvertOptions) pipelineConfig(args []string) (pipeline.Config, error) {
	var problems []string
	bad := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	if o.Workers == 0 {
		o.Workers = runtime.NumCPU() // as `workers: 0` in a pipeline file: every core
	}
	cfg := pipeline.Config{
		Overwrite: o.Overwrite, Workers: o.Workers, BatchRows: o.BatchRows, Strict: o.Strict,
		MaxDepth: o.MaxDepth, TextField: o.TextField, SchemaFile: o.SchemaFile,
		Lineage: o.Lineage, Limit: o.Limit, Started: time.Now(),
	}
	if len(args) == 0 {
		bad("no input given (IN... -o OUT)")
	}
	if err := o.Report.check(); err != nil {
		bad("%v", err)
	}
	var err error
	if cfg.BatchBytes, err = parseSize("--batch-bytes", o.BatchBytes, pipeline.BatchBytesRange); err != nil {
		bad("%v", err)
	}
	if cfg.MaxLineBytes, err = parseSize("--max-line-bytes", o.MaxLineBytes, pipeline.MaxLineBytesRange); err != nil {
		bad("%v", err)
	}
	pageBytes, err := parseSize("--page-bytes", o.PageBytes, pipeline.PageBytesRange)
	if err != nil {
		bad("%v", err)
	}
	maxFileBytes, err := parseSize("--max-file-bytes", o.MaxFileBytes, pipeline.MaxFileBytesRange)
	if err != nil {
		bad("%v", err)
	}
	if o.InferRows == "all" {
		cfg.InferRows = pipeline.InferAll
	} else if n, err := strconv.Atoi(o.InferRows); err != nil || pipeline.InferRowsRange.Int("", int64(n)) != nil {
		bad("--infer-rows must be a number in %s or 'all', not %q", pipeline.InferRowsRange, o.InferRows)
	} else {
		cfg.InferRows = n
	}
	switch o.InvalidUTF8 {
	case "repair":
		cfg.RepairUTF8 = true
	case "quarantine":
	default:
		bad("--invalid-utf8 must be repair or quarantine, not %q", o.InvalidUTF8)
	}
	if cfg.WARCTypes, err = warc.ParseTypes(o.WARCTypes); o.WARCTypes != "" && err != nil {
		bad("--warc-types: %v", err)
	}
	codec, err := pqio.ParseCodec(o.Compression)
	if err != nil {
		bad("--compression: %v", err)
	}
	if o.CompressionLevel < 1 || o.CompressionLevel > 22 {
		bad("--compression-level must be between 1 and 22")
	}
	if o.MaxFileRows < 1 { // 0 would be no limit to the library, never meant by the flag
		bad("--max-file-rows must be at least 1")
	}
	cfg.Output = dataset.Options{MaxFileRows: o.MaxFileRows, MaxFileBytes: int64(maxFileBytes),
		Parquet: pqio.Options{Codec: codec, Level: o.CompressionLevel, NoDictionary: []string{o.TextField},
			PageBytes: int64(pageBytes)}}
	if codec != pqio.Zstd {
		cfg.Output.Parquet.Level = 0
	}
	if err := cfg.Validate(); err != nil && len(problems) == 0 {
		bad("%s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if len(problems) > 0 {
		return cfg, usageError{fmt.Errorf("%s", strings.Join(problems, "; "))}
	}
	cfg.Target = dataset.ParseTarget(o.Output)
	if o.SchemaFile != "" {
		data, err := sidefile.ReadFile(o.SchemaFile, sidefile.Schema)
		if err != nil {
			return cfg, usagef("--schema: %v", err)
		}
		if cfg.Schema, err = schema.Parse(data); err != nil {
			return cfg, usagef("--schema %s: %v", o.SchemaFile, err)
		}
	}
	set, err := input.Scan(args, input.ScanOptions{AllowIncomplete: o.AllowIncomplete})
	if err != nil {
		return cfg, usageError{err}
	}
	cfg.Inputs, cfg.InputLinks = set.Files, set.Links
	if err := cfg.Target.Check(set); err != nil {
		return cfg, usageError{err}
	}
	if err := pipeline.CheckInputs(cfg); err != nil {
		return cfg, usageError{err}
	}
	return cfg, nil
}

func runConvert(ctx context.Context, o *ConvertOptions, args, command []string, s Streams) error {
	cfg, err := o.pipelineConfig(args)
	if err != nil {
		return err
	}
	m, err := runWithProgress(ctx, cfg, command, s, o.view(s), "converting")
	if m != nil {
		w := s.Out
		if cfg.Target.Kind == dataset.Stdout {
			w = s.Err // standard output holds the rows
		}
		if perr := o.result(w, newSummary(cfg.Target, m), func(w io.Writer) { printSummary(w, cfg.Target, m) }); err == nil {
			err = perr
		}
	}
	return err
}

func printSummary(w io.Writer, t dataset.Target, m *dataset.Manifest) {
	var bytesIn, bytesOut int64
	for _, in := range m.Inputs {
		bytesIn += in.Bytes
	}
	for _, out := range m.Outputs {
		bytesOut += out.Bytes
	}
	mbps := 0.0
	if m.WallSecs > 0 {
		mbps = float64(bytesIn) / 1e6 / m.WallSecs
	}
	fmt.Fprintf(w, "%d rows in from %d file(s) (%s): %d written, %d quarantined", m.Counts.RowsIn, len(m.Inputs), humanBytes(bytesIn), m.Counts.RowsOut, m.Counts.Quarantined)
	if m.Counts.Removed > 0 {
		fmt.Fprintf(w, ", %d removed", m.Counts.Removed)
	}
	if m.Counts.UTF8Repaired > 0 {
		fmt.Fprintf(w, ", %d with invalid UTF-8 repaired", m.Counts.UTF8Repaired)
	}
	fmt.Fprintf(w, "\n%d file(s), %s, in %.2fs (%.1f MB/s)\n", len(m.Outputs), humanBytes(bytesOut), m.WallSecs, mbps)
	if cfg, ok := m.Options.(pipeline.Config); ok {
		printReading(w, cfg, m)
	}
	if t.Kind != dataset.Stdout {
		fmt.Fprintf(w, "manifest: %s\n", t.SidePath("manifest.json"))
		printVersion(w, m)
	}
	if q := m.Side["quarantine"]; q != "" && m.Counts.Quarantined > 0 {
		fmt.Fprintf(w, "quarantine: %s\n", q)
	}
	for _, e := range m.Errors {
		fmt.Fprintf(w, "input error: %s\n", e)
	}
}

// printReading says what of the input a run read when that is not simply
// every file named: the first rows only (--limit), folders reached through
// links.
func printReading(w io.Writer, cfg pipeline.Config, m *dataset.Manifest) {
	if cfg.Limit > 0 && m.Counts.RowsIn == cfg.Limit {
		fmt.Fprintf(w, "--limit %d: the first %d rows of the input were read, no more\n", cfg.Limit, cfg.Limit)
	}
	if n := len(cfg.InputLinks); n > 0 {
		fmt.Fprintf(w, "%d linked folder(s) followed: %s\n", n, strings.Join(cfg.InputLinks, ", "))
	}
}
