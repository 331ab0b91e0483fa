package stages

import (
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sluice-data/sluice/kernels/quality"
)

// Quality stages that follow one another (gopher_quality, then
// gopher_repetition, then c4, then fineweb, as `sluice clean` runs them)
// read each text once between them: the first computes, in one pass over
// the texts (quality.ApplyChainKept in filter mode, quality.ApplyChain in
// annotate mode), the results of the stages after it too, each for the
// rows that stage gets, and hands them on with the text column it passes
// on. A stage learns which
// stage reads its output from the first batch that stage takes from it;
// until then, and whenever the column it gets is not one an earlier quality
// stage passed on (another stage in between made a new one), it computes
// its own results. Either way a stage's results are those of its own
// filter on the texts it gets: rows an earlier stage removes are not read
// again, and a stage's results for its rows are the same whichever stage
// computed them.

// handoff is what a quality stage passes on with a text column: itself,
// and the results it computed for the stages after it, each for the rows
// that stage gets: the rows of the column for the next one.
type handoff struct {
	from  *Quality
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
// other, in q's mode, for one pass over the texts.
func (q *Quality) chain() []*Quality {
	out := []*Quality{q}
	for next := q.next.Load(); next != nil && next.annotate == q.annotate && len(out) < 2*len(quality.Names); next = next.next.Load() {
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
func (q *Quality) results(mem memory.Allocator, text *array.String, h *handoff) (quality.Result, []ahead, error) {
	if h != nil {
		if h.from != q {
			h.from.next.CompareAndSwap(nil, q)
		}
		if len(h.ahead) > 0 && h.ahead[0].stage == q && len(h.ahead[0].res.Fail) == text.Len() {
			// The results after this one go on in a slice of their own: a
			// subslice would share h's array, which holds this result and
			// through it the column this stage passes on, the key of the
			// next handoff, which could then never be collected.
			var rest []ahead
			if len(h.ahead) > 1 {
				rest = slices.Clone(h.ahead[1:])
			}
			res := h.ahead[0].res
			h.ahead = nil
			return res, rest, nil
		}
		h.release()
	}
	stages := q.chain()
	filters := make([]quality.Filter, len(stages))
	for k, s := range stages {
		filters[k] = s.filter
	}
	apply := quality.ApplyChainKept
	if q.annotate {
		apply = quality.ApplyChain
	}
	rs, err := apply(mem, text, filters)
	if err != nil {
		return quality.Result{}, nil, err
	}
	var rest []ahead
	for k, s := range stages[1:] {
		rest = append(rest, ahead{stage: s, res: rs[k+1]})
	}
	return rs[0], rest, nil
}

// passOn hands rest on with the text column of out, the batch q passes on.
// In filter mode, the results of the next stage are for the rows q kept;
// in annotate mode q keeps every row.
func (q *Quality) passOn(out arrow.RecordBatch, rest []ahead) {
	text, _, err := textColumn(out, q.textField)
	if err != nil {
		for _, a := range rest {
			a.res.Release()
		}
		return
	}
	putHandoff(text, &handoff{from: q, ahead: rest})
}
