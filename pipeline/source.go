package pipeline

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
)

// source produces the units of a run in input order (next, on the reading
// goroutine) and turns each into a batch (load, on a worker). JSONL, Parquet
// and WARC inputs each have one.
type source interface {
	schema() *arrow.Schema
	// schemaText is the schema as the manifest records it.
	schemaText() string
	// next returns the next unit in input order; done at the end.
	next(ctx context.Context) (u unit, done bool, err error)
	// load makes the batch of unit u on worker w (0 <= w < Workers).
	load(ctx context.Context, w int, u unit) (loaded, error)
	// stats are the per-file counts, complete once next said done.
	stats() []jsonl.FileStat
	close()
}

// openSource opens the source for cfg's inputs, all of one format
// (CheckInputs), read up to cfg.Limit rows, or the replay of a recording
// of them (Recording, Spill).
func openSource(ctx context.Context, cfg Config) (source, error) {
	src, err := replayOrRecord(cfg, func() (source, error) {
		return withSpill(cfg, func() (source, error) {
			src, err := openFormat(ctx, cfg)
			if err != nil {
				return nil, err // not a typed nil
			}
			return withLimit(src, cfg), nil
		})
	})
	if err != nil {
		return nil, err // not a typed nil
	}
	if cfg.Lineage {
		l, err := withLineage(src, cfg)
		if err != nil {
			src.close()
			return nil, err
		}
		return l, nil
	}
	return src, nil
}

// openFormat opens the source of cfg's inputs' format.
func openFormat(ctx context.Context, cfg Config) (source, error) {
	switch cfg.Inputs[0].Format {
	case input.Parquet:
		return openParquetSource(cfg)
	case input.WARC:
		return openWARCSource(ctx, cfg)
	default:
		return openJSONLSource(ctx, cfg)
	}
}

// unit is one batch's worth of input as next produced it: a chunk of lines,
// a batch already read, or a Parquet row group for the worker to read.
type unit struct {
	seq     int64 // the batch's place in input order
	chunk   *jsonl.Chunk
	batch   arrow.RecordBatch
	pqFile  int // with pqGroup: a Parquet row group the worker reads itself
	pqGroup int
	origins *origins // where the rows came from, when known before loading
	// bad are the input records that could not be read (WARC).
	bad []jsonl.BadLine
}

// loaded is a unit made into a batch: its rows, the input lines that
// could not become rows, and where each row came from.
type loaded struct {
	batch    arrow.RecordBatch
	bad      []jsonl.BadLine
	origins  *origins
	rowsIn   int64 // rows and bad lines: what the unit counts as input
	repaired int64 // rows whose invalid UTF-8 was replaced
	// applied, for a batch replayed from a spill, is what the run's
	// first stages made of it (Spill.After); batch is what they kept.
	applied *applied
}

// passThrough is the load of a unit that already holds its batch.
func passThrough(u unit) loaded {
	return loaded{batch: u.batch, bad: u.bad, origins: u.origins, rowsIn: u.batch.NumRows() + int64(len(u.bad))}
}
