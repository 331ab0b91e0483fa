package pipeline

import (
	"context"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
)

// Batch is one batch of rows a stage processes, with what the pipeline
// knows of it: its place in input order, where each row came from, and
// its turn at the stage.
type Batch struct {
	// Rec holds the rows. The caller owns it: a stage that needs it after
	// Process returns calls Retain.
	Rec arrow.RecordBatch
	// Seq is the batch's place in input order: batches are numbered from 0
	// as they are read, the same way on every run with the same inputs and
	// batch options, whatever the number of workers. Global stages use it
	// (with the row's index in the batch as it came from the reader) to
	// tell which of two equal rows came first.
	Seq int64

	origins *origins
	turn    *turnstile // the stage's, in a run; nil outside one
}

// NewBatch returns a batch of rec numbered seq, for running a stage outside
// a pipeline run (tests, tools): its rows have no origins and InOrder runs
// at once, the caller being the one to keep batches in order.
func NewBatch(rec arrow.RecordBatch, seq int64) *Batch {
	return &Batch{Rec: rec, Seq: seq}
}

// Origin returns "<file>:<line>" for row i: the input file's name and the
// row's line in it (JSONL) or its row number from 1 (Parquet). It is the
// id of a row that has no id column. The pipeline follows rows through the
// stages before this one as long as each reports which rows it kept
// (Result.Keep); after a stage that removed rows without saying which, and
// outside a run, it returns "".
func (b *Batch) Origin(i int) string {
	o := b.origins
	if o == nil || i < 0 || i >= len(o.line) {
		return ""
	}
	return o.files[o.file[i]].Label() + ":" + strconv.FormatInt(o.line[i], 10)
}

// File returns the name of the input file row i came from, as Origin names
// it without the line, or "" when the pipeline does not know it.
func (b *Batch) File(i int) string {
	o := b.origins
	if o == nil || i < 0 || i >= len(o.line) {
		return ""
	}
	return o.files[o.file[i]].Label()
}

// InOrder runs step once step has run for every earlier batch at this
// stage, so that a stage can make a decision that depends on all the rows
// before (keeping the first occurrence of a text) while the rest of its
// work runs in parallel. A stage that calls InOrder must call it exactly
// once for every batch, empty ones included. It returns the context's
// error if the run stops while the batch waits. Outside a run it runs step
// at once.
func (b *Batch) InOrder(ctx context.Context, step func()) error {
	if b.turn == nil {
		step()
		return nil
	}
	return b.turn.inOrder(ctx, b.Seq, step)
}
