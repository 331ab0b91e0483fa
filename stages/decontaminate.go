package stages

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/contam"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/pipeline"
)

// DecontamParams are the parameters of the decontaminate stage.
type DecontamParams struct {
	contam.Params `yaml:",inline"`
	Eval          []string `yaml:"eval" json:"eval" limit:"[0,100000]"`              // evaluation files, globs or directories
	EvalFields    []string `yaml:"eval_fields" json:"eval_fields" limit:"[0,10000]"` // fields forming an example's text; empty: all but the id
	EvalIDField   string   `yaml:"eval_id_field" json:"eval_id_field"`               // the member naming an example
	IDField       string   `yaml:"id_field" json:"id_field"`                         // the corpus id column, for the report
	// SourceField is the corpus column (a dotted path for struct members)
	// whose values the report counts contaminated rows by; empty: by input
	// file.
	SourceField string `yaml:"source_field" json:"source_field"`
}

// DefaultDecontamParams are the defaults of the stage and the command.
func DefaultDecontamParams() DecontamParams {
	return DecontamParams{Params: contam.DefaultParams(), EvalIDField: "id", IDField: "id"}
}

// The columns the decontaminate stage adds or gives removed rows.
const (
	ContamHitsColumn    = "contam_hits"
	ContamEvalIDsColumn = "contam_eval_ids"
	EvalIDsColumn       = "_eval_ids"
)

var (
	contamFields = []arrow.Field{
		{Name: ContamHitsColumn, Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: ContamEvalIDsColumn, Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}
	evalIDsField = arrow.Field{Name: EvalIDsColumn, Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true}
)

// Decontaminate removes the rows that contain evaluation examples (word
// n-gram overlap in the matching normal form, see package contam) to
// removed/ with _reason contaminated and _eval_ids, the "set:id" names of
// the examples found; with Annotate it keeps every row and adds
// contam_hits (distinct evaluation n-grams in the row) and contam_eval_ids
// instead. Either way it tallies, per evaluation set and per source, what
// it found (Report). Rows without text are kept.
type Decontaminate struct {
	textField string
	p         DecontamParams
	index     *contam.Index
	tally     *contam.Tally
	annotate  bool
	// sourceIfPresent: a missing source column means a breakdown by input
	// file rather than an error (the default source field).
	sourceIfPresent bool
	matchers        sync.Pool
}

// NewDecontaminate reads the evaluation files and indexes their n-grams.
// Errors name the evaluation file and line.
func NewDecontaminate(textField string, p DecontamParams, annotate bool) (*Decontaminate, error) {
	if err := p.Params.Validate(); err != nil {
		return nil, err
	}
	if len(p.Eval) == 0 {
		return nil, fmt.Errorf("no evaluation files (eval)")
	}
	files, err := input.Expand(p.Eval)
	if err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	sets, examples, err := contam.ReadEvals(files, contam.EvalOptions{Fields: p.EvalFields, IDField: p.EvalIDField})
	if err != nil {
		return nil, err
	}
	index, err := contam.NewIndex(p.Params, sets, examples)
	if err != nil {
		return nil, err
	}
	return NewDecontaminateIndex(textField, p, index, annotate), nil
}

// NewDecontaminateIndex returns the stage over an index already built.
func NewDecontaminateIndex(textField string, p DecontamParams, index *contam.Index, annotate bool) *Decontaminate {
	return &Decontaminate{textField: textField, p: p, index: index, tally: contam.NewTally(index), annotate: annotate}
}

// SourceIfPresent makes a missing source column mean a breakdown by input
// file instead of an error.
func (d *Decontaminate) SourceIfPresent() { d.sourceIfPresent = true }

// Index returns the evaluation index.
func (d *Decontaminate) Index() *contam.Index { return d.index }

// Contamination returns what the rows processed so far hold: the full
// report, with every example found, for contamination.json.
func (d *Decontaminate) Contamination() contam.Report {
	r := d.tally.Report()
	r.EvalFields = d.p.EvalFields
	return r
}

// Reset forgets the rows counted so far (pipeline.Resetter).
func (d *Decontaminate) Reset() { d.tally = contam.NewTally(d.index) }

// Report is Contamination, for the manifest: the counts per evaluation set
// and per source, and the examples found.
func (d *Decontaminate) Report() any { return d.Contamination() }

// MergeReports merges the reports of a launched run's shards, which scanned
// consecutive parts of the input (pipeline.ReportMerger).
func (d *Decontaminate) MergeReports(shards []json.RawMessage) (any, error) {
	parts := make([]contam.Report, len(shards))
	for i, raw := range shards {
		if err := json.Unmarshal(raw, &parts[i]); err != nil {
			return nil, fmt.Errorf("contamination report of shard %d: %w", i, err)
		}
	}
	return contam.Merge(parts)
}

func (d *Decontaminate) Name() string { return "decontaminate" }

func (d *Decontaminate) Config() any {
	sets := make([]string, len(d.index.Sets))
	for i, s := range d.index.Sets {
		sets[i] = s.Path
	}
	return map[string]any{"params": d.p, "eval_files": sets, "examples": d.index.Examples(),
		"distinct_ngrams": d.index.Distinct, "ignored_ngrams": d.index.Ignored, "annotate": d.annotate}
}

func (d *Decontaminate) RemovedFields() []arrow.Field {
	if d.annotate {
		return nil
	}
	return []arrow.Field{evalIDsField}
}

func (d *Decontaminate) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	if err := checkTextField(in, d.textField); err != nil {
		return nil, err
	}
	if d.p.SourceField != "" && !d.sourceIfPresent {
		if _, err := columnar.MemberField(in, d.p.SourceField); err != nil {
			return nil, fmt.Errorf("source field: %w", err)
		}
	}
	if d.annotate {
		return columnar.SetSchemaFields(in, contamFields), nil
	}
	return in, nil
}

// hasSource reports whether batches of schema s have the source field.
func (d *Decontaminate) hasSource(s *arrow.Schema) bool {
	if d.p.SourceField == "" {
		return false
	}
	_, err := columnar.MemberField(s, d.p.SourceField)
	return err == nil
}

func (d *Decontaminate) Process(ctx context.Context, mem memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, _, err := textColumn(rec, d.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	var sources []string
	if d.hasSource(rec.Schema()) {
		col, err := columnar.Member(rec, d.p.SourceField)
		if err != nil {
			return pipeline.Result{}, err
		}
		sources = stringValues(col)
	}
	ids := idColumn(rec, d.p.IDField)
	m, _ := d.matchers.Get().(*contam.Matcher)
	if m == nil {
		m = contam.NewMatcher(d.index)
	}
	defer d.matchers.Put(m)

	n := text.Len()
	hits := make([]int64, n)
	found := make([][]int, n)
	var tally contam.Batch
	var buf []int
	for i := 0; i < n; i++ {
		var source string
		if sources != nil {
			source = sources[i]
		} else { // no source column (OutputSchema let that pass): by input file
			source = batch.File(i)
		}
		if text.IsNull(i) {
			tally.Row(position(batch, i), "", source, nil)
			continue
		}
		var h int
		start := len(buf)
		h, buf = m.Match(valueBytes(text, i), buf)
		hits[i], found[i] = int64(h), buf[start:len(buf):len(buf)]
		id := ""
		if len(found[i]) > 0 {
			id = rowID(batch, ids, i)
		}
		tally.Row(position(batch, i), id, source, found[i])
	}
	d.tally.Add(&tally)

	names := func(exs []int, b *array.ListBuilder) {
		b.Append(true)
		vb := b.ValueBuilder().(*array.StringBuilder)
		for _, e := range exs {
			vb.Append(d.index.ExampleKey(e))
		}
	}
	if d.annotate {
		hb := array.NewInt64Builder(mem)
		defer hb.Release()
		lb := array.NewListBuilder(mem, arrow.BinaryTypes.String)
		defer lb.Release()
		for i := 0; i < n; i++ {
			if text.IsNull(i) {
				hb.AppendNull()
				lb.AppendNull()
				continue
			}
			hb.Append(hits[i])
			names(found[i], lb)
		}
		h, l := hb.NewInt64Array(), lb.NewListArray()
		defer h.Release()
		defer l.Release()
		return pipeline.Result{Kept: columnar.SetColumns(rec, contamFields, []arrow.Array{h, l})}, nil
	}
	keep := make([]bool, n)
	lb := array.NewListBuilder(mem, arrow.BinaryTypes.String)
	defer lb.Release()
	var reasons []string
	for i := range keep {
		keep[i] = len(found[i]) == 0
		if !keep[i] {
			names(found[i], lb)
			reasons = append(reasons, "contaminated")
		}
	}
	kept, removed, err := columnar.Split(ctx, mem, rec, keep)
	if err != nil {
		return pipeline.Result{}, err
	}
	if len(reasons) > 0 {
		col := lb.NewListArray()
		defer col.Release()
		with := columnar.SetColumns(removed, []arrow.Field{evalIDsField}, []arrow.Array{col})
		removed.Release()
		removed = with
	}
	return pipeline.Result{Kept: kept, Removed: removed, Reasons: reasons, Keep: keep}, nil
}
