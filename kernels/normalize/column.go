package normalize

import (
	"bytes"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Column applies AppendText with o to every text of in. Nulls stay null.
// It returns the new column, which the caller releases, and the number of
// texts that changed; when none did, the new column is in itself.
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
// copied without calling fn. When fn changes no text, the column is in
// itself (retained); else the texts it leaves alone are copied a run of
// rows at a time.
func column(mem memory.Allocator, in *array.String, keep func(v []byte) bool, fn func(dst, v []byte) []byte) (*array.String, int64) {
	n := in.Len()
	if n == 0 {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		return b.NewStringArray(), 0
	}
	// offsets are absolute, data starts at offsets[0].
	offsets := in.ValueOffsets()
	data := in.ValueBytes()
	base := offsets[0]
	// The rows fn changes, and their new texts one after the other in side.
	type change struct{ row, end int }
	var changes []change
	var side, buf []byte
	for i := range n {
		if in.IsNull(i) {
			continue
		}
		v := data[offsets[i]-base : offsets[i+1]-base]
		if keep != nil && keep(v) {
			continue
		}
		// Room for a text the length of this one at once: fn's appends
		// then seldom grow buf.
		buf = fn(slices.Grow(buf[:0], len(v)), v)
		if !bytes.Equal(buf, v) {
			side = append(side, buf...)
			changes = append(changes, change{i, len(side)})
		}
	}
	if len(changes) == 0 {
		in.Retain()
		return in, 0
	}
	size := len(data) + len(side)
	for _, c := range changes {
		size -= int(offsets[c.row+1] - offsets[c.row])
	}
	ob := memory.NewResizableBuffer(mem)
	ob.Resize((n + 1) * arrow.Int32SizeBytes)
	out := arrow.Int32Traits.CastFromBytes(ob.Bytes())
	db := memory.NewResizableBuffer(mem)
	db.Resize(size)
	dst := db.Bytes()
	pos, row, sideAt := 0, 0, 0
	// copyRows copies the rows from row up to end as they are.
	copyRows := func(end int) {
		from := offsets[row]
		for ; row < end; row++ {
			out[row] = int32(pos) + offsets[row] - from
		}
		pos += copy(dst[pos:], data[from-base:offsets[end]-base])
	}
	for _, c := range changes {
		copyRows(c.row)
		out[row] = int32(pos)
		pos += copy(dst[pos:], side[sideAt:c.end])
		sideAt = c.end
		row++
	}
	copyRows(n)
	out[n] = int32(pos)
	var valid *memory.Buffer
	if in.NullN() > 0 {
		valid = memory.NewResizableBuffer(mem)
		valid.Resize(int(bitutil.BytesForBits(int64(n))))
		clear(valid.Bytes())
		bitutil.CopyBitmap(in.Data().Buffers()[0].Bytes(), in.Data().Offset(), n, valid.Bytes(), 0)
		defer valid.Release()
	}
	d := array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{valid, ob, db}, nil, in.NullN(), 0)
	ob.Release()
	db.Release()
	defer d.Release()
	return array.NewStringData(d), int64(len(changes))
}
