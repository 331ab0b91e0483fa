package stages

import (
	"fmt"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/pipeline/shard"
)

// Line dedup as array tasks. lines-map runs the stages before dedup_lines
// and its counting pass over a shard, then writes the shard's line hashes
// with their saturating counts and the position of their first copy in the
// shard, one file per hash range. Each lines-reduce task reads its range
// from every shard in shard order and writes, for every shard that holds a
// line repeated in the whole corpus, the line's hash and where the copy to
// keep is when it is in that shard (keep first). Shard s's filter is
// dedup_lines seeded with those lines, so it drops what one pass over the
// whole input in order would.

const (
	linesMap    = "lines-map"
	linesReduce = "lines-reduce"
)

var linesMapSchema = arrow.NewSchema([]arrow.Field{
	{Name: "hash", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "count", Type: arrow.PrimitiveTypes.Uint8},
	{Name: "first", Type: arrow.PrimitiveTypes.Uint64},
}, nil)

var linesRepeatedSchema = arrow.NewSchema([]arrow.Field{
	{Name: "shard", Type: arrow.PrimitiveTypes.Int32},
	{Name: "hash", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "keep", Type: arrow.PrimitiveTypes.Uint64}, // NoCopyKept: none here
}, nil)

// Sharding declares line dedup's phases.
func (g *GlobalLines) Sharding() pipeline.Sharding {
	return pipeline.Sharding{
		Phases: []pipeline.ShardPhase{
			{Name: linesMap, Run: g.linesMap},
			{Name: linesReduce, Tasks: func(_, tasks int) int { return tasks }, Run: linesReduceTask},
		},
		Filter: g.linesFilter,
	}
}

// lineRange returns which of n ranges of the hash space h falls in.
func lineRange(h uint64, n int) int {
	return int(h % uint64(n))
}

func linesMapPath(w shard.Workspace, s, part int) string {
	return filepath.Join(w.Dir(linesMap, s), fmt.Sprintf("range-%05d.parquet", part))
}

func linesRepeatedPath(w shard.Workspace, part int) string {
	return filepath.Join(w.Dir(linesReduce, part), "repeated.parquet")
}

func (g *GlobalLines) linesMap(w shard.Workspace, s int, scan pipeline.Scan) error {
	if err := g.Prepare(scan); err != nil {
		return err
	}
	parts := w.Tasks(linesReduce)
	return shard.WriteByRange(w.Mem(), linesMapSchema, parts, func(r int) string { return linesMapPath(w, s, r) }, func(ranges []*array.RecordBuilder) error {
		return g.Index().Each(func(h uint64, count uint8, first uint64) error {
			b := ranges[lineRange(h, parts)]
			b.Field(0).(*array.Uint64Builder).Append(h)
			b.Field(1).(*array.Uint8Builder).Append(count)
			b.Field(2).(*array.Uint64Builder).Append(first)
			return nil
		})
	})
}

// lineTotal is a line's count over the shards read so far (saturating)
// and the shard and position of its first copy.
type lineTotal struct {
	count uint8
	shard int32
	first uint64
}

func linesReduceTask(w shard.Workspace, r int, _ pipeline.Scan) error {
	totals := map[uint64]lineTotal{}
	eachShardLine := func(fn func(s int, h uint64, count uint8, first uint64)) error {
		for s := range w.Shards() {
			err := shard.Read(w.Mem(), linesMapPath(w, s, r), nil, func(rec arrow.RecordBatch) error {
				hs, counts, firsts := rec.Column(0).(*array.Uint64), rec.Column(1).(*array.Uint8), rec.Column(2).(*array.Uint64)
				for i := 0; i < int(rec.NumRows()); i++ {
					fn(s, hs.Value(i), counts.Value(i), firsts.Value(i))
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	// Shards come in input order, so the first shard to hold a line holds
	// its first copy.
	err := eachShardLine(func(s int, h uint64, count uint8, first uint64) {
		tot, seen := totals[h]
		if !seen {
			totals[h] = lineTotal{count: count, shard: int32(s), first: first}
			return
		}
		tot.count = uint8(min(int(tot.count)+int(count), 255))
		totals[h] = tot
	})
	if err != nil {
		return err
	}
	out, err := shard.NewRowWriter(w.Mem(), linesRepeatedPath(w, r), linesRepeatedSchema)
	if err != nil {
		return err
	}
	var werr error
	err = eachShardLine(func(s int, h uint64, _ uint8, _ uint64) {
		tot := totals[h]
		if tot.count < 2 || werr != nil {
			return
		}
		keep := NoCopyKept
		if int(tot.shard) == s {
			keep = tot.first
		}
		out.Field(0).(*array.Int32Builder).Append(int32(s))
		out.Field(1).(*array.Uint64Builder).Append(h)
		out.Field(2).(*array.Uint64Builder).Append(keep)
		werr = out.RowDone()
	})
	if err == nil {
		err = werr
	}
	return out.Finish(err)
}

// linesFilter seeds shard s's dedup_lines with the lines repeated in the
// whole corpus that the shard holds.
func (g *GlobalLines) linesFilter(w shard.Workspace, s int) (pipeline.Stage, error) {
	paths := make([]string, w.Tasks(linesReduce))
	for r := range paths {
		paths[r] = linesRepeatedPath(w, r)
	}
	err := shard.EachRowOfShard(w.Mem(), paths, s, func(rec arrow.RecordBatch, i int) {
		g.Index().Seed(rec.Column(1).(*array.Uint64).Value(i), rec.Column(2).(*array.Uint64).Value(i))
	})
	g.ready = err == nil
	return g.Filter(), err
}
