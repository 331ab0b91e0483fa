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

// applyRows runs row over every non-null text of the column, with scratch
// state from pool, and collects the signals and fail reasons: the Apply of
// the filters that judge each text on its own.
func applyRows[S any](mem memory.Allocator, text *array.String, specs []signal, pool *sync.Pool,
	row func(text []byte, s *S, out *outputs, i int) string) Result {
	col := newColumn(mem, text)
	defer col.release()
	out := newOutputs(mem, specs, col.n)
	fail := make([]string, col.n)
	s := pool.Get().(*S)
	defer pool.Put(s)
	for i := range col.n {
		if t, ok := col.text(i); ok {
			fail[i] = row(t, s, out, i)
		}
	}
	return Result{Signals: out.arrays(&col), Fail: fail}
}
