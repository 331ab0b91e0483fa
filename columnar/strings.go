package columnar

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Int64PerString returns fn of every value of a string column as an Int64
// column of the same length; null values give nulls. It is the loop of the
// kernels that measure texts (characters, tokens): the value bytes are
// passed without copying and must not be kept. The caller releases the
// result.
func Int64PerString(mem memory.Allocator, in *array.String, fn func([]byte) int64) *array.Int64 {
	return int64PerString(mem, in, in.ValueOffsets(), in.ValueBytes(), fn)
}

// Int64PerLargeString is Int64PerString for a column with 64-bit offsets.
func Int64PerLargeString(mem memory.Allocator, in *array.LargeString, fn func([]byte) int64) *array.Int64 {
	return int64PerString(mem, in, in.ValueOffsets(), in.ValueBytes(), fn)
}

func int64PerString[O int32 | int64](mem memory.Allocator, in arrow.Array, offsets []O, data []byte, fn func([]byte) int64) *array.Int64 {
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
	// For a sliced array the offsets are absolute, while the value bytes
	// start at offsets[0].
	base := O(0)
	if n > 0 {
		base = offsets[0]
	}
	for i := range n {
		if nulls > 0 && !bitutil.BitIsSet(valid.Bytes(), i) {
			out[i] = 0
			continue
		}
		out[i] = fn(data[offsets[i]-base : offsets[i+1]-base])
	}
	d := array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	defer d.Release()
	return array.NewInt64Data(d)
}
