package stages

import (
	"fmt"
	"math/bits"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/sluice-data/sluice/kernels/texthash"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/pipeline/shard"
)

// Exact dedup as array tasks. exact-map runs the stages before dedup_exact
// and dedup_exact itself over a shard, then writes the shard's distinct
// text hashes with the id of their first row, one file per hash range.
// Each exact-reduce task reads its hash range from every shard, in shard
// order, and writes the hashes that a shard shares with an earlier one,
// with the id of the earliest row. Shard s's filter is dedup_exact seeded
// with the hashes that reduce wrote for s: those rows are duplicates of a
// row in an earlier shard, and the shard's own first occurrences decide the
// rest, exactly as one pass over the whole input in order would.

const (
	exactMap    = "exact-map"
	exactReduce = "exact-reduce"
)

var exactMapSchema = arrow.NewSchema([]arrow.Field{
	{Name: "hash_hi", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "hash_lo", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

var exactEarlierSchema = arrow.NewSchema([]arrow.Field{
	{Name: "shard", Type: arrow.PrimitiveTypes.Int32},
	{Name: "hash_hi", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "hash_lo", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "id", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// Sharding declares exact dedup's phases.
func (d *ExactDedup) Sharding() pipeline.Sharding {
	return pipeline.Sharding{
		Phases: []pipeline.ShardPhase{
			{Name: exactMap, Run: d.exactMap},
			{Name: exactReduce, Tasks: func(_, tasks int) int { return tasks }, Run: exactReduceTask},
		},
		Filter: d.exactFilter,
	}
}

// hashRange returns which of n ranges of the hash space h falls in.
func hashRange(h texthash.Hash, n int) int {
	r, _ := bits.Mul64(h.Hi, uint64(n))
	return int(r)
}

func exactMapPath(w shard.Workspace, s, part int) string {
	return filepath.Join(w.Dir(exactMap, s), fmt.Sprintf("range-%05d.parquet", part))
}

func exactEarlierPath(w shard.Workspace, part int) string {
	return filepath.Join(w.Dir(exactReduce, part), "earlier.parquet")
}

func (d *ExactDedup) exactMap(w shard.Workspace, s int, scan pipeline.Scan) error {
	if err := scan(d); err != nil {
		return err
	}
	parts := w.Tasks(exactReduce)
	return shard.WriteByRange(w.Mem(), exactMapSchema, parts, func(r int) string { return exactMapPath(w, s, r) }, func(ranges []*array.RecordBuilder) error {
		return d.Index().Each(func(h texthash.Hash, id string) error {
			b := ranges[hashRange(h, parts)]
			b.Field(0).(*array.Uint64Builder).Append(h.Hi)
			b.Field(1).(*array.Uint64Builder).Append(h.Lo)
			shard.AppendID(b.Field(2).(*array.StringBuilder), id)
			return nil
		})
	})
}

func exactReduceTask(w shard.Workspace, r int, _ pipeline.Scan) error {
	first := map[texthash.Hash]string{}
	out, err := shard.NewRowWriter(w.Mem(), exactEarlierPath(w, r), exactEarlierSchema)
	if err != nil {
		return err
	}
	for s := range w.Shards() {
		err = shard.Read(w.Mem(), exactMapPath(w, s, r), nil, func(rec arrow.RecordBatch) error {
			hi, lo := rec.Column(0).(*array.Uint64), rec.Column(1).(*array.Uint64)
			ids := rec.Column(2).(*array.String)
			for i := 0; i < int(rec.NumRows()); i++ {
				h := texthash.Hash{Hi: hi.Value(i), Lo: lo.Value(i)}
				id, seen := first[h]
				if !seen {
					first[h] = shard.IDAt(ids, i)
					continue
				}
				out.Field(0).(*array.Int32Builder).Append(int32(s))
				out.Field(1).(*array.Uint64Builder).Append(h.Hi)
				out.Field(2).(*array.Uint64Builder).Append(h.Lo)
				shard.AppendID(out.Field(3).(*array.StringBuilder), id)
				if err := out.RowDone(); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			break
		}
	}
	return out.Finish(err)
}

// exactFilter seeds shard s's dedup_exact with the texts first seen in an
// earlier shard.
func (d *ExactDedup) exactFilter(w shard.Workspace, s int) (pipeline.Stage, error) {
	paths := make([]string, w.Tasks(exactReduce))
	for r := range paths {
		paths[r] = exactEarlierPath(w, r)
	}
	err := shard.EachRowOfShard(w.Mem(), paths, s, func(rec arrow.RecordBatch, i int) {
		hi, lo := rec.Column(1).(*array.Uint64), rec.Column(2).(*array.Uint64)
		d.index.Seed(texthash.Hash{Hi: hi.Value(i), Lo: lo.Value(i)}, shard.IDAt(rec.Column(3).(*array.String), i))
	})
	return d, err
}
