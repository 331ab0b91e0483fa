// Package pipeline defines the stage: the unit a command chains between
// reading and writing. A stage maps one record batch to a batch of kept rows
// plus a batch of removed rows with reasons, and counts what it did.
//
// Ownership: the caller owns the batch it passes to Process and releases it
// after Process returns; a stage that needs the batch afterwards calls
// Retain. The batches a stage returns belong to the caller, who releases
// them. Stages that hold per-batch state must be safe for concurrent use,
// since every worker calls Process on its own batches.
package pipeline

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Result is what a stage made of one batch.
type Result struct {
	Kept arrow.RecordBatch
	// Removed holds the dropped rows with the stage's columns _stage and
	// _reason appended; nil when nothing was dropped.
	Removed arrow.RecordBatch
	// RemovedBy counts the dropped rows by reason.
	RemovedBy map[string]int64
}

// Stage transforms batches. Name is the stage's name in the manifest and
// in the _stage column of removed rows.
type Stage interface {
	Name() string
	// OutputSchema returns the schema of kept batches for input schema in.
	OutputSchema(in *arrow.Schema) (*arrow.Schema, error)
	Process(ctx context.Context, mem memory.Allocator, batch arrow.RecordBatch) (Result, error)
	Close() error
}
