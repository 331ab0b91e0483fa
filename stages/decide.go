package stages

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/pipeline"
)

// The columns annotate mode adds.
const (
	KeepColumn       = "keep"
	DropReasonColumn = "drop_reason"
)

var decisionFields = []arrow.Field{
	{Name: KeepColumn, Type: arrow.FixedWidthTypes.Boolean, Nullable: false},
	{Name: DropReasonColumn, Type: arrow.BinaryTypes.String, Nullable: true},
}

// decide turns per-row reasons ("" = keep) into a stage result: in filter
// mode the failing rows are removed; in annotate mode signals and the
// keep/drop_reason columns are added and every row is kept. The caller
// releases rec and signals.
func decide(ctx context.Context, mem memory.Allocator, stage string, rec arrow.RecordBatch, reasons []string,
	annotate bool, signalFields []arrow.Field, signals []arrow.Array) (pipeline.Result, error) {
	if annotate {
		return annotateRows(mem, stage, rec, reasons, signalFields, signals), nil
	}
	keep, failed := keepMask(reasons)
	kept, removed, err := columnar.Split(ctx, mem, rec, keep)
	if err != nil {
		return pipeline.Result{}, err
	}
	return pipeline.Result{Kept: kept, Removed: removed, Reasons: failed, Keep: keep}, nil
}

// keepMask marks the rows without a reason ("" = keep) and lists the
// reasons of the others, in row order.
func keepMask(reasons []string) (keep []bool, failed []string) {
	keep = make([]bool, len(reasons))
	for i, r := range reasons {
		keep[i] = r == ""
		if r != "" {
			failed = append(failed, r)
		}
	}
	return keep, failed
}

// annotateRows adds the signals and updates the shared keep and
// drop_reason columns: a row stays kept only if it was kept before and
// passes this stage; the first stage that fails a row names the reason.
func annotateRows(mem memory.Allocator, stage string, rec arrow.RecordBatch, reasons []string,
	signalFields []arrow.Field, signals []arrow.Array) pipeline.Result {
	n := len(reasons)
	var prevKeep *array.Boolean
	var prevReason *array.String
	if idx := rec.Schema().FieldIndices(KeepColumn); len(idx) > 0 {
		prevKeep, _ = rec.Column(idx[0]).(*array.Boolean)
	}
	if idx := rec.Schema().FieldIndices(DropReasonColumn); len(idx) > 0 {
		prevReason, _ = rec.Column(idx[0]).(*array.String)
	}
	kb := array.NewBooleanBuilder(mem)
	defer kb.Release()
	rb := array.NewStringBuilder(mem)
	defer rb.Release()
	for i := 0; i < n; i++ {
		switch {
		case prevKeep != nil && !prevKeep.Value(i):
			kb.Append(false)
			if prevReason != nil && prevReason.IsValid(i) {
				rb.Append(prevReason.Value(i))
			} else {
				rb.AppendNull()
			}
		case reasons[i] != "":
			kb.Append(false)
			rb.Append(stage + ":" + reasons[i])
		default:
			kb.Append(true)
			rb.AppendNull()
		}
	}
	keep, reason := kb.NewBooleanArray(), rb.NewStringArray()
	defer keep.Release()
	defer reason.Release()
	fields := append(append([]arrow.Field(nil), signalFields...), decisionFields...)
	cols := append(append([]arrow.Array(nil), signals...), keep, reason)
	return pipeline.Result{Kept: columnar.SetColumns(rec, fields, cols)}
}

// annotatedSchema is the schema annotate mode gives a batch of s.
func annotatedSchema(s *arrow.Schema, signalFields []arrow.Field) *arrow.Schema {
	return columnar.SetSchemaFields(s, append(append([]arrow.Field(nil), signalFields...), decisionFields...))
}
