package stages

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/kernels/fasttext"
	"github.com/sluice-data/sluice/kernels/langid"
	"github.com/sluice-data/sluice/pipeline"
)

// The columns the lang stage adds.
const (
	LangColumn      = "lang"
	LangScoreColumn = "lang_score"
)

// DefaultLangMinScore is the threshold datatrove's FineWeb recipe and DCLM
// use with lid.176.
const DefaultLangMinScore = 0.65

// LangParams are the lang stage's parameters.
type LangParams struct {
	// Languages are the codes to keep (ISO 639-1 where one exists: en, zh,
	// ...). Empty, or "any", annotates only.
	Languages []string `yaml:"languages" json:"languages" limit:"[0,1000]"`
	// MinScore is the lowest probability of a kept row's language, when
	// Languages are given.
	MinScore *float64 `yaml:"min_score" json:"min_score" limit:"[0,1]"`
	// Model is a fastText language-ID model file; empty: the built-in
	// lid.176.ftz.
	Model string `yaml:"model" json:"model"`
}

// Lang identifies the language of the text column with a fastText model
// (lid.176 built in) and adds the columns lang (ISO 639-1 code where one
// exists, the model's label otherwise) and lang_score (its probability).
// With languages given, rows in other languages, or under the minimum
// score, are removed with reason lang (or lang_score).
//
// A text is read whole, newlines counting as spaces, as datatrove, DCLM and
// Dolma do before they call fastText: the prediction is the model's for
// the entire document, and the work grows linearly with its length.
type Lang struct {
	textField string
	annotate  bool
	params    LangParams
	keep      map[string]bool // nil: annotate only
	minScore  float32
	preds     *predictors
	codes     []string // per label
}

// NewLang returns the lang stage.
func NewLang(textField string, p LangParams, annotate bool) (*Lang, error) {
	var m *fasttext.Model
	var err error
	if p.Model == "" {
		m, err = langid.LID176()
	} else {
		m, err = fasttext.LoadFile(p.Model)
	}
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	if p.MinScore == nil {
		v := DefaultLangMinScore
		p.MinScore = &v
	}
	if *p.MinScore < 0 || *p.MinScore > 1 {
		return nil, fmt.Errorf("min_score %g is not in [0, 1]", *p.MinScore)
	}
	s := &Lang{textField: textField, annotate: annotate, minScore: float32(*p.MinScore), preds: newPredictors(m)}
	for i := range m.NumLabels() {
		s.codes = append(s.codes, langid.Code(m.Label(i)))
	}
	for _, l := range p.Languages {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if l == "any" {
			if len(p.Languages) > 1 {
				return nil, fmt.Errorf("languages: any cannot be combined with other languages")
			}
			continue
		}
		code := langid.Code(l)
		if !slices.Contains(s.codes, code) {
			return nil, fmt.Errorf("languages: the model has no language %q (it knows %s)", l, strings.Join(sortedUnique(s.codes), ","))
		}
		if s.keep == nil {
			s.keep = map[string]bool{}
		}
		s.keep[code] = true
	}
	p.Languages = nil
	for code := range s.keep {
		p.Languages = append(p.Languages, code)
	}
	slices.Sort(p.Languages)
	if p.Model == "" {
		p.Model = langid.ModelName + " (built in)"
	}
	s.params = p
	return s, nil
}

func sortedUnique(v []string) []string {
	out := slices.Clone(v)
	slices.Sort(out)
	return slices.Compact(out)
}

func (s *Lang) Name() string { return "lang" }
func (s *Lang) Config() any  { return s.params }

var langFields = []arrow.Field{
	{Name: LangColumn, Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: LangScoreColumn, Type: arrow.PrimitiveTypes.Float64, Nullable: true},
}

// RemovedFields puts the language and its score on removed rows too.
func (s *Lang) RemovedFields() []arrow.Field { return langFields }

func (s *Lang) filtering() bool { return s.keep != nil }

func (s *Lang) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	if err := checkLangColumnsFree(in); err != nil {
		return nil, err
	}
	return labelSchema(in, s.textField, langFields, s.filtering(), s.annotate)
}

// checkLangColumnsFree refuses a schema that already has a column the
// stage writes: its values would be replaced by the stage's without a
// word. The error wraps dataset.ErrRefused (a refused output, exit 2).
func checkLangColumnsFree(in *arrow.Schema) error {
	for _, f := range langFields {
		if in.HasField(f.Name) {
			return fmt.Errorf("%w: the input already has a column %q, which the lang stage writes; "+
				"it would replace its values with the detected ones: rename or drop that column first "+
				"(input columns: %v)", dataset.ErrRefused, f.Name, fieldNames(in))
		}
	}
	return nil
}

func (s *Lang) Process(ctx context.Context, mem memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, _, err := textColumn(rec, s.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	preds := s.preds.predictColumn(text, -1)
	labels, scores := labelColumns(mem, preds, s.codes)
	defer labels.Release()
	defer scores.Release()
	var reasons []string
	if s.filtering() {
		reasons = make([]string, len(preds))
		for i, p := range preds {
			switch {
			case p.label < 0 || !s.keep[s.codes[p.label]]:
				reasons[i] = "lang"
			case p.prob < s.minScore:
				reasons[i] = "lang_score"
			}
		}
	}
	return labelResult(ctx, mem, s.Name(), rec, reasons, s.annotate, langFields, []arrow.Array{labels, scores})
}
