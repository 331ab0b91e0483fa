package normalize

import (
	"bytes"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Column applies AppendText with o to every text of in. Nulls stay null.
// It returns the new column, which the caller releases, and the number of
// texts that changed.
func Column(mem memory.Allocator, in *array.String, o Options) (*array.String, int64) {
	return column(mem, in, cleanASCII, func(dst, v []byte) []byte { return appendSlow(dst, v, o) })
}

// MatchFormColumn applies AppendMatchForm to every text of in. Nulls stay
// null. The caller releases the result.
func MatchFormColumn(mem memory.Allocator, in *array.String) *array.String {
	out, _ := column(mem, in, nil, AppendMatchForm)
	return out
}

// column builds the column of fn(scratch, text) over in and counts the
// texts fn changed. Texts for which keep (if not nil) reports true are
// copied without calling fn.
func column(mem memory.Allocator, in *array.String, keep func(v []byte) bool, fn func(dst, v []byte) []byte) (*array.String, int64) {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	n := in.Len()
	if n == 0 {
		return b.NewStringArray(), 0
	}
	b.Reserve(n)
	// offsets are absolute, data starts at offsets[0].
	offsets := in.ValueOffsets()
	data := in.ValueBytes()
	base := offsets[0]
	b.ReserveData(int(offsets[n] - base))
	var buf []byte
	var changed int64
	for i := range n {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		v := data[offsets[i]-base : offsets[i+1]-base]
		if keep != nil && keep(v) {
			b.BinaryBuilder.Append(v)
			continue
		}
		buf = fn(buf[:0], v)
		if !bytes.Equal(buf, v) {
			changed++
		}
		b.BinaryBuilder.Append(buf)
	}
	return b.NewStringArray(), changed
}
