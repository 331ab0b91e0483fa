// Package textlen measures texts in an Arrow string column.
//
// Kernels here are pure functions over one column: they take an allocator
// and an array, return a new array of the same length that the caller
// releases, and leave the input alone. Null texts give null lengths.
package textlen

import (
	"encoding/binary"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
)

// RuneCounts returns the length of each text of in in characters (Unicode
// code points; each byte of an invalid UTF-8 sequence counts as one, as in
// utf8.RuneCount). The caller releases the result.
func RuneCounts(mem memory.Allocator, in *array.String) *array.Int64 {
	return columnar.Int64PerString(mem, in, runeCount64)
}

// LargeRuneCounts is RuneCounts for a column with 64-bit offsets.
func LargeRuneCounts(mem memory.Allocator, in *array.LargeString) *array.Int64 {
	return columnar.Int64PerLargeString(mem, in, runeCount64)
}

func runeCount64(b []byte) int64 { return int64(runeCount(b)) }

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
