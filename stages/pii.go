package stages

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/kernels/pii"
	"github.com/sluice-data/sluice/pipeline"
)

// PIIParams are the pii stage's parameters.
type PIIParams struct {
	Kinds       []string          `yaml:"kinds" json:"kinds" limit:"[0,100]"`             // email, phone, ip
	Replacement map[string]string `yaml:"replacement" json:"replacement" limit:"[0,100]"` // kind -> token
}

// PII masks e-mail addresses, phone numbers and IP addresses in the text
// column and adds one count column per kind (pii_email, pii_phone,
// pii_ip); it removes nothing.
type PII struct {
	textField string
	params    PIIParams
	masker    *pii.Masker
	fields    []arrow.Field
}

// NewPII returns the pii stage.
func NewPII(textField string, p PIIParams) (*PII, error) {
	if len(p.Kinds) == 0 {
		p.Kinds = []string{"email", "phone", "ip"}
	}
	var kinds []pii.Kind
	for _, name := range p.Kinds {
		k, err := pii.ParseKinds(name)
		if err != nil {
			return nil, err
		}
		kinds = append(kinds, k...)
	}
	repl := map[pii.Kind]string{}
	for name, tok := range p.Replacement {
		k, err := pii.ParseKinds(name)
		if err != nil {
			return nil, fmt.Errorf("replacement: %w", err)
		}
		if tok == "" {
			return nil, fmt.Errorf("replacement for %s is empty", name)
		}
		repl[k[0]] = tok
	}
	m, err := pii.NewMasker(pii.Options{Kinds: kinds, Replacement: repl})
	if err != nil {
		return nil, err
	}
	s := &PII{textField: textField, params: p, masker: m}
	for _, k := range kinds {
		s.fields = append(s.fields, arrow.Field{Name: "pii_" + k.String(), Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	}
	return s, nil
}

func (s *PII) Name() string { return "pii" }
func (s *PII) Config() any  { return s.params }

func (s *PII) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	if err := checkTextField(in, s.textField); err != nil {
		return nil, err
	}
	return columnar.SetSchemaFields(in, s.fields), nil
}

func (s *PII) Process(_ context.Context, mem memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, idx, err := textColumn(rec, s.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	masked, counts := s.masker.Column(mem, text)
	defer masked.Release()
	fields := []arrow.Field{rec.Schema().Field(idx)}
	cols := []arrow.Array{masked}
	for i, c := range counts {
		defer c.Release()
		fields = append(fields, s.fields[i])
		cols = append(cols, c)
	}
	return pipeline.Result{Kept: columnar.SetColumns(rec, fields, cols)}, nil
}
