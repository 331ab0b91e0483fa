package stages

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/kernels/normalize"
	"github.com/sluice-data/sluice/pipeline"
)

// NormalizeParams are the normalize stage's parameters.
type NormalizeParams struct {
	Form        string `yaml:"form" json:"form"` // nfc or nfkc
	FixMojibake bool   `yaml:"fix_mojibake" json:"fix_mojibake"`
}

// Normalize rewrites the text column in its normal form; it removes
// nothing.
type Normalize struct {
	textField string
	params    NormalizeParams
	opts      normalize.Options
}

// NewNormalize returns the normalize stage.
func NewNormalize(textField string, p NormalizeParams) (*Normalize, error) {
	if p.Form == "" {
		p.Form = "nfc"
	}
	form, err := normalize.ParseForm(p.Form)
	if err != nil {
		return nil, err
	}
	return &Normalize{textField: textField, params: p, opts: normalize.Options{Form: form, FixMojibake: p.FixMojibake}}, nil
}

func (n *Normalize) Name() string { return "normalize" }
func (n *Normalize) Config() any  { return n.params }

func (n *Normalize) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return in, checkTextField(in, n.textField)
}

func (n *Normalize) Process(_ context.Context, mem memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, idx, err := textColumn(rec, n.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	out, _ := normalize.Column(mem, text, n.opts)
	defer out.Release()
	return pipeline.Result{Kept: columnar.SetColumns(rec, []arrow.Field{rec.Schema().Field(idx)}, []arrow.Array{out})}, nil
}
