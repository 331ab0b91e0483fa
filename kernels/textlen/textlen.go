// Package textlen measures texts in an Arrow string column.
//
// Kernels here are pure functions over one column: they take an allocator
// and an array, return a new array of the same length that the caller
// releases, and leave the input alone. Null texts give null lengths.
package textlen

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// RuneCounts returns the length of each text of in in characters (Unicode
// code points; each byte of an invalid UTF-8 sequence counts as one, as in
// utf8.RuneCount). The caller releases the result.
func RuneCounts(mem memory.Allocator, in *array.String) *array.Int64 {
	return runeCounts(mem, in, in.ValueOffsets(), in.ValueBytes())
}

// LargeRuneCounts is RuneCounts for a column with 64-bit offsets.
func LargeRuneCounts(mem memory.Allocator, in *array.LargeString) *array.Int64 {
	return runeCounts(mem, in, in.ValueOffsets(), in.ValueBytes())
}

func runeCounts[O int32 | int64](mem memory.Allocator, in arrow.Array, offsets []O, data []byte) *array.Int64 {
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
	// offsets are absolute, data starts at offsets[0].
	base := O(0)
	if n > 0 {
		base = offsets[0]
	}
	for i := range n {
		if nulls > 0 && !bitutil.BitIsSet(valid.Bytes(), i) {
			out[i] = 0
			continue
		}
		out[i] = int64(runeCount(data[offsets[i]-base : offsets[i+1]-base]))
	}
	d := array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{valid, vals}, nil, nulls, 0)
	defer d.Release()
	return array.NewInt64Data(d)
}

// runeCount counts the runes of b, skipping over ASCII eight bytes at a
// time before handing the rest to utf8.RuneCount.
func runeCount(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for i < len(b) && b[i] < utf8.RuneSelf {
		i++
	}
	return i + utf8.RuneCount(b[i:])
}
