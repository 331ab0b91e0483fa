package stages

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/memorize"
	"github.com/sluice-data/sluice/pipeline"
)

// DupCountColumn is the column of MinHash dedup annotations that gives a
// document's number of near-duplicate copies.
const DupCountColumn = "minhash_cluster_size"

// ProbeSample offers every row with text to a memorization probe sampler
// and passes the batch on unchanged. Rows are named by IDField, or
// file:line; the source is SourceField's value and the duplicate count
// that of minhash_cluster_size (a row in no cluster has one copy) when the
// columns exist.
type ProbeSample struct {
	textField, idField, sourceField string
	sampler                         *memorize.Sampler
	sawDup                          atomic.Bool // some batch had duplicate counts
}

// NewProbeSample returns the sampling stage.
func NewProbeSample(textField, idField, sourceField string, s *memorize.Sampler) *ProbeSample {
	return &ProbeSample{textField: textField, idField: idField, sourceField: sourceField, sampler: s}
}

// HasDupCounts reports whether the input has duplicate counts (known once
// OutputSchema ran).
func (p *ProbeSample) HasDupCounts() bool { return p.sawDup.Load() }

// hasSource reports whether batches of schema s have the source field.
func (p *ProbeSample) hasSource(s *arrow.Schema) bool {
	if p.sourceField == "" {
		return false
	}
	_, err := columnar.MemberField(s, p.sourceField)
	return err == nil
}

// dupCountColumn returns the index of the int64 duplicate-count column of
// schema s, or -1.
func dupCountColumn(s *arrow.Schema) int {
	idx := s.FieldIndices(DupCountColumn)
	if len(idx) == 0 || s.Field(idx[0]).Type.ID() != arrow.INT64 {
		return -1
	}
	return idx[0]
}

func (p *ProbeSample) Name() string { return "memorize_probes" }
func (p *ProbeSample) Config() any  { return p.sampler.Params() }

func (p *ProbeSample) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	if err := checkTextField(in, p.textField); err != nil {
		return nil, err
	}
	if p.sampler.Params().StratifyBy == "source" && !p.hasSource(in) {
		_, err := columnar.MemberField(in, p.sourceField)
		return nil, fmt.Errorf("cannot stratify by source: %w", err)
	}
	if p.sampler.Params().StratifyBy == "dup_count" && dupCountColumn(in) < 0 {
		return nil, fmt.Errorf("cannot stratify by dup_count: no int64 column %s (run `sluice dedup minhash --annotate` first)", DupCountColumn)
	}
	return in, nil
}

func (p *ProbeSample) Process(ctx context.Context, _ memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, _, err := textColumn(rec, p.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	var sources []string
	if p.hasSource(rec.Schema()) {
		col, err := columnar.Member(rec, p.sourceField)
		if err != nil {
			return pipeline.Result{}, err
		}
		sources = stringValues(col)
	}
	var dups *array.Int64
	if i := dupCountColumn(rec.Schema()); i >= 0 {
		dups, _ = rec.Column(i).(*array.Int64)
		p.sawDup.Store(true)
	}
	ids := idColumn(rec, p.idField)
	for i := 0; i < text.Len(); i++ {
		if text.IsNull(i) {
			continue
		}
		d := memorize.Doc{ID: rowID(batch, ids, i), Pos: position(batch, i), Text: valueBytes(text, i)}
		if sources != nil {
			d.Source = sources[i]
		}
		if dups != nil {
			d.DupCount = 1
			if dups.IsValid(i) {
				d.DupCount = dups.Value(i)
			}
		}
		p.sampler.Offer(d)
	}
	rec.Retain()
	return pipeline.Result{Kept: rec}, nil
}

// TextRowCount counts the rows with text of every batch, by batch
// sequence, so that a later pass can number them in input order.
type TextRowCount struct {
	textField string
	mu        sync.Mutex
	perBatch  map[int64]int64
}

// NewTextRowCount returns the counting stage.
func NewTextRowCount(textField string) *TextRowCount {
	return &TextRowCount{textField: textField, perBatch: map[int64]int64{}}
}

func (c *TextRowCount) Name() string { return "count_text_rows" }

// Prepass marks the count as a pass before the one that inserts: a stream
// input, which the second pass would find empty, is refused.
func (c *TextRowCount) Prepass() {}
func (c *TextRowCount) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return in, checkTextField(in, c.textField)
}

func (c *TextRowCount) Process(ctx context.Context, _ memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, _, err := textColumn(rec, c.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	c.mu.Lock()
	c.perBatch[batch.Seq] = int64(text.Len() - text.NullN())
	c.mu.Unlock()
	rec.Retain()
	return pipeline.Result{Kept: rec}, nil
}

// Total returns the rows with text counted.
func (c *TextRowCount) Total() int64 {
	var n int64
	for _, v := range c.perBatch {
		n += v
	}
	return n
}

// firstRows returns, per batch sequence, the number of rows with text in
// the batches before it.
func (c *TextRowCount) firstRows() map[int64]int64 {
	seqs := make([]int64, 0, len(c.perBatch))
	for s := range c.perBatch {
		seqs = append(seqs, s)
	}
	sort.Slice(seqs, func(i, j int) bool { return seqs[i] < seqs[j] })
	out := make(map[int64]int64, len(seqs))
	var sum int64
	for _, s := range seqs {
		out[s] = sum
		sum += c.perBatch[s]
	}
	return out
}

// CanarySplice inserts planned canary copies into the texts of their rows
// (as paragraphs of their own), or, with AsRows, as new rows right after
// them (the canary's text, an id "<canary>.<copy>", every other column
// null), and records where each copy went. Rows are numbered among the
// rows with text, in input order, as TextRowCount counted them in an
// earlier pass over the same input.
type CanarySplice struct {
	textField, idField string
	canaries           []memorize.Canary
	plan               map[int64][]memorize.Copy
	first              map[int64]int64
	mu                 sync.Mutex
	AsRows             bool
	copies             map[int]int // with AsRows: copies of each canary made so far, by input order
}

// NewCanarySplice returns the splicing stage for a plan over the rows
// counted.
func NewCanarySplice(textField, idField string, canaries []memorize.Canary, plan map[int64][]memorize.Copy, counted *TextRowCount) *CanarySplice {
	return &CanarySplice{textField: textField, idField: idField, canaries: canaries, plan: plan, first: counted.firstRows()}
}

func (c *CanarySplice) Name() string { return "memorize_canaries" }
func (c *CanarySplice) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return in, checkTextField(in, c.textField)
}

// Canaries returns the canaries with their insertions, in row order.
func (c *CanarySplice) Canaries() []memorize.Canary {
	c.mu.Lock()
	defer c.mu.Unlock()
	memorize.SortInsertions(c.canaries)
	return c.canaries
}

func (c *CanarySplice) Process(ctx context.Context, mem memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, col, err := textColumn(rec, c.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	first, ok := c.first[batch.Seq]
	if !ok {
		return pipeline.Result{}, fmt.Errorf("batch %d was not counted in the first pass (the input changed?)", batch.Seq)
	}
	if c.AsRows {
		return c.insertRows(ctx, mem, batch, text, col, first)
	}
	ids := idColumn(rec, c.idField)
	b := array.NewStringBuilder(mem)
	defer b.Release()
	row := first
	var inserted []struct {
		canary int
		ins    memorize.Insertion
	}
	for i := 0; i < text.Len(); i++ {
		if text.IsNull(i) {
			b.AppendNull()
			continue
		}
		copies := c.plan[row]
		if len(copies) == 0 {
			b.BinaryBuilder.Append(valueBytes(text, i))
		} else {
			b.BinaryBuilder.Append(memorize.Splice(valueBytes(text, i), copies, c.canaries))
			id := rowID(batch, ids, i)
			for _, cp := range copies {
				inserted = append(inserted, struct {
					canary int
					ins    memorize.Insertion
				}{cp.Canary, memorize.Insertion{Row: row, ID: id}})
			}
		}
		row++
	}
	out := b.NewStringArray()
	defer out.Release()
	c.mu.Lock()
	for _, in := range inserted {
		c.canaries[in.canary].Inserted = append(c.canaries[in.canary].Inserted, in.ins)
	}
	c.mu.Unlock()
	f := rec.Schema().Field(col)
	return pipeline.Result{Kept: columnar.SetColumns(rec, []arrow.Field{f}, []arrow.Array{out})}, nil
}

// insertRows adds a row of its own after each planned row for each copy
// planned there. Copies are numbered per canary in input order, which
// needs the batches in order (pipeline.Batch.InOrder).
func (c *CanarySplice) insertRows(ctx context.Context, mem memory.Allocator, batch *pipeline.Batch, text *array.String, col int, first int64) (pipeline.Result, error) {
	rec := batch.Rec
	idCol := -1
	if idx := rec.Schema().FieldIndices(c.idField); len(idx) > 0 {
		if _, ok := rec.Column(idx[0]).(*array.String); ok {
			idCol = idx[0]
		}
	}
	for j, f := range rec.Schema().Fields() {
		if j != col && j != idCol && !f.Nullable {
			return pipeline.Result{}, fmt.Errorf("column %q cannot be null, so canaries cannot be rows of their own; splice them into texts instead", f.Name)
		}
	}
	type insert struct {
		after  int   // the input row it follows
		row    int64 // that row's place among the rows with text
		canary int
	}
	var planned []insert
	row := first
	for i := 0; i < text.Len(); i++ {
		if text.IsNull(i) {
			continue
		}
		for _, cp := range c.plan[row] {
			planned = append(planned, insert{after: i, row: row, canary: cp.Canary})
		}
		row++
	}
	var recorded []struct {
		canary int
		ins    memorize.Insertion
	}
	b := array.NewRecordBuilder(mem, rec.Schema())
	defer b.Release()
	err := batch.InOrder(ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.copies == nil {
			c.copies = map[int]int{}
		}
		ids := idColumn(rec, c.idField)
		for _, p := range planned {
			cn := c.canaries[p.canary]
			c.copies[p.canary]++
			id := fmt.Sprintf("%s.%d", cn.ID, c.copies[p.canary])
			for j := range rec.Schema().Fields() {
				switch j {
				case col:
					b.Field(j).(*array.StringBuilder).Append(cn.Text)
				case idCol:
					b.Field(j).(*array.StringBuilder).Append(id)
				default:
					b.Field(j).AppendNull()
				}
			}
			recorded = append(recorded, struct {
				canary int
				ins    memorize.Insertion
			}{p.canary, memorize.Insertion{Row: p.row, ID: id, After: rowID(batch, ids, p.after)}})
		}
	})
	if err != nil {
		return pipeline.Result{}, err
	}
	inserts := b.NewRecordBatch()
	defer inserts.Release()
	// The input rows up to and including each planned row, then its new
	// rows, and the rest.
	var parts []arrow.RecordBatch
	defer func() {
		for _, p := range parts {
			p.Release()
		}
	}()
	from, k := 0, 0
	for k < len(planned) {
		after := planned[k].after
		n := 1
		for k+n < len(planned) && planned[k+n].after == after {
			n++
		}
		parts = append(parts, rec.NewSlice(int64(from), int64(after+1)), inserts.NewSlice(int64(k), int64(k+n)))
		from, k = after+1, k+n
	}
	parts = append(parts, rec.NewSlice(int64(from), rec.NumRows()))
	out, err := columnar.Concat(mem, rec.Schema(), parts)
	if err != nil {
		return pipeline.Result{}, err
	}
	c.mu.Lock()
	for _, r := range recorded {
		c.canaries[r.canary].Inserted = append(c.canaries[r.canary].Inserted, r.ins)
	}
	c.mu.Unlock()
	return pipeline.Result{Kept: out, Inserted: len(planned)}, nil
}
