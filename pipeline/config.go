package pipeline

import (
	"errors"
	"fmt"
	"runtime"

	"github.com/apache/arrow-go/v18/arrow/memory"
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

// Validate reports every problem of the configuration at once, before any
// work: the same checks whether it came from flags, a pipeline file or a
// scale-out plan. Names are the command line's.
func (c Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Workers < 1 {
		bad("--workers must be at least 1")
	}
	if c.BatchRows < 1 {
		bad("--batch-rows must be at least 1")
	}
	if c.BatchBytes < 1 {
		bad("--batch-bytes must be at least 1")
	}
	if c.InferRows < 1 && c.InferRows != InferAll {
		bad("--infer-rows must be a positive number or 'all'")
	}
	if c.MaxDepth < 1 {
		bad("--max-depth must be at least 1")
	}
	if c.MaxLineBytes < 1 {
		bad("--max-line-bytes must be at least 1")
	}
	if c.TextField == "" {
		bad("--text-field must name a column")
	}
	if c.Limit < 0 {
		bad("--limit must be at least 1")
	}
	o := c.Output // zero limits mean none
	if o.MaxFileRows < 0 {
		bad("--max-file-rows must be at least 1")
	}
	if o.MaxFileBytes < 0 || (o.MaxFileBytes > 0 && o.MaxFileBytes < 1<<10) {
		bad("--max-file-bytes must be at least 1KiB")
	}
	if o.Parquet.PageBytes != 0 && o.Parquet.PageBytes < 1<<10 {
		bad("--page-bytes must be at least 1KiB")
	}
	switch o.Parquet.Codec {
	case pqio.Zstd:
		if o.Parquet.Level != 0 && (o.Parquet.Level < 1 || o.Parquet.Level > 22) {
			bad("--compression-level must be between 1 and 22")
		}
	case pqio.Snappy, pqio.Uncompressed:
	default:
		bad("--compression: unknown codec %d", o.Parquet.Codec)
	}
	return errors.Join(errs...)
}
