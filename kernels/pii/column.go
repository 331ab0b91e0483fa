package pii

import (
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Column masks every text of in and returns the masked column and one
// count column per kind of m, in the order of m.Kinds(), holding the
// number of replacements in each text. A null text gives a null text and
// null counts. The caller releases all the results; in is left alone.
// When no text holds a match, the masked column is in itself; else the
// texts without one are copied a run of rows at a time.
//
// Column panics if the masked texts exceed the 2 GiB that a string column
// can hold (replacement tokens are longer than the shortest matches); keep
// batches well below that.
func (m *Masker) Column(mem memory.Allocator, in *array.String) (*array.String, []*array.Int64) {
	n := in.Len()
	nulls := in.NullN()

	var valid *memory.Buffer
	if nulls > 0 {
		valid = memory.NewResizableBuffer(mem)
		defer valid.Release()
		valid.Resize(int(bitutil.BytesForBits(int64(n))))
		clear(valid.Bytes())
		bitutil.CopyBitmap(in.Data().Buffers()[0].Bytes(), in.Data().Offset(), n, valid.Bytes(), 0)
	}

	offBuf := memory.NewResizableBuffer(mem)
	defer offBuf.Release()
	offBuf.Resize((n + 1) * arrow.Int32SizeBytes)
	outOff := arrow.Int32Traits.CastFromBytes(offBuf.Bytes())

	countBufs := make([]*memory.Buffer, len(m.kinds))
	counts := make([][]int64, len(m.kinds))
	for j := range m.kinds {
		countBufs[j] = memory.NewResizableBuffer(mem)
		defer countBufs[j].Release()
		countBufs[j].Resize(n * arrow.Int64SizeBytes)
		clear(countBufs[j].Bytes())
		counts[j] = arrow.Int64Traits.CastFromBytes(countBufs[j].Bytes())
	}

	var offsets []int32
	var data []byte
	var base int32
	first := n // the first row with a match
	if n > 0 {
		// offsets are absolute, data starts at offsets[0].
		offsets = in.ValueOffsets()
		data = in.ValueBytes()
		base = offsets[0]
		for i := range n {
			if nulls > 0 && !bitutil.BitIsSet(valid.Bytes(), i) {
				continue
			}
			if m.has(data[offsets[i]-base : offsets[i+1]-base]) {
				first = i
				break
			}
		}
	}
	if first == n {
		// Nothing to mask: the column is its own masked copy.
		in.Retain()
		return in, m.countColumns(n, nulls, valid, countBufs)
	}

	dataBuf := memory.NewResizableBuffer(mem)
	defer dataBuf.Release()
	dataBuf.Reserve(len(data) + len(data)/16 + 64)
	out := dataBuf.Buf()[:0]
	// grow makes room in the buffer for need bytes in all.
	grow := func(need int) {
		if need > cap(out) {
			dataBuf.ResizeNoShrink(len(out))
			dataBuf.Reserve(max(need, 2*cap(out)))
			out = dataBuf.Buf()[:len(out)]
		}
	}
	// Rows without a match are copied a run at a time: rows from plain on.
	plain := 0
	flush := func(end int) {
		from := offsets[plain]
		grow(len(out) + int(offsets[end]-from) + 64)
		at := int32(len(out)) - from
		for ; plain < end; plain++ {
			outOff[plain] = at + offsets[plain]
		}
		out = append(out, data[from-base:offsets[end]-base]...)
	}
	for i := first; i < n; i++ {
		if nulls > 0 && !bitutil.BitIsSet(valid.Bytes(), i) {
			continue
		}
		v := data[offsets[i]-base : offsets[i+1]-base]
		if i > first && !m.has(v) {
			continue
		}
		flush(i)
		plain = i + 1
		outOff[i] = int32(len(out))
		grow(len(out) + len(v) + 64)
		masked, c := m.AppendMasked(out, v)
		if cap(masked) != cap(out) {
			// append outgrew the buffer and moved the text to the Go
			// heap: bring it back.
			dataBuf.ResizeNoShrink(len(out))
			dataBuf.Reserve(max(len(masked)+64, 2*cap(out)))
			buf := dataBuf.Buf()
			copy(buf[len(out):], masked[len(out):])
			masked = buf[:len(masked)]
		}
		out = masked
		if len(out) > math.MaxInt32 {
			panic("pii: masked column exceeds 2 GiB; use smaller batches")
		}
		for j, k := range m.kinds {
			counts[j][i] = int64(c[k])
		}
	}
	flush(n)
	if len(out) > math.MaxInt32 {
		panic("pii: masked column exceeds 2 GiB; use smaller batches")
	}
	outOff[n] = int32(len(out))
	dataBuf.ResizeNoShrink(len(out))

	sd := array.NewData(arrow.BinaryTypes.String, n, []*memory.Buffer{valid, offBuf, dataBuf}, nil, nulls, 0)
	defer sd.Release()
	return array.NewStringData(sd), m.countColumns(n, nulls, valid, countBufs)
}

// countColumns makes the count columns of a column of n rows.
func (m *Masker) countColumns(n, nulls int, valid *memory.Buffer, countBufs []*memory.Buffer) []*array.Int64 {
	cols := make([]*array.Int64, len(m.kinds))
	for j := range m.kinds {
		d := array.NewData(arrow.PrimitiveTypes.Int64, n, []*memory.Buffer{valid, countBufs[j]}, nil, nulls, 0)
		cols[j] = array.NewInt64Data(d)
		d.Release()
	}
	return cols
}

// has reports whether src holds a match.
func (m *Masker) has(src []byte) bool {
	var f finder
	_, start, _ := m.next(&f, src)
	return start >= 0
}
