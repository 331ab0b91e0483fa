package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/io/pqio"
	"github.com/sluice-data/sluice/schema"
)

// ErrPartialInput is returned when some input could not be read to its
// end (a truncated or corrupt compressed stream). Everything readable was
// written and the manifest lists the errors.
var ErrPartialInput = errors.New("some input could not be read to its end")

// InferAll asks Config.InferRows for a full first pass over the input.
const InferAll = -1

// Config is the effective configuration of a run. It is recorded in the
// manifest as it is.
type Config struct {
	Inputs       []input.File   `json:"-"`
	Target       dataset.Target `json:"-"`
	Overwrite    bool           `json:"overwrite"`
	Workers      int            `json:"workers"`
	BatchRows    int            `json:"batch_rows"`
	BatchBytes   int            `json:"batch_bytes"`
	InferRows    int            `json:"infer_rows"` // InferAll for a full pass
	Schema       *schema.Type   `json:"-"`          // given schema, or nil to infer
	SchemaFile   string         `json:"schema_file,omitempty"`
	Strict       bool           `json:"strict"`
	RepairUTF8   bool           `json:"repair_utf8"`
	MaxDepth     int            `json:"max_depth"`
	MaxLineBytes int            `json:"max_line_bytes"`
	TextField    string         `json:"text_field"`
	WARCTypes    []string       `json:"warc_types,omitempty"` // WARC record types read as rows
	// Columns, when set, are the only top-level columns read from Parquet
	// inputs (a scan pass that needs the text and the id reads no more).
	Columns []string         `json:"columns,omitempty"`
	Output  dataset.Options  `json:"output"`
	Stages  []Stage          `json:"-"`
	Mem     memory.Allocator `json:"-"`
	// Progress, if set, is called now and then with the input bytes read so
	// far and the total.
	Progress func(done, total int64) `json:"-"`
	// BeforeCommit, if set, is called once every row is written and
	// counted, before the output is moved into place: it may write side
	// files of its own into the staged target (a report, say), which then
	// belong to the output. Runs that write no files do not call it.
	BeforeCommit func(staged dataset.Target, m *dataset.Manifest) error `json:"-"`
}

// CheckInputs refuses inputs one run cannot read together: Parquet, WARC
// and JSONL files mixed (the order given does not matter), and a stream
// (standard input) with a full inference pass, which would read it twice.
func CheckInputs(cfg Config) error {
	for _, f := range cfg.Inputs[1:] {
		if f.Format != cfg.Inputs[0].Format {
			a, b := cfg.Inputs[0], f
			return fmt.Errorf("cannot mix %s and %s inputs in one run (%s is %s, %s is %s); convert them separately",
				a.Format, b.Format, a.Label(), a.Format, b.Label(), b.Format)
		}
	}
	for _, f := range cfg.Inputs {
		if f.IsStream() && cfg.InferRows == InferAll && cfg.Schema == nil {
			return fmt.Errorf("%s: --infer-rows all reads the input twice, which a stream cannot be; give --infer-rows N or a file", f.Label())
		}
	}
	return nil
}

// Run reads the inputs, passes every batch through the stages, writes the
// target and its side outputs, and returns the manifest it wrote. A run
// that read only part of some input returns the manifest and an error
// wrapping ErrPartialInput.
func Run(ctx context.Context, cfg Config, command []string, version string) (*dataset.Manifest, error) {
	start := time.Now()
	if cfg.Mem == nil {
		cfg.Mem = memory.DefaultAllocator
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if len(cfg.Inputs) == 0 {
		return nil, input.ErrNoInput
	}
	if err := CheckInputs(cfg); err != nil {
		return nil, err
	}
	out, err := dataset.Begin(cfg.Target, cfg.Overwrite)
	if err != nil {
		return nil, err
	}
	defer out.Abort() // after Commit it does nothing
	target := out.Target()
	var src source
	switch cfg.Inputs[0].Format {
	case input.Parquet:
		src, err = openParquetSource(cfg)
	case input.WARC:
		src, err = openWARCSource(ctx, cfg)
	default:
		src, err = openJSONLSource(ctx, cfg)
	}
	if err != nil {
		return nil, err
	}
	defer src.close()

	outSchema := src.schema()
	for _, st := range cfg.Stages {
		if outSchema, err = st.OutputSchema(outSchema); err != nil {
			return nil, fmt.Errorf("stage %s: %w", st.Name(), err)
		}
	}
	w, err := dataset.NewWriter(cfg.Mem, target, outSchema, cfg.Output)
	if err != nil {
		return nil, err
	}
	var rw *dataset.Writer // removed rows, when some stage may remove any
	var removedSchema *arrow.Schema
	if len(cfg.Stages) > 0 {
		removedSchema = removedSchemaFor(src.schema(), cfg.Stages)
		if rw, err = dataset.NewWriter(cfg.Mem, target.Removed(), removedSchema, cfg.Output); err != nil {
			return nil, err
		}
	}
	q := dataset.QuarantineFor(target)

	m := &dataset.Manifest{
		Tool: "sluice", Version: version, Command: command, Options: cfg,
		Schema: json.RawMessage(src.schemaText()), Started: start.UTC().Format(time.RFC3339),
	}
	stageCounts := make([]dataset.StageCounts, len(cfg.Stages))
	for i, st := range cfg.Stages {
		stageCounts[i].Name = st.Name()
		if c, ok := st.(Configurer); ok {
			stageCounts[i].Config = c.Config()
		}
	}
	quarantinedBy := make([]int64, len(cfg.Inputs))

	// A failed batch cancels the others: a stage may be waiting on an
	// earlier batch's turn (InOrder).
	workCtx, cancelWork := context.WithCancel(context.WithValue(ctx, turnsKey{}, newTurns(len(cfg.Stages))))
	defer cancelWork()
	var seq int64
	err = columnar.OrderedMap(ctx, cfg.Workers,
		func() (unit, bool, error) {
			u, done, err := src.next()
			u.seq = seq
			seq++
			return u, done, err
		},
		func(wi int, u unit) (*done, error) {
			d, err := process(workCtx, cfg, src, w, rw, removedSchema, wi, u)
			if err != nil {
				cancelWork()
			}
			return d, err
		},
		func(d *done) error {
			for _, b := range d.bad {
				quarantinedBy[b.Ref.File]++
				if err := q.Add(dataset.QuarantineEntry{File: cfg.Inputs[b.Ref.File].Label(), Line: b.Ref.Line,
					Offset: b.Ref.Offset, Err: b.Err.Error(), Raw: b.Raw}); err != nil {
					return err
				}
			}
			m.Counts.Quarantined += int64(len(d.bad))
			m.Counts.RowsIn += d.rowsIn
			m.Counts.UTF8Repaired += d.repaired
			m.Counts.MissingText += d.missingText
			for i, sc := range d.stages {
				stageCounts[i].RowsIn += sc.RowsIn
				stageCounts[i].RowsOut += sc.RowsOut
				stageCounts[i].Seconds += sc.Seconds
				stageCounts[i].Inserted += sc.Inserted
				m.Counts.Inserted += sc.Inserted
				for r, n := range sc.Removed {
					if stageCounts[i].Removed == nil {
						stageCounts[i].Removed = map[string]int64{}
					}
					stageCounts[i].Removed[r] += n
					m.Counts.Removed += n
				}
			}
			m.Counts.RowsOut += d.piece.Rows
			if rw != nil && d.removed.Data != nil {
				if err := rw.Write(d.removed); err != nil {
					return err
				}
			}
			return w.Write(d.piece)
		},
		nil,
	)
	if err != nil {
		w.Abort()
		if rw != nil {
			rw.Abort()
		}
		q.Abort()
		return nil, err
	}
	if m.Outputs, err = w.Close(); err != nil {
		return nil, err
	}
	if rw != nil {
		removedFiles, err := rw.Close()
		if err != nil {
			return nil, err
		}
		m.Removed = removedFiles
	}
	qpath, err := q.Close()
	if err != nil {
		return nil, err
	}
	if qpath != "" {
		m.Side = map[string]string{"quarantine": qpath}
	}
	for i, st := range cfg.Stages {
		if r, ok := st.(Reporter); ok {
			stageCounts[i].Report = r.Report()
		}
	}
	m.Stages = stageCounts
	var partial []string
	for i, st := range src.stats() {
		in := dataset.InputFile{Path: cfg.Inputs[i].Label(), Format: cfg.Inputs[i].Format.String(),
			Bytes: st.Bytes, Hash: fmt.Sprintf("%016x", st.Hash), Rows: st.Lines,
			Quarantined: quarantinedBy[i], BlankLines: st.BlankLines, SkippedRecords: st.Skipped}
		if cfg.Inputs[i].Format == input.JSONL {
			in.Compression = cfg.Inputs[i].Compression.String()
		}
		if st.Err != nil {
			in.Error = st.Err.Error()
			partial = append(partial, st.Err.Error())
		}
		m.Inputs = append(m.Inputs, in)
	}
	m.Errors = partial
	m.WallSecs = time.Since(start).Seconds()
	if err := m.Counts.Check(); err != nil {
		return nil, err // nothing is claimed: the new output is discarded
	}
	if cfg.BeforeCommit != nil && target.Kind != dataset.Discard && target.Kind != dataset.Stdout {
		if err := cfg.BeforeCommit(target, m); err != nil {
			return nil, err
		}
	}
	if err := out.Commit(m); err != nil {
		return nil, err
	}
	if len(partial) > 0 {
		return m, fmt.Errorf("%w: %s", ErrPartialInput, strings.Join(partial, "; "))
	}
	return m, nil
}

// unit is one batch's worth of input: a chunk of lines, or a batch read
// from Parquet.
type unit struct {
	seq     int64 // the batch's place in input order
	chunk   *jsonl.Chunk
	batch   arrow.RecordBatch
	pqFile  int // with pqGroup: a Parquet row group the worker reads itself
	pqGroup int
	origins *origins // where a Parquet unit's rows came from
	// bad are the input records that could not be read (WARC).
	bad []jsonl.BadLine
}

// done is what a worker made of one unit.
type done struct {
	piece       dataset.Piece
	removed     dataset.Piece
	bad         []jsonl.BadLine
	rowsIn      int64
	repaired    int64
	missingText int64
	stages      []dataset.StageCounts
}

func process(ctx context.Context, cfg Config, src source, w, rw *dataset.Writer, removedSchema *arrow.Schema, wi int, u unit) (*done, error) {
	d := &done{}
	rec := u.batch
	if u.chunk == nil && rec == nil {
		var err error
		if rec, err = src.(*parquetSource).load(ctx, wi, u); err != nil {
			return nil, err
		}
	}
	if u.chunk != nil {
		dec := src.decoder(wi)
		r := dec.Decode(u.chunk)
		rec, d.bad, d.repaired = r.Batch, r.Bad, r.Repaired
		d.rowsIn = int64(u.chunk.Len())
		u.origins = jsonlOrigins(cfg.Inputs, u.chunk, d.bad)
		u.chunk.Release()
	} else {
		d.rowsIn = rec.NumRows() + int64(len(u.bad))
		d.bad = u.bad
	}
	d.missingText = missingText(rec, cfg.TextField)
	d.stages = make([]dataset.StageCounts, len(cfg.Stages))
	ctx = context.WithValue(ctx, batchSeqKey{}, u.seq)
	var removed []arrow.RecordBatch
	defer func() {
		for _, r := range removed {
			r.Release()
		}
	}()
	for i, st := range cfg.Stages {
		t0 := time.Now()
		rowsIn := rec.NumRows()
		res, err := st.Process(context.WithValue(context.WithValue(ctx, originsKey{}, u.origins), stageIndexKey{}, i), cfg.Mem, rec)
		rec.Release()
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", st.Name(), err)
		}
		sc := dataset.StageCounts{Name: st.Name(), RowsIn: rowsIn, RowsOut: res.Kept.NumRows(), Inserted: int64(res.Inserted)}
		if sc.RowsOut != rowsIn {
			u.origins = u.origins.keep(res.Keep)
		}
		if res.Removed != nil {
			if res.Removed.NumRows() > 0 {
				r, err := removedRows(cfg.Mem, st.Name(), res, removedSchema)
				if err != nil {
					res.Kept.Release()
					res.Removed.Release()
					return nil, fmt.Errorf("stage %s: %w", st.Name(), err)
				}
				removed = append(removed, r)
				sc.Removed = map[string]int64{}
				for _, reason := range res.Reasons {
					sc.Removed[reason]++
				}
			}
			res.Removed.Release()
		}
		sc.Seconds = time.Since(t0).Seconds()
		d.stages[i] = sc
		rec = res.Kept
	}
	piece, err := w.Encode(cfg.Mem, rec)
	rec.Release()
	if err != nil {
		return nil, err
	}
	d.piece = piece
	if len(removed) > 0 {
		all, err := columnar.Concat(cfg.Mem, removedSchema, removed)
		if err != nil {
			return nil, err
		}
		d.removed, err = rw.Encode(cfg.Mem, all)
		all.Release()
		if err != nil {
			return nil, err
		}
	}
	return d, nil
}

// removedSchemaFor is the schema of removed/: the input columns, then
// _stage and _reason, then the columns stages declare for their removed
// rows.
func removedSchemaFor(in *arrow.Schema, stages []Stage) *arrow.Schema {
	fields := append([]arrow.Field(nil), in.Fields()...)
	fields = append(fields,
		arrow.Field{Name: StageColumn, Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: ReasonColumn, Type: arrow.BinaryTypes.String, Nullable: true})
	seen := map[string]bool{}
	for _, f := range fields {
		seen[f.Name] = true
	}
	for _, st := range stages {
		if rf, ok := st.(RemovedFielder); ok {
			for _, f := range rf.RemovedFields() {
				if !seen[f.Name] {
					seen[f.Name] = true
					fields = append(fields, f)
				}
			}
		}
	}
	md := in.Metadata()
	return arrow.NewSchema(fields, &md)
}

// removedRows adds _stage and _reason to a stage's removed rows and lays
// them out in the removed schema.
func removedRows(mem memory.Allocator, stage string, res Result, s *arrow.Schema) (arrow.RecordBatch, error) {
	n := int(res.Removed.NumRows())
	if len(res.Reasons) != n {
		return nil, fmt.Errorf("%d reasons for %d removed rows", len(res.Reasons), n)
	}
	stageCol := columnar.RepeatString(mem, stage, n)
	defer stageCol.Release()
	reasonCol := columnar.Strings(mem, res.Reasons, false)
	defer reasonCol.Release()
	withCols := columnar.SetColumns(res.Removed, []arrow.Field{
		{Name: StageColumn, Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: ReasonColumn, Type: arrow.BinaryTypes.String, Nullable: true},
	}, []arrow.Array{stageCol, reasonCol})
	defer withCols.Release()
	return columnar.Project(mem, withCols, s)
}

func missingText(rec arrow.RecordBatch, field string) int64 {
	idx := rec.Schema().FieldIndices(field)
	if len(idx) == 0 {
		return rec.NumRows()
	}
	return int64(rec.Column(idx[0]).NullN())
}

// source produces the units of a run.
type source interface {
	schema() *arrow.Schema
	schemaText() string
	next() (unit, bool, error)
	decoder(worker int) *jsonl.Decoder
	stats() []jsonl.FileStat
	close()
}

// jsonlSource reads JSONL inputs as chunks, replaying the chunks that
// schema inference read first.
type jsonlSource struct {
	cfg      Config
	typ      *schema.Type
	s        *arrow.Schema
	opts     jsonl.DecodeOptions
	reader   *jsonl.ChunkReader
	buffered []*jsonl.Chunk
	decs     []*jsonl.Decoder
}

func openJSONLSource(ctx context.Context, cfg Config) (*jsonlSource, error) {
	copts := jsonl.ChunkOptions{Rows: cfg.BatchRows, Bytes: cfg.BatchBytes, MaxLineBytes: cfg.MaxLineBytes}
	src := &jsonlSource{cfg: cfg, reader: jsonl.NewChunkReader(cfg.Inputs, copts)}
	typ, withExtra := cfg.Schema, !cfg.Strict
	if typ == nil {
		var inf *jsonl.Inference
		var err error
		complete := true
		if cfg.InferRows == InferAll {
			inf, err = inferAll(ctx, cfg, copts)
		} else {
			inf, src.buffered, complete, err = inferPrefix(src.reader, cfg)
		}
		if err != nil {
			return nil, err
		}
		typ = schema.Finalize(inf.Type())
		// A schema inferred from every row has a column for every member,
		// except the second of two members with the same name.
		withExtra = withExtra && (!complete || inf.Duplicates())
	}
	typ = schema.Finalize(typ)
	if len(typ.Fields) == 0 && !withExtra {
		// Nothing to learn a schema from (empty input): keep the text column.
		typ = &schema.Type{Kind: schema.Struct, Fields: []schema.Field{{Name: cfg.TextField, Type: schema.Scalar(schema.String)}}}
	}
	src.typ = typ
	src.opts = jsonl.DecodeOptions{Schema: typ, WithExtra: withExtra, Strict: cfg.Strict,
		RepairUTF8: cfg.RepairUTF8, MaxDepth: cfg.MaxDepth, TextField: cfg.TextField}
	src.s = typ.ArrowSchema(withExtra && !cfg.Strict)
	src.decs = make([]*jsonl.Decoder, cfg.Workers)
	for i := range src.decs {
		src.decs[i] = jsonl.NewDecoder(cfg.Mem, src.opts)
	}
	if cfg.Progress != nil {
		var total int64
		for _, f := range cfg.Inputs {
			total += f.Size
		}
		src.reader.Progress = func(done int64) { cfg.Progress(done, total) }
	}
	return src, nil
}

// inferPrefix reads chunks until it has seen cfg.InferRows lines and
// infers the schema from them. complete reports that the chunks hold the
// whole input.
func inferPrefix(r *jsonl.ChunkReader, cfg Config) (*jsonl.Inference, []*jsonl.Chunk, bool, error) {
	inf := jsonl.NewInference(cfg.MaxDepth)
	var chunks []*jsonl.Chunk
	seen := 0
	for seen < cfg.InferRows {
		c, err := r.Next()
		if err == io.EOF {
			return inf, chunks, true, nil
		}
		if err != nil {
			return nil, nil, false, err
		}
		chunks = append(chunks, c)
		n := min(c.Len(), cfg.InferRows-seen)
		inf.ObserveLines(c, n)
		seen += n
	}
	return inf, chunks, false, nil
}

// inferAll reads every input once to infer the schema.
func inferAll(ctx context.Context, cfg Config, copts jsonl.ChunkOptions) (*jsonl.Inference, error) {
	r := jsonl.NewChunkReader(cfg.Inputs, copts)
	inf := jsonl.NewInference(cfg.MaxDepth)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		c, err := r.Next()
		if err == io.EOF {
			return inf, nil
		}
		if err != nil {
			return nil, err
		}
		inf.ObserveChunk(c)
	}
}

func (s *jsonlSource) schema() *arrow.Schema        { return s.s }
func (s *jsonlSource) schemaText() string           { return s.typ.String() }
func (s *jsonlSource) decoder(w int) *jsonl.Decoder { return s.decs[w] }
func (s *jsonlSource) stats() []jsonl.FileStat      { return s.reader.Stats() }
func (s *jsonlSource) close() {
	for _, d := range s.decs {
		d.Release()
	}
}

func (s *jsonlSource) next() (unit, bool, error) {
	if len(s.buffered) > 0 {
		c := s.buffered[0]
		s.buffered[0] = nil
		s.buffered = s.buffered[1:]
		return unit{chunk: c, pqFile: -1}, false, nil
	}
	c, err := s.reader.Next()
	if err == io.EOF {
		return unit{}, true, nil
	}
	if err != nil {
		return unit{}, false, err
	}
	return unit{chunk: c, pqFile: -1}, false, nil
}

// parquetSource reads Parquet inputs. A file whose row groups are no
// larger than two batches is read a row group per unit by the workers
// themselves, in parallel; a file with larger row groups is streamed batch
// by batch on the reading goroutine, so memory stays bounded by the batch
// size.
type parquetSource struct {
	cfg     Config
	s       *arrow.Schema
	typ     string
	fi      int
	rg      int       // next row group of file fi, in row-group mode
	groups  [][]int64 // rows per row group of each file; nil for files streamed by batch
	slices  [][2]int  // the row groups [lo, hi) read of each file
	base    []int64   // rows of each file before its slice, so that row numbers count from the file's start
	cur     *pqio.Reader
	st      []jsonl.FileStat
	readers []workerReader
}

// workerReader is the file a worker has open for row-group units.
type workerReader struct {
	file int
	r    *pqio.Reader
}

func openParquetSource(cfg Config) (*parquetSource, error) {
	src := &parquetSource{cfg: cfg, st: make([]jsonl.FileStat, len(cfg.Inputs)),
		groups: make([][]int64, len(cfg.Inputs)), slices: make([][2]int, len(cfg.Inputs)), base: make([]int64, len(cfg.Inputs)),
		readers: make([]workerReader, cfg.Workers)}
	for i, f := range cfg.Inputs {
		if f.Format != input.Parquet {
			return nil, fmt.Errorf("%s: cannot mix JSONL and Parquet inputs in one run", f.Path)
		}
		r, err := openParquet(cfg, f.Path)
		if err != nil {
			return nil, err
		}
		s, err := r.Schema()
		rows := r.RowGroupRows()
		r.Close()
		src.slices[i] = [2]int{0, len(rows)}
		if f.RowGroups != ([2]int{}) {
			if f.RowGroups[0] < 0 || f.RowGroups[0] > f.RowGroups[1] || f.RowGroups[1] > len(rows) {
				return nil, fmt.Errorf("%s: row groups %d to %d asked of a file of %d", f.Path, f.RowGroups[0], f.RowGroups[1], len(rows))
			}
			src.slices[i] = f.RowGroups
		}
		for _, n := range rows[:src.slices[i][0]] {
			src.base[i] += n
		}
		small := true
		for _, n := range rows {
			small = small && n <= 2*int64(cfg.BatchRows)
		}
		if small {
			src.groups[i] = rows
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
		if i == 0 {
			src.s = s
		} else if !s.Equal(src.s) {
			return nil, fmt.Errorf("%s: schema differs from %s's:\n%s\nvs\n%s", f.Path, cfg.Inputs[0].Path, s, src.s)
		}
		src.st[i].File = f
	}
	if t, _, err := schema.FromArrowSchema(src.s); err == nil {
		src.typ = t.String()
	} else {
		src.typ = strconv.Quote(src.s.String())
	}
	return src, nil
}

// openParquet opens a Parquet input, projected to cfg.Columns when set.
func openParquet(cfg Config, path string) (*pqio.Reader, error) {
	r, err := pqio.Open(cfg.Mem, path, cfg.BatchRows)
	if err != nil || cfg.Columns == nil {
		return r, err
	}
	if err := r.Project(cfg.Columns); err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

func (s *parquetSource) schema() *arrow.Schema      { return s.s }
func (s *parquetSource) schemaText() string         { return s.typ }
func (s *parquetSource) decoder(int) *jsonl.Decoder { return nil }
func (s *parquetSource) stats() []jsonl.FileStat    { return s.st }

func (s *parquetSource) next() (unit, bool, error) {
	for s.fi < len(s.cfg.Inputs) {
		f := s.cfg.Inputs[s.fi]
		first := s.base[s.fi] + s.st[s.fi].Lines // the next row's number in the file, from 0
		if rows := s.groups[s.fi]; rows != nil {
			if g := s.slices[s.fi][0] + s.rg; g < s.slices[s.fi][1] {
				u := unit{pqFile: s.fi, pqGroup: g, origins: parquetOrigins(s.cfg.Inputs, s.fi, first, rows[g])}
				s.st[s.fi].Lines += rows[g]
				s.rg++
				return u, false, nil
			}
			s.rg = 0
		} else if s.cur == nil {
			r, err := openParquet(s.cfg, f.Path)
			if err != nil {
				return unit{}, false, err
			}
			r.Slice(s.slices[s.fi][0], s.slices[s.fi][1])
			s.cur = r
		}
		if s.cur != nil {
			rec, err := s.cur.Next(context.Background())
			if err != nil {
				return unit{}, false, err
			}
			if rec != nil {
				u := unit{batch: rec, pqFile: -1, origins: parquetOrigins(s.cfg.Inputs, s.fi, first, rec.NumRows())}
				s.st[s.fi].Lines += rec.NumRows()
				return u, false, nil
			}
			s.cur.Close()
			s.cur = nil
		}
		h, err := input.HashFile(f.Path)
		if err != nil {
			return unit{}, false, err
		}
		s.st[s.fi].Bytes, s.st[s.fi].Hash = f.Size, h
		if f.RowGroups != ([2]int{}) {
			// A slice's Size weighs its share; the manifest tells the file.
			st, err := os.Stat(f.Path)
			if err != nil {
				return unit{}, false, err
			}
			s.st[s.fi].Bytes = st.Size()
		}
		s.fi++
		if s.cfg.Progress != nil {
			var done, total int64
			for i, in := range s.cfg.Inputs {
				total += in.Size
				if i < s.fi {
					done += in.Size
				}
			}
			s.cfg.Progress(done, total)
		}
	}
	return unit{}, true, nil
}

// load reads a row-group unit on worker w, keeping the worker's file open
// for its next unit.
func (s *parquetSource) load(ctx context.Context, w int, u unit) (arrow.RecordBatch, error) {
	wr := &s.readers[w]
	if wr.r == nil || wr.file != u.pqFile {
		if wr.r != nil {
			wr.r.Close()
		}
		r, err := openParquet(s.cfg, s.cfg.Inputs[u.pqFile].Path)
		if err != nil {
			wr.r = nil
			return nil, err
		}
		*wr = workerReader{file: u.pqFile, r: r}
	}
	return wr.r.ReadRowGroup(ctx, u.pqGroup)
}

func (s *parquetSource) close() {
	if s.cur != nil {
		s.cur.Close()
	}
	for _, wr := range s.readers {
		if wr.r != nil {
			wr.r.Close()
		}
	}
}
