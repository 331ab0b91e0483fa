package pipeline

import (
	"context"
	"strconv"

	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
)

// origins tells where each row of a batch came from: its input file and
// its line (JSONL) or row number (Parquet), both counted from 1.
type origins struct {
	files []input.File
	file  []int32
	line  []int64
}

type originsKey struct{}

// RowOrigin returns "<file>:<line>" for row i of the batch a stage is
// processing: the input file's name and the row's line in it (JSONL) or its
// row number from 1 (Parquet). It is the id of a row that has no id column.
// The pipeline follows rows through the stages before this one as long as
// each reports which rows it kept (Result.Keep); after a stage that removed
// rows without saying which, it returns "".
func RowOrigin(ctx context.Context, i int) string {
	o, _ := ctx.Value(originsKey{}).(*origins)
	if o == nil || i < 0 || i >= len(o.line) {
		return ""
	}
	return o.files[o.file[i]].Label() + ":" + strconv.FormatInt(o.line[i], 10)
}

// RowFile returns the name of the input file row i of the batch a stage
// is processing came from, as RowOrigin names it without the line, or ""
// when the pipeline does not know it.
func RowFile(ctx context.Context, i int) string {
	o, _ := ctx.Value(originsKey{}).(*origins)
	if o == nil || i < 0 || i >= len(o.line) {
		return ""
	}
	return o.files[o.file[i]].Label()
}

// jsonlOrigins are the origins of the rows a chunk decoded into: its lines
// but the quarantined ones, which are in line order.
func jsonlOrigins(files []input.File, c *jsonl.Chunk, bad []jsonl.BadLine) *origins {
	o := &origins{files: files, file: make([]int32, 0, c.Len()-len(bad)), line: make([]int64, 0, c.Len()-len(bad))}
	b := 0
	for _, ref := range c.Refs {
		if b < len(bad) && bad[b].Ref.File == ref.File && bad[b].Ref.Line == ref.Line {
			b++
			continue
		}
		o.file = append(o.file, ref.File)
		o.line = append(o.line, ref.Line)
	}
	return o
}

// parquetOrigins are the origins of n rows of file f starting at row first
// (from 0).
func parquetOrigins(files []input.File, f int, first, n int64) *origins {
	o := &origins{files: files, file: make([]int32, n), line: make([]int64, n)}
	for i := range o.line {
		o.file[i] = int32(f)
		o.line[i] = first + int64(i) + 1
	}
	return o
}

// keep returns the origins of the rows keep marks, or nil when keep does
// not match the batch.
func (o *origins) keep(keep []bool) *origins {
	if o == nil || len(keep) != len(o.line) {
		return nil
	}
	out := &origins{files: o.files}
	for i, k := range keep {
		if k {
			out.file = append(out.file, o.file[i])
			out.line = append(out.line, o.line[i])
		}
	}
	return out
}
