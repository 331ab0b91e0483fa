package stages

import (
	"runtime"
	"sync"
	"weak"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sluice-data/sluice/kernels/quality"
)

// Quality stages that follow one another (gopher_quality, then
// gopher_repetition, then c4, then fineweb, as `sluice clean` runs them)
// read each text once between them: the first computes, in one pass over
// the texts (quality.ApplyChain), the results of the stages after it too,
// and hands them on with the text column it passes on. A stage learns which
// stage reads its output from the first batch that stage takes from it;
// until then, and whenever the column it gets is not one an earlier quality
// stage passed on (another stage in between made a new one), it computes
// its own results. Either way a stage's results are those of its own
// filter on the texts it gets: rows an earlier stage removes are not read
// again, and a stage's results for its rows are the same whichever stage
// computed them.

// handoff is what a quality stage passes on with a text column: itself,
// and the results it computed for the stages after it.
type handoff struct {
	from *Quality
	// rows maps each row of the column to its row in the results; nil when
	// they are the same rows.
	rows  []int32
	ahead []ahead
}

// ahead is the results of one stage after the one that computed them.
type ahead struct {
	stage *Quality
	res   quality.Result
}

func (h *handoff) release() {
	for _, a := range h.ahead {
		a.res.Release()
	}
	h.ahead = nil
}

// handoffs holds the handoff of each text column a quality stage passed on,
// by the column's identity; an entry goes when the next stage takes it or
// when the column is garbage.
var handoffs = struct {
	sync.Mutex
	m map[weak.Pointer[array.String]]*handoff
}{m: map[weak.Pointer[array.String]]*handoff{}}

// takeHandoff removes and returns the handoff passed on with col, or nil.
func takeHandoff(col *array.String) *handoff {
	k := weak.Make(col)
	handoffs.Lock()
	h := handoffs.m[k]
	delete(handoffs.m, k)
	handoffs.Unlock()
	return h
}

// putHandoff passes h on with col.
func putHandoff(col *array.String, h *handoff) {
	k := weak.Make(col)
	handoffs.Lock()
	old := handoffs.m[k]
	handoffs.m[k] = h
	handoffs.Unlock()
	if old != nil {
		old.release()
		return
	}
	runtime.AddCleanup(col, dropHandoff, k)
}

// dropHandoff removes the handoff of a column that is garbage.
func dropHandoff(k weak.Pointer[array.String]) {
	handoffs.Lock()
	h := handoffs.m[k]
	delete(handoffs.m, k)
	handoffs.Unlock()
	if h != nil {
		h.release()
	}
}

// chain returns q and the stages known to read its output, one after the
// other, for one pass over the texts.
func (q *Quality) chain() []*Quality {
	out := []*Quality{q}
	for next := q.next.Load(); next != nil && len(out) < 2*len(quality.Names); next = next.next.Load() {
		for _, s := range out {
			if s == next {
				return out
			}
		}
		out = append(out, next)
	}
	return out
}

// results returns the results of q's filter for text, the column of the
// batch q got, with the results q computed for the stages after it; h is
// the handoff that came with text, if any.
func (q *Quality) results(mem memory.Allocator, text *array.String, h *handoff) (quality.Result, []ahead, []int32, error) {
	if h != nil {
		if h.from != q {
			h.from.next.CompareAndSwap(nil, q)
		}
		if len(h.ahead) > 0 && h.ahead[0].stage == q {
			res, rest, rows := h.ahead[0].res, h.ahead[1:], h.rows
			if rows != nil {
				mine := takeResult(mem, res, rows)
				res.Release()
				res = mine
			}
			return res, rest, rows, nil
		}
		h.release()
	}
	stages := q.chain()
	filters := make([]quality.Filter, len(stages))
	for k, s := range stages {
		filters[k] = s.filter
	}
	rs, err := quality.ApplyChain(mem, text, filters)
	if err != nil {
		return quality.Result{}, nil, nil, err
	}
	var rest []ahead
	for k, s := range stages[1:] {
		rest = append(rest, ahead{stage: s, res: rs[k+1]})
	}
	return rs[0], rest, nil, nil
}

// passOn hands rest on with the text column of out, the batch q passes on,
// whose rows are those of keep (nil: all of them) among q's input rows,
// which are rows of the results.
func (q *Quality) passOn(out arrow.RecordBatch, keep []bool, rows []int32, rest []ahead) {
	text, _, err := textColumn(out, q.textField)
	if err != nil {
		for _, a := range rest {
			a.res.Release()
		}
		return
	}
	if keep != nil {
		all := true
		for _, k := range keep {
			all = all && k
		}
		if !all {
			var kept []int32
			for i, k := range keep {
				if !k {
					continue
				}
				r := int32(i)
				if rows != nil {
					r = rows[i]
				}
				kept = append(kept, r)
			}
			rows = kept
		}
	}
	putHandoff(text, &handoff{from: q, rows: rows, ahead: rest})
}

// takeResult returns the rows of r, in order.
func takeResult(mem memory.Allocator, r quality.Result, rows []int32) quality.Result {
	out := quality.Result{Fail: make([]string, len(rows))}
	for i, j := range rows {
		out.Fail[i] = r.Fail[j]
	}
	for _, s := range r.Signals {
		out.Signals = append(out.Signals, takeFixed(mem, s, rows))
	}
	if r.Rewritten != nil {
		out.Rewritten = takeStrings(mem, r.Rewritten, rows)
	}
	return out
}

// takeFixed returns the rows of a, an int64 or float64 array.
func takeFixed(mem memory.Allocator, a arrow.Array, rows []int32) arrow.Array {
	const width = 8
	values := a.Data().Buffers()[1].Bytes()[a.Data().Offset()*width:]
	vb := memory.NewResizableBuffer(mem)
	vb.Resize(len(rows) * width)
	dst := vb.Bytes()
	for i, j := range rows {
		copy(dst[i*width:(i+1)*width], values[int(j)*width:(int(j)+1)*width])
	}
	valid, nulls := takeValidity(mem, a, rows)
	d := array.NewData(a.DataType(), len(rows), []*memory.Buffer{valid, vb}, nil, nulls, 0)
	vb.Release()
	if valid != nil {
		valid.Release()
	}
	defer d.Release()
	return array.MakeFromData(d)
}

// takeStrings returns the rows of a, copying each run of consecutive rows
// at once.
func takeStrings(mem memory.Allocator, a *array.String, rows []int32) *array.String {
	offsets := a.ValueOffsets()
	data := a.ValueBytes()
	base := offsets[0]
	size := 0
	for _, j := range rows {
		size += int(offsets[j+1] - offsets[j])
	}
	ob := memory.NewResizableBuffer(mem)
	ob.Resize((len(rows) + 1) * arrow.Int32SizeBytes)
	outOff := arrow.Int32Traits.CastFromBytes(ob.Bytes())
	db := memory.NewResizableBuffer(mem)
	db.Resize(size)
	dst := db.Bytes()
	pos := int32(0)
	for i := 0; i < len(rows); {
		// A run of rows that follow one another in a.
		j := i + 1
		for j < len(rows) && rows[j] == rows[j-1]+1 {
			j++
		}
		from, to := offsets[rows[i]], offsets[rows[j-1]+1]
		copy(dst[pos:], data[from-base:to-base])
		for k := i; k < j; k++ {
			outOff[k] = pos + offsets[rows[k]] - from
		}
		pos += to - from
		i = j
	}
	outOff[len(rows)] = pos
	valid, nulls := takeValidity(mem, a, rows)
	d := array.NewData(arrow.BinaryTypes.String, len(rows), []*memory.Buffer{valid, ob, db}, nil, nulls, 0)
	ob.Release()
	db.Release()
	if valid != nil {
		valid.Release()
	}
	defer d.Release()
	return array.NewStringData(d)
}

// takeValidity returns the validity bitmap of the rows of a and their
// nulls; nil without nulls.
func takeValidity(mem memory.Allocator, a arrow.Array, rows []int32) (*memory.Buffer, int) {
	if a.NullN() == 0 {
		return nil, 0
	}
	b := memory.NewResizableBuffer(mem)
	b.Resize(int(bitutil.BytesForBits(int64(len(rows)))))
	bits := b.Bytes()
	clear(bits)
	nulls := 0
	for i, j := range rows {
		if a.IsValid(int(j)) {
			bitutil.SetBit(bits, i)
		} else {
			nulls++
		}
	}
	return b, nulls
}
