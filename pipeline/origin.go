package pipeline

import (
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
)

// origins tells where each row of a batch came from: its input file and
// its line (JSONL) or row number (Parquet), both counted from 1.
type origins struct {
	files []input.File
	file  []int32
	line  []int64
	// at is where each row starts in its file, when that is not its line:
	// the byte offset of a WARC record. nil otherwise.
	at []int64
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
			if o.at != nil {
				out.at = append(out.at, o.at[i])
			}
		}
	}
	return out
}
