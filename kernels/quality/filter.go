package quality

import (
	"fmt"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Names lists the filters in the order a pipeline evaluates them.
var Names = []string{"gopher_quality", "gopher_repetition", "c4", "fineweb"}

// Filter is one published rule set applied to a text column.
//
// A Filter is immutable once built and safe for concurrent use: Apply keeps
// its per-call state in pooled scratch space, never in the Filter.
type Filter interface {
	// Name is the rule set's name, one of Names.
	Name() string
	// Signals names the columns Apply adds, in the order of Result.Signals.
	// The order is also the order in which the rules are checked.
	Signals() []string
	// Apply computes the signals of every row of text, and for each row the
	// first rule it fails. The caller releases the arrays of the Result; text
	// is left alone and may be released as soon as Apply returns.
	Apply(mem memory.Allocator, text *array.String) (Result, error)
}

// Result is what a Filter computes for a column of n texts.
type Result struct {
	// Signals are n-row columns named by Filter.Signals: int64 for counts,
	// float64 for lengths, ratios and fractions. A null text gives null
	// signals.
	Signals []arrow.Array
	// Fail holds, for each row, the name of the first rule the text fails,
	// or "" when it passes every rule. A null text is not judged: its entry
	// is "" and what a missing text means is up to the stage that reads the
	// column.
	Fail []string
	// Rewritten is non-nil for filters that rewrite text (C4's line filter):
	// the text of each row after the filter, null for a null text. In filter
	// mode the caller keeps the rewritten text instead of the original.
	Rewritten *array.String
}

// Release releases the arrays of r.
func (r *Result) Release() {
	for _, a := range r.Signals {
		if a != nil {
			a.Release()
		}
	}
	r.Signals = nil
	if r.Rewritten != nil {
		r.Rewritten.Release()
		r.Rewritten = nil
	}
}

// New returns the filter called name, one of Names, configured by the
// matching section of c. It fails if that section does not validate.
func New(name string, c Config) (Filter, error) {
	var errs []error
	switch name {
	case "gopher_quality":
		errs = c.GopherQuality.validate(nil)
		if len(errs) == 0 {
			return newGopherQuality(c.GopherQuality), nil
		}
	case "gopher_repetition":
		errs = c.GopherRepetition.validate(nil)
		if len(errs) == 0 {
			return newGopherRepetition(c.GopherRepetition), nil
		}
	case "c4":
		errs = c.C4.validate(nil)
		if len(errs) == 0 {
			return newC4(c.C4), nil
		}
	case "fineweb":
		errs = c.FineWeb.validate(nil)
		if len(errs) == 0 {
			return newFineWeb(c.FineWeb), nil
		}
	default:
		return nil, fmt.Errorf("quality: unknown filter %q (want one of %s)", name, strings.Join(Names, ", "))
	}
	return nil, joinErrors(errs)
}

// signal describes one output column.
type signal struct {
	name string
	kind arrow.Type // arrow.INT64 or arrow.FLOAT64
}

func signalNames(specs []signal) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.name
	}
	return out
}

// column gives row access to a string array, sliced or not: ValueOffsets
// are absolute while ValueBytes starts at the first offset.
type column struct {
	n       int
	offsets []int32
	data    []byte
	base    int32
	nulls   int
	valid   *memory.Buffer // the validity bitmap from bit 0, nil without nulls
}

func newColumn(mem memory.Allocator, in *array.String) column {
	c := column{n: in.Len(), offsets: in.ValueOffsets(), data: in.ValueBytes(), nulls: in.NullN()}
	if c.n > 0 {
		c.base = c.offsets[0]
	}
	if c.nulls > 0 {
		c.valid = memory.NewResizableBuffer(mem)
		c.valid.Resize(int(bitutil.BytesForBits(int64(c.n))))
		clear(c.valid.Bytes())
		bitutil.CopyBitmap(in.Data().Buffers()[0].Bytes(), in.Data().Offset(), c.n, c.valid.Bytes(), 0)
	}
	return c
}

// text returns the bytes of row i, and false for a null row.
func (c *column) text(i int) ([]byte, bool) {
	if c.valid != nil && !bitutil.BitIsSet(c.valid.Bytes(), i) {
		return nil, false
	}
	return c.data[c.offsets[i]-c.base : c.offsets[i+1]-c.base], true
}

func (c *column) release() {
	if c.valid != nil {
		c.valid.Release()
		c.valid = nil
	}
}

// outputs holds the value buffers of a filter's signal columns while Apply
// fills them.
type outputs struct {
	specs []signal
	bufs  []*memory.Buffer
	f     [][]float64 // f[k] for FLOAT64 signals
	i     [][]int64   // i[k] for INT64 signals
}

func newOutputs(mem memory.Allocator, specs []signal, n int) *outputs {
	o := &outputs{specs: specs, bufs: make([]*memory.Buffer, len(specs)), f: make([][]float64, len(specs)), i: make([][]int64, len(specs))}
	for k, s := range specs {
		b := memory.NewResizableBuffer(mem)
		b.Resize(n * 8)
		clear(b.Bytes())
		o.bufs[k] = b
		if s.kind == arrow.FLOAT64 {
			o.f[k] = arrow.Float64Traits.CastFromBytes(b.Bytes())
		} else {
			o.i[k] = arrow.Int64Traits.CastFromBytes(b.Bytes())
		}
	}
	return o
}

// arrays turns the buffers into arrays sharing the column's validity.
func (o *outputs) arrays(c *column) []arrow.Array {
	out := make([]arrow.Array, len(o.specs))
	for k, s := range o.specs {
		var dt arrow.DataType = arrow.PrimitiveTypes.Int64
		if s.kind == arrow.FLOAT64 {
			dt = arrow.PrimitiveTypes.Float64
		}
		d := array.NewData(dt, c.n, []*memory.Buffer{c.valid, o.bufs[k]}, nil, c.nulls, 0)
		out[k] = array.MakeFromData(d)
		d.Release()
		o.bufs[k].Release()
	}
	o.bufs = nil
	return out
}

// runner computes one rule set's signals for the rows of one column.
type runner interface {
	// row computes the signals of row i, a text that v views, and returns
	// the first rule the text fails. Rows come in increasing order; null
	// rows are skipped.
	row(v *view, s *scratch, i int) string
	// after returns the view of row i's text as the rule set left it, for
	// rule sets that rewrite text, or nil.
	after() *view
	// result returns the signals (and the rewritten text) once every row
	// ran, with the fail reasons the caller collected.
	result(col *column, fail []string) Result
}

// kernel is implemented by the filters of this package.
type kernel interface {
	Filter
	// start returns the runner of the filter for col; views are the
	// rewritten texts' views it may use, its own for each filter of a
	// chain.
	start(mem memory.Allocator, col *column, after *view) runner
}

// scratch is the state one Apply reuses from row to row: the views of the
// text (the first for the input, one more after each rewriting filter) and
// each rule set's own. It comes from a pool, so that a worker that has seen
// large texts reads more without allocating.
type scratch struct {
	views []*view
	// hashWords asks gopher_quality to hash the words of a text for
	// gopher_repetition, which runs after it in the chain.
	hashWords bool
	// decideOnly tells the filters that their signals are not wanted,
	// only their decisions: they may stop measuring once the decision is
	// known (C4 counts sentences up to its minimum).
	decideOnly bool
	gq         gopherQualityScratch
	gr         gopherRepetitionScratch
	c4         c4Scratch
	fw         fineWebScratch
}

var scratchPool = sync.Pool{New: func() any { return &scratch{gq: gopherQualityScratch{caser: lowerCaser()}} }}

// view returns the scratch's view number k.
func (s *scratch) view(k int) *view {
	for len(s.views) <= k {
		s.views = append(s.views, new(view))
	}
	return s.views[k]
}

// ApplyChain runs filters, made by New, over every text of the column, as
// consecutive stages would run them in annotate mode: each filter reads
// the text as the filters before it left it (C4 rewrites it), and all of
// them read every text, whether an earlier one failed it or not. It
// returns one Result a filter, each as its Apply would return it for the
// texts it reads.
//
// A text is split into words and lines once, and the lines hashed once,
// for all the filters that read it: after C4, the next filters read the
// lines C4 kept, which it knows, and their hashes and words come from the
// text before.
func ApplyChain(mem memory.Allocator, text *array.String, filters []Filter) ([]Result, error) {
	return chain(mem, text, filters, false)
}

// ApplyChainKept is ApplyChain as stages in filter mode run the filters:
// each filter reads only the texts that every filter before it passed (and
// the null ones), and its Result has a row for each of them, in order. The
// Results have no Signals: a stage in filter mode writes none, and the
// filters measure only what their decisions need.
func ApplyChainKept(mem memory.Allocator, text *array.String, filters []Filter) ([]Result, error) {
	return chain(mem, text, filters, true)
}

func chain(mem memory.Allocator, text *array.String, filters []Filter, kept bool) ([]Result, error) {
	ks := make([]kernel, len(filters))
	for k, f := range filters {
		kf, ok := f.(kernel)
		if !ok {
			return nil, fmt.Errorf("quality: filter %s was not made by New", f.Name())
		}
		ks[k] = kf
	}
	return applyChain(mem, text, ks, kept), nil
}

// applyChain is ApplyChain, or ApplyChainKept with kept, for filters of
// this package.
func applyChain(mem memory.Allocator, text *array.String, ks []kernel, kept bool) []Result {
	col := newColumn(mem, text)
	defer col.release()
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	s.hashWords, s.decideOnly = false, kept
	for k, f := range ks {
		if _, ok := f.(*gopherRepetition); ok && k > 0 {
			s.hashWords = true
		}
	}
	runs := make([]runner, len(ks))
	fails := make([][]string, len(ks))
	// The rows each filter reads: with kept, the filters after the first
	// read fewer rows, and their columns get validity bitmaps of their own.
	cols := make([]column, len(ks))
	views := 1
	for k, f := range ks {
		cols[k] = column{n: 0, nulls: 0}
		if k > 0 && kept && col.valid != nil {
			cols[k].valid = memory.NewResizableBuffer(mem)
			cols[k].valid.Resize(col.valid.Len())
			clear(cols[k].valid.Bytes())
		}
		runs[k] = f.start(mem, &col, s.view(views))
		if runs[k].after() != nil {
			views++
		}
		fails[k] = make([]string, col.n)
	}
	first := s.view(0)
	for i := range col.n {
		t, ok := col.text(i)
		if !ok {
			for k := range runs {
				cols[k].n++
				cols[k].nulls++
			}
			continue
		}
		v := first
		v.reset(t)
		for k, r := range runs {
			j := cols[k].n
			cols[k].n++
			if cols[k].valid != nil && (k > 0 && kept) {
				bitutil.SetBit(cols[k].valid.Bytes(), j)
			}
			fails[k][j] = r.row(v, s, j)
			if kept && fails[k][j] != "" {
				break
			}
			if a := r.after(); a != nil {
				v = a
			}
		}
	}
	out := make([]Result, len(ks))
	for k, r := range runs {
		c := &col
		if k > 0 && kept {
			c = &cols[k]
			if c.valid == nil {
				c.nulls = 0
			}
		}
		out[k] = r.result(c, fails[k][:c.n])
		if kept {
			for _, a := range out[k].Signals {
				a.Release()
			}
			out[k].Signals = nil
		}
		if c != &col {
			c.release()
		}
	}
	return out
}

// applyOne is the Apply of a filter of this package: a chain of one.
func applyOne(mem memory.Allocator, text *array.String, f kernel) (Result, error) {
	return applyChain(mem, text, []kernel{f}, false)[0], nil
}

// signalRunner is the part of a runner that fills the signal columns.
type signalRunner struct {
	out *outputs
}

func (r *signalRunner) after() *view { return nil }

func (r *signalRunner) result(col *column, fail []string) Result {
	return Result{Signals: r.out.arrays(col), Fail: fail}
}
