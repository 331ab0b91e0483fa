package pipeline

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/internal/limit"
	"github.com/sluice-data/sluice/io/jsonl"
	"github.com/sluice-data/sluice/io/pqio"
)

// withDefaults fills the settings left zero with their defaults.
func (c Config) withDefaults() Config {
	if c.Mem == nil {
		c.Mem = memory.DefaultAllocator
	}
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.BatchRows == 0 {
		c.BatchRows = DefaultBatchRows
	}
	if c.BatchBytes == 0 {
		c.BatchBytes = DefaultBatchBytes
	}
	if c.InferRows == 0 {
		c.InferRows = DefaultInferRows
	}
	if c.MaxDepth == 0 {
		c.MaxDepth = jsonl.DefaultMaxDepth
	}
	if c.MaxLineBytes == 0 {
		c.MaxLineBytes = jsonl.DefaultMaxLineBytes
	}
	if c.TextField == "" {
		c.TextField = DefaultTextField
	}
	return c
}

// The defaults of a run's settings, which the command line's flags show.
const (
	DefaultBatchRows  = 65536
	DefaultBatchBytes = 16 << 20
	DefaultInferRows  = 10000
	DefaultTextField  = "text"
)

// The ranges of a run's settings, which the command line's flags take
// too; a zero output limit means none.
var (
	WorkersRange      = limit.Closed(1, 4096)
	BatchRowsRange    = limit.Closed(1, 1<<24)
	BatchBytesRange   = limit.Closed(1, 4<<30)
	InferRowsRange    = limit.Closed(1, 1e12)
	MaxDepthRange     = limit.Closed(1, 10_000)
	MaxLineBytesRange = limit.Closed(1, 4<<30)
	MaxFileRowsRange  = limit.Closed(1, 1e15)
	MaxFileBytesRange = limit.Closed(1<<10, 1<<50)
	PageBytesRange    = limit.Closed(1<<10, 1<<30)
	LevelRange        = limit.Closed(1, 22)
)

// Validate reports every problem of the configuration at once, before any
// work: the same checks whether it came from flags, a pipeline file or a
// scale-out plan. Names are the command line's.
func (c Config) Validate() error {
	var errs []error
	check := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	check(WorkersRange.Int("--workers", int64(c.Workers)))
	check(BatchRowsRange.Int("--batch-rows", int64(c.BatchRows)))
	check(BatchBytesRange.Int("--batch-bytes", int64(c.BatchBytes)))
	if c.InferRows != InferAll {
		check(InferRowsRange.Int("--infer-rows", int64(c.InferRows)))
	}
	check(MaxDepthRange.Int("--max-depth", int64(c.MaxDepth)))
	check(MaxLineBytesRange.Int("--max-line-bytes", int64(c.MaxLineBytes)))
	if c.TextField == "" {
		bad("--text-field must name a column")
	}
	if c.Limit < 0 {
		bad("--limit must be at least 1")
	}
	o := c.Output // zero limits mean none
	if o.MaxFileRows != 0 {
		check(MaxFileRowsRange.Int("--max-file-rows", o.MaxFileRows))
	}
	if o.MaxFileBytes != 0 {
		check(MaxFileBytesRange.Int("--max-file-bytes", o.MaxFileBytes))
	}
	if o.Parquet.PageBytes != 0 {
		check(PageBytesRange.Int("--page-bytes", o.Parquet.PageBytes))
	}
	switch o.Parquet.Codec {
	case pqio.Zstd:
		if o.Parquet.Level != 0 {
			check(LevelRange.Int("--compression-level", int64(o.Parquet.Level)))
		}
	case pqio.Snappy, pqio.Uncompressed:
	default:
		bad("--compression: unknown codec %d", o.Parquet.Codec)
	}
	return errors.Join(errs...)
}
