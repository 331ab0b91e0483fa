package columnar

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// span is a run of rows [start, end) that a filter keeps.
type span struct{ start, end int }

// keptSpans returns the runs of rows whose keep value is want and how many
// rows they hold.
func keptSpans(keep []bool, want bool) ([]span, int) {
	var out []span
	n := 0
	for i := 0; i < len(keep); {
		if keep[i] != want {
			i++
			continue
		}
		j := i + 1
		for j < len(keep) && keep[j] == want {
			j++
		}
		out = append(out, span{i, j})
		n += j - i
		i = j
	}
	return out, n
}

// filterArray returns the rows of a in spans, n of them, copying each run
// of rows at once, or false for a type it does not take (lists, maps,
// unions, dictionaries, views, types narrower than a byte but booleans).
// The caller releases the result.
func filterArray(mem memory.Allocator, a arrow.Array, spans []span, n int) (arrow.Array, bool) {
	switch a.DataType().ID() {
	case arrow.STRING, arrow.BINARY:
		return filterVarBinary[int32](mem, a, spans, n), true
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return filterVarBinary[int64](mem, a, spans, n), true
	case arrow.BOOL:
		return filterBool(mem, a, spans, n), true
	case arrow.NULL:
		return array.MakeArrayOfNull(mem, a.DataType(), n), true
	case arrow.STRUCT:
		return filterStruct(mem, a.(*array.Struct), spans, n)
	}
	fw, ok := a.DataType().(arrow.FixedWidthDataType)
	if !ok || fw.BitWidth()%8 != 0 || len(a.Data().Buffers()) != 2 {
		return nil, false
	}
	return filterFixed(mem, a, fw.BitWidth()/8, spans, n), true
}

// filtered makes the array of a's type holding the n rows of spans from
// its new value buffers and children, with the rows' validity; it takes
// over the buffers (releases them).
func filtered(mem memory.Allocator, a arrow.Array, spans []span, n int, children []arrow.ArrayData, buffers ...*memory.Buffer) arrow.Array {
	valid, nulls := filterValidity(mem, a, spans, n)
	res := array.NewData(a.DataType(), n, append([]*memory.Buffer{valid}, buffers...), children, nulls, 0)
	for _, b := range buffers {
		b.Release()
	}
	if valid != nil {
		valid.Release()
	}
	defer res.Release()
	return array.MakeFromData(res)
}

// filterValidity returns the validity bitmap of the kept rows of a and
// their nulls; nil without nulls.
func filterValidity(mem memory.Allocator, a arrow.Array, spans []span, n int) (*memory.Buffer, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	b := memory.NewResizableBuffer(mem)
	b.Resize(int(bitutil.BytesForBits(int64(n))))
	bits := b.Bytes()
	src := a.Data().Buffers()[0].Bytes()
	off := a.Data().Offset()
	pos := 0
	for _, s := range spans {
		bitutil.CopyBitmap(src, off+s.start, s.end-s.start, bits, pos)
		pos += s.end - s.start
	}
	return b, n - bitutil.CountSetBits(bits, 0, n)
}

func filterVarBinary[O int32 | int64](mem memory.Allocator, a arrow.Array, spans []span, n int) arrow.Array {
	d := a.Data()
	width := 4
	if _, ok := any(O(0)).(int64); ok {
		width = 8
	}
	var offsets []O
	if bufs := d.Buffers(); bufs[1] != nil && bufs[1].Len() > 0 {
		raw := bufs[1].Bytes()[d.Offset()*width : (d.Offset()+d.Len()+1)*width]
		if width == 4 {
			offsets = any(arrow.Int32Traits.CastFromBytes(raw)).([]O)
		} else {
			offsets = any(arrow.Int64Traits.CastFromBytes(raw)).([]O)
		}
	}
	var data []byte
	if bufs := d.Buffers(); len(bufs) > 2 && bufs[2] != nil {
		data = bufs[2].Bytes()
	}
	size := 0
	for _, s := range spans {
		size += int(offsets[s.end] - offsets[s.start])
	}
	ob := memory.NewResizableBuffer(mem)
	ob.Resize((n + 1) * width)
	db := memory.NewResizableBuffer(mem)
	db.Resize(size)
	var out []O
	if width == 4 {
		out = any(arrow.Int32Traits.CastFromBytes(ob.Bytes())).([]O)
	} else {
		out = any(arrow.Int64Traits.CastFromBytes(ob.Bytes())).([]O)
	}
	dst := db.Bytes()
	pos, at := O(0), 0
	for _, s := range spans {
		from := offsets[s.start]
		for k := s.start; k < s.end; k++ {
			out[at] = pos + offsets[k] - from
			at++
		}
		to := offsets[s.end]
		copy(dst[pos:], data[from:to])
		pos += to - from
	}
	out[n] = pos
	return filtered(mem, a, spans, n, nil, ob, db)
}

func filterFixed(mem memory.Allocator, a arrow.Array, width int, spans []span, n int) arrow.Array {
	d := a.Data()
	var src []byte
	if b := d.Buffers()[1]; b != nil {
		src = b.Bytes()[d.Offset()*width:]
	}
	vb := memory.NewResizableBuffer(mem)
	vb.Resize(n * width)
	dst := vb.Bytes()
	pos := 0
	for _, s := range spans {
		pos += copy(dst[pos:], src[s.start*width:s.end*width])
	}
	return filtered(mem, a, spans, n, nil, vb)
}

func filterBool(mem memory.Allocator, a arrow.Array, spans []span, n int) arrow.Array {
	d := a.Data()
	vb := memory.NewResizableBuffer(mem)
	vb.Resize(int(bitutil.BytesForBits(int64(n))))
	dst := vb.Bytes()
	clear(dst)
	pos := 0
	if b := d.Buffers()[1]; b != nil {
		for _, s := range spans {
			bitutil.CopyBitmap(b.Bytes(), d.Offset()+s.start, s.end-s.start, dst, pos)
			pos += s.end - s.start
		}
	}
	return filtered(mem, a, spans, n, nil, vb)
}

func filterStruct(mem memory.Allocator, a *array.Struct, spans []span, n int) (arrow.Array, bool) {
	children := make([]arrow.ArrayData, a.NumField())
	release := func() {
		for _, c := range children {
			if c != nil {
				c.Release()
			}
		}
	}
	defer release()
	for i := range a.NumField() {
		c, ok := filterArray(mem, a.Field(i), spans, n)
		if !ok {
			return nil, false
		}
		children[i] = c.Data()
		children[i].Retain()
		c.Release()
	}
	return filtered(mem, a, spans, n, children), true
}
