// Package pipeline defines the stage: the unit a command chains between
// reading and writing. A stage maps one record batch to a batch of kept rows
// plus a batch of removed rows with reasons, and counts what it did.
//
// Ownership: the caller owns the batch it passes to Process and releases it
// after Process returns; a stage that needs the batch afterwards calls
// Retain. A stage holds no resource to release: what a stage creates for a
// run (a spill file, say) it removes itself before its Prepare returns. The batches a stage returns belong to the caller, who releases
// them. Stages that hold per-batch state must be safe for concurrent use,
// since every worker calls Process on its own batches.
package pipeline

import (
	"context"
	"encoding/json"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Result is what a stage made of one batch.
type Result struct {
	Kept arrow.RecordBatch
	// Removed holds the dropped rows, nil or empty when nothing was
	// dropped; Reasons holds one reason per removed row (e.g.
	// "mean_word_length"). The pipeline adds the _stage and _reason columns
	// and writes them to removed/.
	Removed arrow.RecordBatch
	Reasons []string
	// Keep, when the stage removed rows, marks the input rows Kept holds,
	// so that the pipeline can tell later stages where each row came from
	// (Batch.Origin). A stage that leaves it nil still works; the stages after
	// it then see no origins.
	Keep []bool
	// Inserted counts rows the stage added to Kept (rows of its own, not
	// from the input); the manifest accounts for them.
	Inserted int
}

// The columns every removed row carries.
const (
	StageColumn  = "_stage"
	ReasonColumn = "_reason"
)

// RemovedFielder is implemented by stages whose removed rows carry
// columns of their own (a dedup stage's _dup_of, say), declared up front so
// that removed/ has one schema.
type RemovedFielder interface {
	RemovedFields() []arrow.Field
}

// Stage transforms batches. Name is the stage's name in the manifest and
// in the _stage column of removed rows.
type Stage interface {
	Name() string
	// OutputSchema returns the schema of kept batches for input schema in,
	// or why the stage cannot take such batches. It is a pure function of
	// in: it does not change the stage, and Process finds what it needs in
	// each batch's own schema.
	OutputSchema(in *arrow.Schema) (*arrow.Schema, error)
	// Process maps one batch; see Batch for what the pipeline tells a
	// stage of it.
	Process(ctx context.Context, mem memory.Allocator, batch *Batch) (Result, error)
}

// Configurer is implemented by stages that report their effective
// parameters, defaults filled in, for the manifest.
type Configurer interface {
	Config() any
}

// ColumnUser is implemented by stages that read only some columns of a
// batch and pass it on unchanged (the scan passes of global stages): a run
// made of such stages alone may read only these columns (Config.Columns).
type ColumnUser interface {
	Columns() []string
}

// Reporter is implemented by stages that tell what they found over the
// whole run (a dedup stage's clusters, say); the report goes into the
// manifest once every batch was processed.
type Reporter interface {
	Report() any
}

// ReportMerger is implemented by Reporters whose reports on the shards of
// a launched run add up to the report on the whole input (token counts by
// group): the merged manifest holds MergeReports of the shards' reports,
// each as the shard's manifest wrote it, instead of their list.
type ReportMerger interface {
	Reporter
	MergeReports(shards []json.RawMessage) (any, error)
}
