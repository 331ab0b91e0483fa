package scaleout

import (
	"fmt"
	"math/bits"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/sluice-data/sluice/kernels/texthash"
	"github.com/sluice-data/sluice/stages"
)

// Exact dedup as phases. exact-map runs the stages before dedup_exact and
// dedup_exact itself over a shard, then writes the shard's distinct text
// hashes with the id of their first row, one file per hash range. Each
// exact-reduce task reads its hash range from every shard, in shard order,
// and writes the hashes that a shard shares with an earlier one, with the
// id of the earliest row. A later phase seeds shard s's dedup_exact with
// the hashes that reduce wrote for s: those rows are duplicates of a row
// in an earlier shard, and the shard's own first occurrences decide the
// rest, exactly as one pass over the whole input in order would.

var mapSchema = arrow.NewSchema([]arrow.Field{
	{Name: "hash_hi", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "hash_lo", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

var earlierSchema = arrow.NewSchema([]arrow.Field{
	{Name: "shard", Type: arrow.PrimitiveTypes.Int32},
	{Name: "hash_hi", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "hash_lo", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// hashRange returns which of n ranges of the hash space h falls in.
func hashRange(h texthash.Hash, n int) int {
	r, _ := bits.Mul64(h.Hi, uint64(n))
	return int(r)
}

func (t *task) mapPath(stage, shard, part int) string {
	return filepath.Join(t.plan.workDir(t.plan.phaseOf(ExactMap, stage), shard), fmt.Sprintf("range-%05d.parquet", part))
}

func (t *task) earlierPath(stage, part int) string {
	return filepath.Join(t.plan.workDir(t.plan.phaseOf(ExactReduce, stage), part), "earlier.parquet")
}

func (t *task) exactMap() error {
	s, g := t.index, t.phase.Stage
	sts, err := t.shardStages(s, g)
	if err != nil {
		return err
	}
	st, err := t.build(g)
	if err != nil {
		return err
	}
	d := st.(*stages.ExactDedup)
	if _, err := t.pass(s, append(sts, d), discard); err != nil {
		return err
	}
	parts := t.plan.phaseOf(ExactReduce, g).Tasks
	return t.writeByRange(mapSchema, parts, func(r int) string { return t.mapPath(g, s, r) }, func(ranges []*array.RecordBuilder) error {
		return d.Index().Each(func(h texthash.Hash, id string) error {
			b := ranges[hashRange(h, parts)]
			b.Field(0).(*array.Uint64Builder).Append(h.Hi)
			b.Field(1).(*array.Uint64Builder).Append(h.Lo)
			appendID(b.Field(2).(*array.StringBuilder), id)
			return nil
		})
	})
}

func appendID(b *array.StringBuilder, id string) {
	if id == "" {
		b.AppendNull()
	} else {
		b.Append(id)
	}
}

func idAt(ids *array.String, i int) string {
	if ids.IsNull(i) {
		return ""
	}
	return ids.Value(i)
}

func (t *task) exactReduce() error {
	r, g := t.index, t.phase.Stage
	first := map[texthash.Hash]string{}
	w, err := t.newRowWriter(t.earlierPath(g, r), earlierSchema)
	if err != nil {
		return err
	}
	for s := range t.plan.Shards {
		err = readParquet(t.mem, t.mapPath(g, s, r), nil, func(rec arrow.RecordBatch) error {
			hi, lo := rec.Column(0).(*array.Uint64), rec.Column(1).(*array.Uint64)
			ids := rec.Column(2).(*array.String)
			for i := 0; i < int(rec.NumRows()); i++ {
				h := texthash.Hash{Hi: hi.Value(i), Lo: lo.Value(i)}
				id, seen := first[h]
				if !seen {
					first[h] = idAt(ids, i)
					continue
				}
				w.field(0).(*array.Int32Builder).Append(int32(s))
				w.field(1).(*array.Uint64Builder).Append(h.Hi)
				w.field(2).(*array.Uint64Builder).Append(h.Lo)
				appendID(w.field(3).(*array.StringBuilder), id)
				if err := w.rowDone(); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			break
		}
	}
	return w.finish(err)
}

// seedExact seeds the index of shard s's dedup_exact (pipeline stage g)
// with the texts first seen in an earlier shard.
func (t *task) seedExact(x *stages.ExactIndex, s, g int) error {
	paths := make([]string, t.plan.phaseOf(ExactReduce, g).Tasks)
	for r := range paths {
		paths[r] = t.earlierPath(g, r)
	}
	return t.eachRowOfShard(paths, s, func(rec arrow.RecordBatch, i int) {
		hi, lo := rec.Column(1).(*array.Uint64), rec.Column(2).(*array.Uint64)
		x.Seed(texthash.Hash{Hi: hi.Value(i), Lo: lo.Value(i)}, idAt(rec.Column(3).(*array.String), i))
	})
}
