package stages

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/kernels/quality"
	"github.com/sluice-data/sluice/pipeline"
)

// Quality runs one published rule set (gopher_quality, gopher_repetition,
// c4, fineweb) over the text column.
type Quality struct {
	textField string
	annotate  bool
	filter    quality.Filter
	config    quality.Config
	rules     any // the rule set's part of config, a pointer into it
	fields    []arrow.Field
	// next is the quality stage seen to read this one's output: this one
	// computes its results too (see handoff).
	next atomic.Pointer[Quality]
}

// NewQuality returns the stage for the rule set name with config c.
func NewQuality(textField, name string, c quality.Config, annotate bool) (*Quality, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	f, err := quality.New(name, c)
	if err != nil {
		return nil, err
	}
	q := &Quality{textField: textField, annotate: annotate, filter: f, config: c}
	if q.rules, err = RuleSetConfig(&q.config, f.Name()); err != nil {
		return nil, err
	}
	// The signal types come from running the filter on no rows.
	mem := memory.NewGoAllocator()
	empty := columnar.Strings(mem, nil, false)
	defer empty.Release()
	res, err := f.Apply(mem, empty)
	if err != nil {
		return nil, err
	}
	for i, name := range f.Signals() {
		q.fields = append(q.fields, arrow.Field{Name: name, Type: res.Signals[i].DataType(), Nullable: true})
		res.Signals[i].Release()
	}
	if res.Rewritten != nil {
		res.Rewritten.Release()
	}
	return q, nil
}

func (q *Quality) Name() string { return q.filter.Name() }
func (q *Quality) Config() any  { return q.rules }

func (q *Quality) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	if err := checkTextField(in, q.textField); err != nil {
		return nil, err
	}
	if !q.annotate {
		return in, nil
	}
	return annotatedSchema(in, q.signalFields()), nil
}

func (q *Quality) signalFields() []arrow.Field { return q.fields }

func (q *Quality) Process(ctx context.Context, mem memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, idx, err := textColumn(rec, q.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	res, rest, err := q.results(mem, text, takeHandoff(text))
	if err != nil {
		return pipeline.Result{}, err
	}
	defer func() {
		for _, s := range res.Signals {
			s.Release()
		}
	}()
	rewritten := rec
	if res.Rewritten != nil {
		rewritten = columnar.SetColumns(rec, []arrow.Field{rec.Schema().Field(idx)}, []arrow.Array{res.Rewritten})
		res.Rewritten.Release()
		defer rewritten.Release()
	}
	out, err := q.decide(ctx, mem, rec, rewritten, res)
	if err != nil {
		for _, a := range rest {
			a.res.Release()
		}
		return pipeline.Result{}, err
	}
	q.passOn(out.Kept, rest)
	return out, nil
}

// decide splits the rows by the filter's verdict. A kept row goes on with
// its text as the filter rewrote it; a removed row keeps the text it was
// judged on (a C4 row whose every line was dropped is removed with its
// lines, not with the empty text left of them). In annotate mode every
// row goes on, rewritten.
func (q *Quality) decide(ctx context.Context, mem memory.Allocator, judged, rewritten arrow.RecordBatch, res quality.Result) (pipeline.Result, error) {
	if q.annotate || judged == rewritten {
		return decide(ctx, mem, q.filter.Name(), rewritten, res.Fail, q.annotate, q.signalFields(), res.Signals)
	}
	keep, failed := keepMask(res.Fail)
	kept, err := columnar.Filter(ctx, mem, rewritten, keep, true)
	if err != nil {
		return pipeline.Result{}, err
	}
	removed, err := columnar.Filter(ctx, mem, judged, keep, false)
	if err != nil {
		kept.Release()
		return pipeline.Result{}, err
	}
	return pipeline.Result{Kept: kept, Removed: removed, Reasons: failed, Keep: keep}, nil
}

// RuleSetConfig returns a pointer to the field of c that configures the
// rule set name: the field whose yaml key is the name.
func RuleSetConfig(c *quality.Config, name string) (any, error) {
	v := reflect.ValueOf(c).Elem()
	for i := 0; i < v.NumField(); i++ {
		if strings.Split(v.Type().Field(i).Tag.Get("yaml"), ",")[0] == name {
			return v.Field(i).Addr().Interface(), nil
		}
	}
	return nil, fmt.Errorf("quality.Config has no field for rule set %q", name)
}
