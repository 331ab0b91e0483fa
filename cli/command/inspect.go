package command

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/io/layout"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/kernels/textlen"
	"github.com/sluice-data/sluice/schema"
	"github.com/sluice-data/sluice/stats"
	"github.com/urfave/cli/v2"
)

// inspectBatchRows sizes the batches inspect reads; memory stays bounded by
// one batch whatever the size of the input.
const inspectBatchRows = 65536

// InspectOptions are the flags of `sluice inspect`.
type InspectOptions struct {
	JSON            bool
	TextField       string
	AllowIncomplete bool

	mem memory.Allocator // nil means memory.DefaultAllocator
}

func inspectCommand(s Streams) *cli.Command {
	o := &InspectOptions{}
	return &cli.Command{
		Name:      "inspect",
		Usage:     "show a dataset's schema, rows, sizes, null counts and text lengths",
		ArgsUsage: "PATH",
		Description: "PATH is a Parquet file, a sluice dataset directory (its data/*.parquet files and the counts of\n" +
			"its manifest.json), a JSONL file (.jsonl, .jsonl.gz, .jsonl.zst), or any folder or glob that\n" +
			"convert reads (files in subfolders too, such as lang=en/ and lang=fr/ of a hive-partitioned\n" +
			"folder), all of one format. JSONL is read twice: once to infer its schema, once to count. Text\n" +
			"lengths are in characters (Unicode code points); their percentiles are within 1% of the exact values.",
		Flags: []cli.Flag{
			jsonFlag(&o.JSON),
			&cli.StringFlag{Name: "text-field", Value: "text", Destination: &o.TextField,
				Usage: "the column whose text lengths are reported"},
			&cli.BoolFlag{Name: "allow-incomplete", Destination: &o.AllowIncomplete,
				Usage: "inspect a dataset directory that has part files but no manifest (a run that did not finish)"},
		},
		Action: action(func(c *cli.Context) error {
			return runInspect(c.Context, o, c.Args().Slice(), s)
		}),
	}
}

// inspectReport is what inspect prints; its JSON form is the --json output.
type inspectReport struct {
	Path           string          `json:"path"`
	Format         string          `json:"format"`
	Files          []inspectFile   `json:"files"`
	Rows           int64           `json:"rows"`
	Unreadable     int64           `json:"unreadable"` // JSONL lines that are not a JSON object
	Bytes          int64           `json:"bytes"`
	RowGroups      int             `json:"row_groups"`
	Compression    string          `json:"compression"`
	Columns        []inspectColumn `json:"columns"`
	Text           *textReport     `json:"text"` // null when there is no such string column
	Manifest       string          `json:"manifest,omitempty"`
	ManifestCounts *dataset.Counts `json:"manifest_counts,omitempty"`

	textNote string // why Text is null
}

type inspectFile struct {
	Path      string `json:"path"`
	Bytes     int64  `json:"bytes"`
	Rows      int64  `json:"rows"`
	RowGroups int    `json:"row_groups"`
}

type inspectColumn struct {
	Name  string `json:"name"`
	Type  string `json:"type"`
	Nulls int64  `json:"nulls"`
}

type textReport struct {
	Field      string  `json:"field"`
	CharsTotal int64   `json:"chars_total"`
	Min        int64   `json:"min"`
	Mean       float64 `json:"mean"`
	P50        int64   `json:"p50"`
	P90        int64   `json:"p90"`
	P99        int64   `json:"p99"`
	Max        int64   `json:"max"`

	values int64
}

func runInspect(ctx context.Context, o *InspectOptions, args []string, s Streams) error {
	if len(args) != 1 {
		return usagef("inspect takes one PATH, not %d", len(args))
	}
	if o.TextField == "" {
		return usagef("--text-field must not be empty")
	}
	mem := o.mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	path := args[0]
	files, err := inspectInputs(path, o.AllowIncomplete)
	if err != nil {
		return err
	}
	rep := &inspectReport{Path: path, Format: files[0].Format.String()}
	sc := &columnScan{mem: mem, textField: o.TextField}
	if files[0].Format == input.Parquet {
		err = scanParquet(ctx, mem, files, rep, sc)
	} else {
		err = scanJSONL(ctx, mem, files, rep, sc)
	}
	if err != nil {
		return err
	}
	for _, f := range rep.Files {
		rep.Rows += f.Rows
		rep.Bytes += f.Bytes
		rep.RowGroups += f.RowGroups
	}
	sc.report(rep)
	if err := readManifestCounts(rep); err != nil {
		return err
	}
	if o.JSON {
		enc := json.NewEncoder(s.Out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	printInspect(s.Out, rep)
	return nil
}

var jsonlSuffixes = []string{".jsonl", ".jsonl.gz", ".jsonl.zst", ".ndjson", ".ndjson.gz", ".ndjson.zst",
	".json", ".json.gz", ".json.zst"}

// inspectInputs lists the files behind path: one Parquet or JSONL file,
// or what convert reads of a directory or glob (input.Scan: the data/ of a
// sluice dataset, the files of any folder and its subfolders, such as the
// lang=en/ and lang=fr/ of a hive-partitioned one), all of one format.
//
// A path that names no dataset (missing, a URL, a file of another kind, a
// directory without data files) is a usage error (exit 2); a real file
// that fails to read is a failed job (exit 1).
func inspectInputs(path string, allowIncomplete bool) ([]input.File, error) {
	if err := input.CheckPath(path); err != nil {
		return nil, usageError{err}
	}
	remote := blob.IsURL(path)
	st, err := os.Stat(path)
	if remote {
		st, err = nil, fs.ErrNotExist // input.Scan tells an object from a prefix
	}
	if errors.Is(err, fs.ErrNotExist) && !strings.ContainsAny(path, "*?[") && !remote {
		return nil, usagef("%s: no such file or directory", path)
	}
	if err == nil && !st.IsDir() {
		f, err := input.Stat(path)
		if err != nil {
			return nil, err
		}
		if f.Format != input.Parquet && !slices.ContainsFunc(jsonlSuffixes, func(s string) bool { return strings.HasSuffix(path, s) }) {
			return nil, usagef("%s: not a Parquet or JSONL file (expected .parquet, .jsonl, .jsonl.gz or .jsonl.zst)", path)
		}
		return []input.File{f}, nil
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err == nil && layout.DirKind(path) == layout.Incomplete && !allowIncomplete {
		return nil, usagef("%s: an incomplete sluice dataset (part files but no %s: a run that did not finish?); "+
			"inspect it anyway with --allow-incomplete", path, layout.ManifestName)
	}
	set, err := input.Scan([]string{path}, input.ScanOptions{AllowIncomplete: allowIncomplete})
	if err != nil {
		return nil, usageError{err}
	}
	for _, f := range set.Files {
		switch {
		case f.Format != input.Parquet && f.Format != input.JSONL:
			return nil, usagef("%s: a %s file; inspect reads Parquet and JSONL", f.Path, f.Format)
		case f.Format != set.Files[0].Format:
			return nil, usagef("%s: a %s file among %s files (%s); inspect reads one format at a time", f.Path, f.Format, set.Files[0].Format, set.Files[0].Path)
		}
	}
	return set.Files, nil
}

func scanParquet(ctx context.Context, mem memory.Allocator, files []input.File, rep *inspectReport, sc *columnScan) error {
	codecs := map[string]bool{}
	for _, f := range files {
		r, err := pqio.Open(mem, f.Path, inspectBatchRows)
		if err != nil {
			return err
		}
		info, err := scanParquetFile(ctx, r, f, sc, codecs)
		r.Close()
		if err != nil {
			return err
		}
		rep.Files = append(rep.Files, info)
	}
	names := make([]string, 0, len(codecs))
	for c := range codecs {
		names = append(names, c)
	}
	slices.Sort(names)
	rep.Compression = strings.Join(names, ",")
	return nil
}

func scanParquetFile(ctx context.Context, r *pqio.Reader, f input.File, sc *columnScan, codecs map[string]bool) (inspectFile, error) {
	info := inspectFile{Path: f.Path, Bytes: f.Size}
	s, err := r.Schema()
	if err != nil {
		return info, fmt.Errorf("%s: %w", f.Path, err)
	}
	if err := sc.setSchema(s, f.Path); err != nil {
		return info, err
	}
	md := r.File().MetaData()
	info.RowGroups = md.NumRowGroups()
	for i := range info.RowGroups {
		rg := md.RowGroup(i)
		for j := range rg.NumColumns() {
			if cc, err := rg.ColumnChunk(j); err == nil {
				codecs[strings.ToLower(cc.Compression().String())] = true
			}
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return info, err
		}
		rec, err := r.Next(ctx)
		if err != nil {
			return info, err
		}
		if rec == nil {
			return info, nil
		}
		info.Rows += rec.NumRows()
		sc.add(rec)
		rec.Release()
	}
}

// scanJSONL reads files twice: once to infer one schema from every line,
// once to decode them into batches. Lines that do not decode count as
// unreadable.
func scanJSONL(ctx context.Context, mem memory.Allocator, files []input.File, rep *inspectReport, sc *columnScan) error {
	copts := jsonl.ChunkOptions{Rows: inspectBatchRows}
	inf := jsonl.NewInference(jsonl.DefaultMaxDepth)
	if err := eachChunk(ctx, jsonl.NewChunkReader(files, copts), inf.ObserveChunk); err != nil {
		return err
	}
	dec := jsonl.NewDecoder(mem, jsonl.DecodeOptions{Schema: inf.Type(), WithExtra: inf.Duplicates(), RepairUTF8: true,
		MaxDepth: jsonl.DefaultMaxDepth})
	defer dec.Release()
	if err := sc.setSchema(dec.Schema(), files[0].Path); err != nil {
		return err
	}
	codecs := map[string]bool{}
	for _, f := range files {
		info := inspectFile{Path: f.Path, Bytes: f.Size}
		cr := jsonl.NewChunkReader([]input.File{f}, copts)
		err := eachChunk(ctx, cr, func(c *jsonl.Chunk) {
			d := dec.Decode(c)
			rep.Unreadable += int64(len(d.Bad))
			info.Rows += int64(c.Len() - len(d.Bad))
			sc.add(d.Batch)
			d.Batch.Release()
		})
		if err != nil {
			return err
		}
		if st := cr.Stats()[0]; st.Err != nil {
			return st.Err
		}
		rep.Files = append(rep.Files, info)
		codecs[f.Compression.String()] = true
	}
	rep.Compression = strings.Join(slices.Sorted(maps.Keys(codecs)), ",")
	return nil
}

func eachChunk(ctx context.Context, r *jsonl.ChunkReader, fn func(*jsonl.Chunk)) error {
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := r.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		fn(c)
	}
}

// columnScan accumulates per-column null counts and the text length
// histogram over a stream of batches of one schema.
type columnScan struct {
	mem       memory.Allocator
	textField string
	schema    *arrow.Schema
	first     string // the file the schema came from
	nulls     []int64
	text      int // index of the text column, -1 if none
	hist      stats.Histogram
}

func (c *columnScan) setSchema(s *arrow.Schema, file string) error {
	if c.schema != nil {
		if !s.Equal(c.schema) {
			return fmt.Errorf("%s: schema differs from %s's", file, c.first)
		}
		return nil
	}
	c.schema, c.first = s, file
	c.nulls = make([]int64, s.NumFields())
	c.text = -1
	if idx := s.FieldIndices(c.textField); len(idx) > 0 {
		switch s.Field(idx[0]).Type.ID() {
		case arrow.STRING, arrow.LARGE_STRING:
			c.text = idx[0]
		}
	}
	return nil
}

func (c *columnScan) add(rec arrow.RecordBatch) {
	for i, col := range rec.Columns() {
		c.nulls[i] += int64(col.NullN())
	}
	if c.text < 0 {
		return
	}
	var lens *array.Int64
	switch col := rec.Column(c.text).(type) {
	case *array.String:
		lens = textlen.RuneCounts(c.mem, col)
	case *array.LargeString:
		lens = textlen.LargeRuneCounts(c.mem, col)
	default:
		return
	}
	defer lens.Release()
	vals := lens.Int64Values()
	if lens.NullN() == 0 {
		for _, v := range vals {
			c.hist.Add(v)
		}
		return
	}
	for i, v := range vals {
		if lens.IsValid(i) {
			c.hist.Add(v)
		}
	}
}

func (c *columnScan) report(rep *inspectReport) {
	for i, f := range c.schema.Fields() {
		typ := columnar.TypeName(f.Type)
		if k := f.Metadata.FindKey(schema.EncodingKey); k >= 0 {
			typ += " (" + f.Metadata.Values()[k] + ")"
		}
		rep.Columns = append(rep.Columns, inspectColumn{Name: f.Name, Type: typ, Nulls: c.nulls[i]})
	}
	if c.text < 0 {
		if idx := c.schema.FieldIndices(c.textField); len(idx) > 0 {
			rep.textNote = fmt.Sprintf("column %q is %s, not a string column", c.textField, c.schema.Field(idx[0]).Type)
		} else {
			rep.textNote = fmt.Sprintf("no column %q (choose one with --text-field)", c.textField)
		}
		return
	}
	h := &c.hist
	rep.Text = &textReport{Field: c.textField, CharsTotal: h.Sum(), Min: h.Min(), Mean: h.Mean(),
		P50: h.Quantile(0.5), P90: h.Quantile(0.9), P99: h.Quantile(0.99), Max: h.Max(), values: h.Count()}
}

// readManifestCounts adds the counts of the manifest that sluice wrote with
// the inspected output, if there is one and it is that output's (a
// one-file output's manifest must list the file).
func readManifestCounts(rep *inspectReport) error {
	t := dataset.ParseTarget(rep.Path)
	path := t.SidePath("manifest.json")
	if t.IsRemote() {
		if ok, _ := blob.Exists(context.Background(), path); !ok {
			return nil
		}
	} else if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	m, err := dataset.ReadManifestAt(path)
	if err != nil {
		return nil // not sluice's: no counts to add
	}
	if t.Kind != dataset.Directory && !slices.Contains(m.Files, filepath.Base(t.Path)) && !slices.Contains(m.Files, blob.Base(t.Path)) {
		return nil // the manifest of another output with the same stem
	}
	rep.Manifest, rep.ManifestCounts = path, &m.Counts
	return nil
}

// maxListedFiles bounds the files listed in the table; --json lists all.
const maxListedFiles = 10

func printInspect(w io.Writer, rep *inspectReport) {
	kv := func(k, format string, a ...any) { fmt.Fprintf(w, "%-12s %s\n", k, fmt.Sprintf(format, a...)) }
	kv("path", "%s", rep.Path)
	if len(rep.Files) > 1 {
		kv("format", "%s, %d files", rep.Format, len(rep.Files))
	} else {
		kv("format", "%s", rep.Format)
	}
	kv("rows", "%d", rep.Rows)
	if rep.Format == input.JSONL.String() {
		kv("unreadable", "%d", rep.Unreadable)
	}
	kv("bytes", "%s (%d)", humanBytes(rep.Bytes), rep.Bytes)
	if rep.Format == input.Parquet.String() {
		kv("row groups", "%d", rep.RowGroups)
	}
	kv("compression", "%s", rep.Compression)
	if c := rep.ManifestCounts; c != nil {
		kv("manifest", "%s: %d rows in, %d out, %d removed, %d quarantined", rep.Manifest, c.RowsIn, c.RowsOut, c.Removed, c.Quarantined)
	}

	if len(rep.Files) > 1 {
		fmt.Fprintln(w)
		rows := [][]string{{"file", "bytes", "rows", "row groups"}}
		for i, f := range rep.Files {
			if i == maxListedFiles {
				rows = append(rows, []string{fmt.Sprintf("... %d more", len(rep.Files)-i), "", "", ""})
				break
			}
			rows = append(rows, []string{f.Path, humanBytes(f.Bytes), fmt.Sprint(f.Rows), fmt.Sprint(f.RowGroups)})
		}
		(&table{right: alignRight(1, len(rows[0]))}).print(w, rows)
	}

	fmt.Fprintln(w)
	rows := [][]string{{"column", "type", "nulls", "null %"}}
	for _, c := range rep.Columns {
		share := ""
		if c.Nulls > 0 && rep.Rows > 0 {
			share = fmt.Sprintf("%.1f%%", 100*float64(c.Nulls)/float64(rep.Rows))
		}
		rows = append(rows, []string{c.Name, c.Type, fmt.Sprint(c.Nulls), share})
	}
	(&table{right: alignRight(2, len(rows[0]))}).print(w, rows)

	fmt.Fprintln(w)
	t := rep.Text
	if t == nil {
		fmt.Fprintf(w, "text lengths: %s\n", rep.textNote)
		return
	}
	fmt.Fprintf(w, "text lengths in characters, column %q, %d values\n", t.Field, t.values)
	if t.values == 0 {
		return
	}
	fmt.Fprintf(w, "  total %d   min %d   mean %.1f   p50 %d   p90 %d   p99 %d   max %d\n",
		t.CharsTotal, t.Min, t.Mean, t.P50, t.P90, t.P99, t.Max)
}
