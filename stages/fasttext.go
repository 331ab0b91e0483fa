package stages

import (
	"context"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/kernels/fasttext"
	"github.com/sluice-data/sluice/pipeline"
)

// predictors hands each worker a fastText predictor of one shared model;
// a free list keeps their buffers from batch to batch.
type predictors struct {
	model *fasttext.Model
	free  chan *fasttext.Predictor
}

func newPredictors(m *fasttext.Model) *predictors {
	return &predictors{model: m, free: make(chan *fasttext.Predictor, 256)}
}

func (ps *predictors) get() *fasttext.Predictor {
	select {
	case p := <-ps.free:
		return p
	default:
		return ps.model.NewPredictor()
	}
}

func (ps *predictors) put(p *fasttext.Predictor) {
	select {
	case ps.free <- p:
	default:
	}
}

// labelPrediction is what a fastText stage records for one row: a label
// index (-1 for none) and a probability in [0, 1].
type labelPrediction struct {
	label int
	prob  float32
}

// predictColumn predicts every value of text: its top label, and the
// probability of that label or, with want >= 0, of label want (0 when the
// model gives want too little probability to report it). Null texts, and
// texts in which the model finds no feature, get label -1.
func (ps *predictors) predictColumn(text *array.String, want int) []labelPrediction {
	p := ps.get()
	defer ps.put(p)
	k := 1
	if want >= 0 {
		k = -1
	}
	out := make([]labelPrediction, text.Len())
	var preds []fasttext.Prediction
	for i := range out {
		out[i] = labelPrediction{label: -1}
		if text.IsNull(i) {
			continue
		}
		preds = p.Predict(valueBytes(text, i), k, 0, preds)
		if len(preds) == 0 {
			continue
		}
		out[i].label = preds[0].Label
		if want < 0 {
			out[i].prob = preds[0].Prob
		}
		for _, pr := range preds {
			if pr.Label == want {
				out[i].prob = pr.Prob
			}
		}
		// fastText reports p + 1e-5, which can exceed 1.
		out[i].prob = min(out[i].prob, 1)
	}
	return out
}

// labelColumns builds the label and score columns of preds, naming label
// i names[i]; rows without a label are null in both.
func labelColumns(mem memory.Allocator, preds []labelPrediction, names []string) (*array.String, *array.Float64) {
	lb := array.NewStringBuilder(mem)
	defer lb.Release()
	sb := array.NewFloat64Builder(mem)
	defer sb.Release()
	lb.Reserve(len(preds))
	sb.Reserve(len(preds))
	for _, p := range preds {
		if p.label < 0 {
			lb.AppendNull()
			sb.AppendNull()
			continue
		}
		lb.Append(names[p.label])
		sb.Append(shortestFloat(p.prob))
	}
	return lb.NewStringArray(), sb.NewFloat64Array()
}

// shortestFloat widens a float32 to the float64 its shortest decimal form
// names (0.92918926, not 0.9291892647743225), so that the score reads
// the same in every output format.
func shortestFloat(f float32) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(float64(f), 'g', -1, 32), 64)
	return v
}

// shortLabel drops fastText's label prefix: "__label__hq" -> "hq".
func shortLabel(l string) string { return strings.TrimPrefix(l, "__label__") }

// labelSchema is the output schema of a fastText stage adding fields to
// in: with keep and drop_reason when it filters in annotate mode.
func labelSchema(in *arrow.Schema, textField string, fields []arrow.Field, filtering, annotate bool) (*arrow.Schema, error) {
	if err := checkTextField(in, textField); err != nil {
		return nil, err
	}
	if filtering && annotate {
		return annotatedSchema(in, fields), nil
	}
	return columnar.SetSchemaFields(in, fields), nil
}

// labelResult adds the label and score columns cols to rec and decides on
// its rows by reasons (nil: annotate only, every row kept). In filter mode
// the columns stay on the removed rows too. The caller releases rec and
// cols.
func labelResult(ctx context.Context, mem memory.Allocator, stage string, rec arrow.RecordBatch, reasons []string,
	annotate bool, fields []arrow.Field, cols []arrow.Array) (pipeline.Result, error) {
	if reasons == nil {
		return pipeline.Result{Kept: columnar.SetColumns(rec, fields, cols)}, nil
	}
	if annotate {
		return decide(ctx, mem, stage, rec, reasons, true, fields, cols)
	}
	withCols := columnar.SetColumns(rec, fields, cols)
	defer withCols.Release()
	return decide(ctx, mem, stage, withCols, reasons, false, nil, nil)
}
