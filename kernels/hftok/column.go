package hftok

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Column returns the token count of each text of in; null texts give null
// counts. The caller releases the result.
func (c *Counter) Column(mem memory.Allocator, in *array.String) *array.Int64 {
	return column(c, mem, in, in.ValueOffsets(), in.ValueBytes())
}

// LargeColumn is Column for a column with 64-bit offsets.
func (c *Counter) LargeColumn(mem memory.Allocator, in *array.LargeString) *array.Int64 {
	return column(c, mem, in, in.ValueOffsets(), in.ValueBytes())
}

func column[O int32 | int64](c *Counter, mem memory.Allocator, in arrow.Array, offsets []O, data []byte) *array.Int64 {
	n := in.Len()
	vals := memory.NewResizableBuffer(mem)
	defer vals.Release()
	vals.Resize(n * arrow.Int64SizeBytes)
	out := arrow.Int64Traits.CastFromBytes(vals.Bytes())

	var valid *memory.Buffer
	nulls := in.NullN()
	if nulls > 0 {
		valid = memory.NewResizableBuffer(mem)
		defer valid.Release()
		valid.Resize(int(bitutil.BytesForBits(int64(n))))
		clear(valid.Bytes())
		bitutil.CopyBitmap(in.Data().Buffers()[0].Bytes(), in.Data().Offset(), n, valid.Bytes(), 0)
	}
	// Offsets are absolute; data starts at offsets[0].
	base := O(0)
	if n > 0 {
		base = offsets[0]
	}
	for i := range n {
		if nulls > 0 && !bitutil.BitIsSet(valid.Bytes(), i) {
			out[i] = 0
			continue
		}
		out[i] = int64(c.Count(data[offsets[i]-base : offsets[i+1]-base]))
	}
	d := array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	defer d.Release()
	return array.NewInt64Data(d)
}
