package stages

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/kernels/texthash"
	"github.com/sluice-data/sluice/pipeline"
)

// DupOfColumn names, on a removed duplicate, the id of the row kept in
// its place.
const DupOfColumn = "_dup_of"

// ExactIndex maps each distinct text hash to its first occurrence in input
// order. Memory: one entry per distinct text (a 16-byte hash, an 8-byte
// position and the kept row's id).
type ExactIndex struct {
	mu sync.Mutex
	m  map[texthash.Hash]firstSeen
}

type firstSeen struct {
	pos uint64 // batch sequence << 32 | row in batch
	id  string
}

// Seed records that text hash h first occurs before every row this index
// will see (in an earlier shard of a sharded run), as the row named id:
// every row with that text is then a duplicate of it.
func (x *ExactIndex) Seed(h texthash.Hash, id string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.m[h] = firstSeen{pos: seededPos, id: id}
}

// seededPos is the position of a seeded first occurrence, which no row
// has (positions are batch sequence << 32 | row, rows below 1<<32).
const seededPos = ^uint64(0)

// Each calls fn for every distinct text hash with the id of its first
// occurrence, in no particular order.
func (x *ExactIndex) Each(fn func(h texthash.Hash, id string) error) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	for h, f := range x.m {
		if err := fn(h, f.id); err != nil {
			return err
		}
	}
	return nil
}

// NewExactIndex returns an empty index.
func NewExactIndex() *ExactIndex { return &ExactIndex{m: map[texthash.Hash]firstSeen{}} }

// Len returns the number of distinct texts seen.
func (x *ExactIndex) Len() int {
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.m)
}

// ExactParams are the parameters of exact deduplication.
type ExactParams struct {
	Normalize bool   `yaml:"normalize" json:"normalize"` // compare the matching normal form
	IDField   string `yaml:"id_field" json:"id_field"`
}

// ExactDedup keeps the first row of every distinct text in one pass: each
// worker hashes its batch, then the batches take their turns in input
// order (pipeline.Batch.InOrder) to look their hashes up and record the new
// ones, so the first occurrence wins whatever the number of workers. A
// later row goes to removed/ with _reason exact_dup and _dup_of naming the
// kept row's id. Rows without text are kept. Run again over the same input
// (as the passes of a later global stage do), it decides the same.
type ExactDedup struct {
	textField string
	params    ExactParams
	index     *ExactIndex
	hashers   sync.Pool
}

// NewExactDedup returns exact dedup with an empty index.
func NewExactDedup(textField string, p ExactParams) *ExactDedup {
	return &ExactDedup{textField: textField, params: p, index: NewExactIndex()}
}

// Index returns the first occurrences found, for reports.
func (d *ExactDedup) Index() *ExactIndex { return d.index }

func (d *ExactDedup) hashes(rec arrow.RecordBatch) ([]texthash.Hash, []bool, error) {
	text, _, err := textColumn(rec, d.textField)
	if err != nil {
		return nil, nil, err
	}
	h, _ := d.hashers.Get().(*texthash.Hasher)
	if h == nil {
		h = &texthash.Hasher{Match: d.params.Normalize}
	}
	defer d.hashers.Put(h)
	hs, valid := h.Column(text, make([]texthash.Hash, 0, text.Len()), make([]bool, 0, text.Len()))
	return hs, valid, nil
}

func position(batch *pipeline.Batch, row int) uint64 {
	return uint64(batch.Seq)<<32 | uint64(row)
}

func (d *ExactDedup) Name() string { return "dedup_exact" }
func (d *ExactDedup) Config() any  { return d.params }
func (d *ExactDedup) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return in, checkTextField(in, d.textField)
}

var dupOfField = arrow.Field{Name: DupOfColumn, Type: arrow.BinaryTypes.String, Nullable: true}

func (d *ExactDedup) RemovedFields() []arrow.Field { return []arrow.Field{dupOfField} }

func (d *ExactDedup) Process(ctx context.Context, mem memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	hs, valid, err := d.hashes(rec)
	if err != nil {
		return pipeline.Result{}, err
	}
	ids := idColumn(rec, d.params.IDField)
	keep := make([]bool, len(hs))
	var dupOf []string
	err = batch.InOrder(ctx, func() {
		x := d.index
		x.mu.Lock()
		defer x.mu.Unlock()
		for i, h := range hs {
			if !valid[i] {
				keep[i] = true
				continue
			}
			pos := position(batch, i)
			first, seen := x.m[h]
			if !seen {
				first = firstSeen{pos: pos, id: rowID(batch, ids, i)}
				x.m[h] = first
			}
			keep[i] = first.pos == pos
			if !keep[i] {
				dupOf = append(dupOf, first.id)
			}
		}
	})
	if err != nil {
		return pipeline.Result{}, err
	}
	kept, removed, err := columnar.Split(ctx, mem, rec, keep)
	if err != nil {
		return pipeline.Result{}, err
	}
	reasons := make([]string, len(dupOf))
	for i := range reasons {
		reasons[i] = "exact_dup"
	}
	if len(dupOf) > 0 {
		col := columnar.Strings(mem, dupOf, true)
		defer col.Release()
		withDup := columnar.SetColumns(removed, []arrow.Field{dupOfField}, []arrow.Array{col})
		removed.Release()
		removed = withDup
	}
	return pipeline.Result{Kept: kept, Removed: removed, Reasons: reasons, Keep: keep}, nil
}
