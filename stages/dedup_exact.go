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
// order. It is filled by the scan pass and read by the filter pass. Memory:
// one entry per distinct text (a 16-byte hash, an 8-byte position and the
// kept row's id).
type ExactIndex struct {
	shards [64]exactShard
}

type exactShard struct {
	mu sync.Mutex
	m  map[texthash.Hash]firstSeen
}

type firstSeen struct {
	pos uint64 // batch sequence << 32 | row in batch
	id  string
}

// NewExactIndex returns an empty index.
func NewExactIndex() *ExactIndex {
	x := &ExactIndex{}
	for i := range x.shards {
		x.shards[i].m = map[texthash.Hash]firstSeen{}
	}
	return x
}

func (x *ExactIndex) shard(h texthash.Hash) *exactShard { return &x.shards[h.Lo%uint64(len(x.shards))] }

// Len returns the number of distinct texts seen.
func (x *ExactIndex) Len() int {
	n := 0
	for i := range x.shards {
		n += len(x.shards[i].m)
	}
	return n
}

// see records a row; the earliest position wins whatever order batches
// arrive in. id is asked for only when the row is the first seen so far.
func (x *ExactIndex) see(h texthash.Hash, pos uint64, id func() string) {
	s := x.shard(h)
	s.mu.Lock()
	if cur, ok := s.m[h]; !ok || pos < cur.pos {
		s.m[h] = firstSeen{pos: pos, id: id()}
	}
	s.mu.Unlock()
}

func (x *ExactIndex) first(h texthash.Hash) firstSeen {
	s := x.shard(h)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[h]
}

// ExactParams are the parameters of exact deduplication.
type ExactParams struct {
	Normalize bool   `yaml:"normalize" json:"normalize"` // compare the matching normal form
	IDField   string `yaml:"id_field" json:"id_field"`
}

// exactBase holds what both passes share: which column to hash and how.
type exactBase struct {
	textField string
	params    ExactParams
	index     *ExactIndex
	hashers   sync.Pool
}

func (b *exactBase) hashes(rec arrow.RecordBatch) ([]texthash.Hash, []bool, error) {
	text, _, err := textColumn(rec, b.textField)
	if err != nil {
		return nil, nil, err
	}
	h, _ := b.hashers.Get().(*texthash.Hasher)
	if h == nil {
		h = &texthash.Hasher{Match: b.params.Normalize}
	}
	defer b.hashers.Put(h)
	hs, valid := h.Column(text, make([]texthash.Hash, 0, text.Len()), make([]bool, 0, text.Len()))
	return hs, valid, nil
}

func position(ctx context.Context, row int) uint64 {
	return uint64(pipeline.BatchSeq(ctx))<<32 | uint64(row)
}

// ExactScan is the first pass: it records every text's first occurrence
// and passes the batch on unchanged.
type ExactScan struct{ exactBase }

// NewExactScan returns the scan pass that fills index.
func NewExactScan(textField string, p ExactParams, index *ExactIndex) *ExactScan {
	return &ExactScan{exactBase{textField: textField, params: p, index: index}}
}

func (s *ExactScan) Name() string      { return "dedup_exact_scan" }
func (s *ExactScan) Columns() []string { return []string{s.textField, s.params.IDField} }
func (s *ExactScan) Close() error      { return nil }
func (s *ExactScan) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return in, checkTextField(in, s.textField)
}

func (s *ExactScan) Process(ctx context.Context, _ memory.Allocator, rec arrow.RecordBatch) (pipeline.Result, error) {
	hs, valid, err := s.hashes(rec)
	if err != nil {
		return pipeline.Result{}, err
	}
	ids := idColumn(rec, s.params.IDField)
	for i, h := range hs {
		if valid[i] {
			s.index.see(h, position(ctx, i), func() string { return rowID(ctx, ids, i) })
		}
	}
	rec.Retain()
	return pipeline.Result{Kept: rec}, nil
}

// ExactDedup is the second pass: a row whose text was seen earlier goes to
// removed/ with _reason exact_dup and _dup_of naming the kept row's id.
// Rows without text are kept.
type ExactDedup struct{ exactBase }

// NewExactDedup returns the filter pass over a filled index.
func NewExactDedup(textField string, p ExactParams, index *ExactIndex) *ExactDedup {
	return &ExactDedup{exactBase{textField: textField, params: p, index: index}}
}

func (d *ExactDedup) Name() string { return "dedup_exact" }
func (d *ExactDedup) Config() any  { return d.params }
func (d *ExactDedup) Close() error { return nil }
func (d *ExactDedup) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return in, checkTextField(in, d.textField)
}

var dupOfField = arrow.Field{Name: DupOfColumn, Type: arrow.BinaryTypes.String, Nullable: true}

func (d *ExactDedup) RemovedFields() []arrow.Field { return []arrow.Field{dupOfField} }

func (d *ExactDedup) Process(ctx context.Context, mem memory.Allocator, rec arrow.RecordBatch) (pipeline.Result, error) {
	hs, valid, err := d.hashes(rec)
	if err != nil {
		return pipeline.Result{}, err
	}
	keep := make([]bool, len(hs))
	var dupOf []string
	for i, h := range hs {
		if !valid[i] {
			keep[i] = true
			continue
		}
		first := d.index.first(h)
		keep[i] = first.pos == position(ctx, i)
		if !keep[i] {
			dupOf = append(dupOf, first.id)
		}
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
