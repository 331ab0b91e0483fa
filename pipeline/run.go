package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
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
	// Started is when the command began, before the passes of its global
	// stages: the manifest's started and wall_seconds count from it, so
	// they hold every pass. The run's own start when zero.
	Started      time.Time      `json:"-"`
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
	// Limit, when above 0, is how many input rows the run reads: the
	// first Limit lines, records or Parquet rows in input order (those
	// quarantined among them), and nothing after them. rows_in counts
	// them; the manifest's options record the limit.
	Limit int64 `json:"limit,omitempty"`
	// InputLinks are the symbolic links to folders that the scan of the
	// input directories followed (input.Set.Links), recorded so that the
	// manifest tells where files under them came from.
	InputLinks []string `json:"input_links,omitempty"`
	// Columns, when set, are the only top-level columns read from Parquet
	// inputs (a scan pass that needs the text and the id reads no more).
	Columns []string `json:"columns,omitempty"`
	// Lineage adds the columns _src_file and _src_row to every row (see
	// SrcFileColumn), unless the input has them already.
	Lineage bool             `json:"lineage,omitempty"`
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
	// Spill, when set, writes the batches the run decodes to files, or
	// reads them from the files an earlier run wrote (see Spill).
	Spill *Spill `json:"-"`
}

// CheckInputs refuses inputs one run cannot read together: Parquet, WARC
// and JSONL files mixed (the order given does not matter), and a stream
// (standard input, a pipe) with a full inference pass or with a stage that
// needs another pass over the input (CheckRereads), which would read it
// twice; the error for a stream wraps input.ErrReadOnce.
func CheckInputs(cfg Config) error {
	for _, f := range cfg.Inputs[1:] {
		if f.Format != cfg.Inputs[0].Format {
			a, b := cfg.Inputs[0], f
			return fmt.Errorf("cannot mix %s and %s inputs in one run (%s is %s, %s is %s); convert them separately",
				a.Format, b.Format, a.Label(), a.Format, b.Label(), b.Format)
		}
	}
	if rows, _ := inferRows(cfg); rows == InferAll && cfg.Schema == nil {
		if err := input.RefuseStreams(cfg.Inputs, "--infer-rows all"); err != nil {
			return fmt.Errorf("%w; or give --infer-rows N", err)
		}
	}
	return CheckRereads(cfg.Inputs, cfg.Stages)
}

// Run reads the inputs, passes every batch through the stages, writes the
// target and its side outputs, and returns the manifest it wrote. A run
// that read only part of some input returns the manifest and an error
// wrapping ErrPartialInput. A failed run leaves the previous output, if
// any, as it was.
//
// A global stage among cfg.Stages (line or near dedup) that no one
// prepared is prepared here first (PrepareGlobals, its passes run without
// progress), so that a run never writes through a global stage that has
// not seen the corpus. Callers that show the passes prepare them before.
func Run(ctx context.Context, cfg Config, command []string, version string) (*dataset.Manifest, error) {
	if hasGlobal(cfg.Stages) {
		if err := cfg.withDefaults().Validate(); err != nil {
			return nil, err
		}
		stages := append([]Stage(nil), cfg.Stages...)
		err := PrepareGlobals(cfg.Inputs, stages, func(sts []Stage, _ string) error {
			pass := PassConfig(cfg, sts)
			pass.Progress = nil
			_, err := Run(ctx, pass, command, version)
			return err
		})
		if err != nil {
			return nil, err
		}
		cfg.Stages = stages
	}
	r, err := open(ctx, cfg, command, version)
	if err != nil {
		return nil, err
	}
	defer r.close()
	if err := r.stream(ctx); err != nil {
		return nil, err
	}
	return r.finish()
}

// runner is one run: its source, its output being written, and what it
// has counted so far.
type runner struct {
	cfg           Config
	start         time.Time
	src           source
	out           *dataset.Output
	w             *dataset.Writer // kept rows
	rw            *dataset.Writer // removed rows, when some stage may remove any
	removedSchema *arrow.Schema
	outSchema     *arrow.Schema // of the kept rows
	q             *dataset.Quarantine
	m             *dataset.Manifest
	stages        []dataset.StageCounts
	quarantinedBy []int64 // per input file
	turns         *turns  // each stage's turnstile (Batch.InOrder)
	spill         *spillWriter
}

// open checks the configuration, claims the output and opens the source
// and the writers; nothing is read past schema inference.
func open(ctx context.Context, cfg Config, command []string, version string) (_ *runner, err error) {
	cfg = cfg.withDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(cfg.Inputs) == 0 {
		return nil, input.ErrNoInput
	}
	if err := CheckInputs(cfg); err != nil {
		return nil, err
	}
	r := &runner{cfg: cfg, start: cfg.Started, quarantinedBy: make([]int64, len(cfg.Inputs))}
	if r.start.IsZero() {
		r.start = time.Now()
	}
	defer func() {
		if err != nil {
			r.close()
		}
	}()
	if r.out, err = dataset.Begin(ctx, cfg.Target, cfg.Overwrite); err != nil {
		return nil, err
	}
	src, err := openSource(ctx, cfg)
	if err != nil {
		return nil, err
	}
	r.src = src
	outSchema := r.src.schema()
	for _, st := range cfg.Stages {
		if outSchema, err = st.OutputSchema(outSchema); err != nil {
			return nil, fmt.Errorf("stage %s: %w", st.Name(), err)
		}
	}
	target := r.out.Target()
	r.outSchema = outSchema
	if r.w, err = dataset.NewWriter(cfg.Mem, target, outSchema, cfg.Output); err != nil {
		return nil, err
	}
	if len(cfg.Stages) > 0 {
		r.removedSchema = removedSchemaFor(r.src.schema(), cfg.Stages)
		if r.rw, err = dataset.NewWriter(cfg.Mem, target.Removed(), r.removedSchema, cfg.Output); err != nil {
			return nil, err
		}
	}
	if r.spill, err = newSpillWriter(cfg, r.removedSchema); err != nil {
		return nil, err
	}
	r.q = dataset.QuarantineFor(target)
	r.m = &dataset.Manifest{
		Tool: "sluice", Version: version, Command: command, Options: cfg,
		Schema: json.RawMessage(r.src.schemaText()), Started: r.start.UTC().Format(time.RFC3339),
	}
	r.stages = make([]dataset.StageCounts, len(cfg.Stages))
	for i, st := range cfg.Stages {
		r.stages[i].Name = st.Name()
		if c, ok := st.(Configurer); ok {
			r.stages[i].Config = c.Config()
		}
	}
	return r, nil
}

// close releases the source and discards whatever was not committed.
func (r *runner) close() {
	if r.spill != nil {
		r.spill.abort() // after commit it does nothing
	}
	if r.src != nil {
		r.src.close()
	}
	if r.out != nil {
		r.out.Abort() // after Commit it does nothing
	}
}

// stream reads every unit, has the workers load and process them, and
// writes their results in input order. A failed batch stops the others: a
// stage may be waiting on an earlier batch's turn (InOrder).
func (r *runner) stream(ctx context.Context) error {
	r.turns = newTurns(len(r.cfg.Stages))
	workCtx, cancelWork := context.WithCancel(ctx)
	defer cancelWork()
	var seq int64
	err := columnar.OrderedMap(ctx, r.cfg.Workers,
		func() (unit, bool, error) {
			u, done, err := r.src.next(ctx)
			u.seq = seq
			seq++
			return u, done, err
		},
		func(wi int, u unit) (*done, error) {
			d, err := r.process(workCtx, wi, u)
			if err != nil {
				cancelWork()
			}
			return d, err
		},
		r.collect,
		nil,
	)
	if err != nil {
		r.w.Abort()
		if r.rw != nil {
			r.rw.Abort()
		}
		r.q.Abort()
	}
	return err
}

// collect writes one processed unit, in input order, and adds up its
// counts.
func (r *runner) collect(d *done) error {
	for _, b := range d.bad {
		r.quarantinedBy[b.Ref.File]++
		if err := r.q.Add(dataset.QuarantineEntry{File: r.cfg.Inputs[b.Ref.File].Label(), Line: b.Ref.Line,
			Offset: b.Ref.Offset, Err: b.Err.Error(), Raw: b.Raw}); err != nil {
			return err
		}
	}
	c := &r.m.Counts
	c.Quarantined += int64(len(d.bad))
	c.RowsIn += d.rowsIn
	c.UTF8Repaired += d.repaired
	c.MissingText += d.missingText
	for i, sc := range d.stages {
		r.stages[i].Add(sc)
		c.Inserted += sc.Inserted
		for _, n := range sc.Removed {
			c.Removed += n
		}
	}
	c.RowsOut += d.piece.Rows
	if r.rw != nil && d.removed.Data != nil {
		if err := r.rw.Write(d.removed); err != nil {
			return err
		}
	}
	return r.w.Write(d.piece)
}

// finish closes the writers, completes the manifest, checks that every
// row is accounted for and commits the output.
func (r *runner) finish() (*dataset.Manifest, error) {
	m := r.m
	var err error
	if m.Outputs, err = r.w.Close(); err != nil {
		return nil, err
	}
	if r.rw != nil {
		if m.Removed, err = r.rw.Close(); err != nil {
			return nil, err
		}
	}
	if err := r.dropEmptyExtra(m); err != nil {
		return nil, err
	}
	qpath, err := r.q.Close()
	if err != nil {
		return nil, err
	}
	if qpath != "" {
		m.Side = map[string]string{"quarantine": qpath}
	}
	for i, st := range r.cfg.Stages {
		if rep, ok := st.(Reporter); ok {
			r.stages[i].Report = rep.Report()
		}
	}
	m.Stages = r.stages
	var partial []string
	for i, st := range r.src.stats() {
		f := r.cfg.Inputs[i]
		in := dataset.InputFile{Path: f.Label(), Format: f.Format.String(),
			Bytes: st.Bytes, Hash: fmt.Sprintf("%016x", st.Hash), Rows: st.Lines,
			Quarantined: r.quarantinedBy[i], BlankLines: st.BlankLines, SkippedRecords: st.Skipped}
		if f.Format == input.JSONL {
			in.Compression = f.Compression.String()
		}
		if st.Err != nil {
			in.Error = st.Err.Error()
			partial = append(partial, st.Err.Error())
		}
		m.Inputs = append(m.Inputs, in)
	}
	m.Errors = partial
	m.WallSecs = time.Since(r.start).Seconds()
	if err := m.Counts.Check(); err != nil {
		return nil, err // nothing is claimed: the new output is discarded
	}
	if r.spill != nil {
		r.spill.commit(r.src, r.cfg.Stages)
	}
	target := r.out.Target()
	if r.cfg.BeforeCommit != nil && target.Kind != dataset.Discard && target.Kind != dataset.Stdout {
		if err := r.cfg.BeforeCommit(target, m); err != nil {
			return nil, err
		}
	}
	if err := r.out.Commit(m); err != nil {
		return nil, err
	}
	if len(partial) > 0 {
		return m, fmt.Errorf("%w: %s", ErrPartialInput, strings.Join(partial, "; "))
	}
	return m, nil
}

// done is what a worker made of one unit.
type done struct {
	loaded
	piece       dataset.Piece
	removed     dataset.Piece
	missingText int64
	stages      []dataset.StageCounts
}

// process loads unit u on worker wi and passes its batch through the
// stages, encoding the kept and the removed rows.
func (r *runner) process(ctx context.Context, wi int, u unit) (*done, error) {
	l, err := r.src.load(ctx, wi, u)
	if err != nil {
		return nil, err
	}
	d := &done{loaded: l}
	rec, origins := l.batch, l.origins
	d.batch = nil
	cfg := r.cfg
	d.stages = make([]dataset.StageCounts, len(cfg.Stages))
	var removed []arrow.RecordBatch
	defer func() {
		for _, b := range removed {
			b.Release()
		}
	}()
	first := 0 // the first stage to run: a spill replayed holds the results of those before
	if l.applied != nil {
		if removed, first, err = r.replayApplied(l.applied, d); err != nil {
			rec.Release()
			return nil, err
		}
	} else {
		d.missingText = missingText(rec, cfg.TextField)
		if r.spill != nil && r.spill.after == 0 {
			r.spill.add(u.seq, l, rec, origins, nil, nil, d.missingText)
		}
	}
	for i := first; i < len(cfg.Stages); i++ {
		st := cfg.Stages[i]
		t0 := time.Now()
		rowsIn := rec.NumRows()
		res, err := st.Process(ctx, cfg.Mem, &Batch{Rec: rec, Seq: u.seq, origins: origins, turn: &r.turns.stages[i]})
		rec.Release()
		if err != nil {
			return nil, fmt.Errorf("stage %s: %w", st.Name(), err)
		}
		sc := dataset.StageCounts{Name: st.Name(), RowsIn: rowsIn, RowsOut: res.Kept.NumRows(), Inserted: int64(res.Inserted)}
		if sc.RowsOut != rowsIn {
			origins = origins.keep(res.Keep)
		}
		if res.Removed != nil {
			if res.Removed.NumRows() > 0 {
				b, err := removedRows(cfg.Mem, st.Name(), res, r.removedSchema)
				if err != nil {
					res.Kept.Release()
					res.Removed.Release()
					return nil, fmt.Errorf("stage %s: %w", st.Name(), err)
				}
				removed = append(removed, b)
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
		if r.spill != nil && l.applied == nil && i+1 == r.spill.after {
			r.spill.add(u.seq, l, rec, origins, d.stages[:i+1], removed, d.missingText)
		}
	}
	d.piece, err = r.w.Encode(cfg.Mem, rec)
	rec.Release()
	if err != nil {
		return nil, err
	}
	if len(removed) > 0 {
		all, err := columnar.Concat(cfg.Mem, r.removedSchema, removed)
		if err != nil {
			return nil, err
		}
		d.removed, err = r.rw.Encode(cfg.Mem, all)
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
