package scaleout

import (
	"fmt"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/stages"
)

// Line dedup as phases. lines-map runs the stages before dedup_lines and
// its counting pass over a shard, then writes the shard's line hashes with
// their saturating counts and the position of their first copy in the
// shard, one file per hash range. Each lines-reduce task reads its range
// from every shard in shard order and writes, for every shard that holds a
// line repeated in the whole corpus, the line's hash and where the copy to
// keep is when it is in that shard (keep first). A later phase seeds shard
// s's dedup_lines with those lines, so it drops what one pass over the
// whole input in order would.

var linesMapSchema = arrow.NewSchema([]arrow.Field{
	{Name: "hash", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "count", Type: arrow.PrimitiveTypes.Uint8},
	{Name: "first", Type: arrow.PrimitiveTypes.Uint64},
}, nil)

var repeatedSchema = arrow.NewSchema([]arrow.Field{
	{Name: "shard", Type: arrow.PrimitiveTypes.Int32},
	{Name: "hash", Type: arrow.PrimitiveTypes.Uint64},
	{Name: "keep", Type: arrow.PrimitiveTypes.Uint64}, // stages.NoCopyKept: none here
}, nil)

// lineRange returns which of n ranges of the hash space h falls in.
func lineRange(h uint64, n int) int {
	return int(h % uint64(n))
}

func (t *task) linesMapPath(stage, shard, part int) string {
	return filepath.Join(t.plan.workDir(t.plan.phaseOf(LinesMap, stage), shard), fmt.Sprintf("range-%05d.parquet", part))
}

func (t *task) repeatedPath(stage, part int) string {
	return filepath.Join(t.plan.workDir(t.plan.phaseOf(LinesReduce, stage), part), "repeated.parquet")
}

func (t *task) linesMap() error {
	s, g := t.index, t.phase.Stage
	sts, err := t.shardStages(s, g)
	if err != nil {
		return err
	}
	st, err := t.build(g)
	if err != nil {
		return err
	}
	lines := st.(*stages.GlobalLines)
	err = lines.Prepare(func(scan pipeline.Stage) error {
		_, err := t.pass(s, append(sts, scan), discard)
		return err
	})
	if err != nil {
		return err
	}
	parts := t.plan.phaseOf(LinesReduce, g).Tasks
	return t.writeByRange(linesMapSchema, parts, func(r int) string { return t.linesMapPath(g, s, r) }, func(ranges []*array.RecordBuilder) error {
		return lines.Index().Each(func(h uint64, count uint8, first uint64) error {
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

func (t *task) linesReduce() error {
	r, g := t.index, t.phase.Stage
	totals := map[uint64]lineTotal{}
	eachShardLine := func(fn func(s int, h uint64, count uint8, first uint64)) error {
		for s := range t.plan.Shards {
			err := readParquet(t.mem, t.linesMapPath(g, s, r), nil, func(rec arrow.RecordBatch) error {
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
	w, err := t.newRowWriter(t.repeatedPath(g, r), repeatedSchema)
	if err != nil {
		return err
	}
	var werr error
	err = eachShardLine(func(s int, h uint64, _ uint8, _ uint64) {
		tot := totals[h]
		if tot.count < 2 || werr != nil {
			return
		}
		keep := stages.NoCopyKept
		if int(tot.shard) == s {
			keep = tot.first
		}
		w.field(0).(*array.Int32Builder).Append(int32(s))
		w.field(1).(*array.Uint64Builder).Append(h)
		w.field(2).(*array.Uint64Builder).Append(keep)
		werr = w.rowDone()
	})
	if err == nil {
		err = werr
	}
	return w.finish(err)
}

// seedLines seeds the index of shard s's dedup_lines (pipeline stage g)
// with the lines repeated in the whole corpus that the shard holds.
func (t *task) seedLines(x *stages.LineIndex, s, g int) error {
	paths := make([]string, t.plan.phaseOf(LinesReduce, g).Tasks)
	for r := range paths {
		paths[r] = t.repeatedPath(g, r)
	}
	return t.eachRowOfShard(paths, s, func(rec arrow.RecordBatch, i int) {
		x.Seed(rec.Column(1).(*array.Uint64).Value(i), rec.Column(2).(*array.Uint64).Value(i))
	})
}
