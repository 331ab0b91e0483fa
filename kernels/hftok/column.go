package hftok

import (
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
)

// Column returns the token count of each text of in; null texts give null
// counts. The caller releases the result.
func (c *Counter) Column(mem memory.Allocator, in *array.String) *array.Int64 {
	return columnar.Int64PerString(mem, in, c.count64)
}

// LargeColumn is Column for a column with 64-bit offsets.
func (c *Counter) LargeColumn(mem memory.Allocator, in *array.LargeString) *array.Int64 {
	return columnar.Int64PerLargeString(mem, in, c.count64)
}

func (c *Counter) count64(text []byte) int64 { return int64(c.Count(text)) }
