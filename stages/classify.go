package stages

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/internal/limit"
	"github.com/sluice-data/sluice/kernels/fasttext"
	"github.com/sluice-data/sluice/pipeline"
)

// ClassifyParams are the classify stage's parameters.
type ClassifyParams struct {
	// Name prefixes the columns: NAME_label and NAME_score.
	Name string `yaml:"name" json:"name"`
	// Model is a fastText supervised model file (.bin or .ftz).
	Model string `yaml:"model" json:"model"`
	// Label, when given, makes NAME_score the probability of this label
	// ("hq" or "__label__hq") instead of the top label's.
	Label string `yaml:"label" json:"label,omitempty"`
	// Threshold, with Label, removes rows whose probability of Label is
	// below it (in filter mode).
	Threshold *float64 `yaml:"threshold" json:"threshold,omitempty" limit:"[0,1]"`
}

var classifyName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// ParseClassify parses the flag form NAME=MODEL[:LABEL[:THRESHOLD]].
func ParseClassify(v string) (ClassifyParams, error) {
	var p ClassifyParams
	name, rest, ok := strings.Cut(v, "=")
	if !ok || name == "" || rest == "" {
		return p, fmt.Errorf("%q: want NAME=MODEL[:LABEL[:THRESHOLD]]", v)
	}
	parts := strings.Split(rest, ":")
	if len(parts) > 3 {
		return p, fmt.Errorf("%q: want NAME=MODEL[:LABEL[:THRESHOLD]] (a model path with ':' can be given in a pipeline file)", v)
	}
	p.Name, p.Model = name, parts[0]
	if len(parts) > 1 {
		p.Label = parts[1]
	}
	if len(parts) > 2 {
		t, err := strconv.ParseFloat(parts[2], 64)
		if err != nil {
			return p, fmt.Errorf("%q: threshold %q is not a number", v, parts[2])
		}
		p.Threshold = &t
	}
	if problems := limit.Struct(&p); len(problems) > 0 {
		return p, fmt.Errorf("%q: %w", v, problems[0].Err)
	}
	return p, nil
}

// Classify predicts a label for the text column with a fastText model
// (a quality, NSFW or toxicity classifier, say) and adds NAME_label (the
// top label without its __label__ prefix) and NAME_score (the top label's
// probability or, when a label is chosen, the chosen label's). With a label and a threshold, rows whose
// probability of the label is below the threshold are removed, with stage
// classify_NAME and reason NAME_score.
type Classify struct {
	textField string
	annotate  bool
	params    ClassifyParams
	preds     *predictors
	names     []string // labels without prefix
	label     int      // -1: the top label
	threshold float32
	fields    []arrow.Field
}

// NewClassify returns the classify stage.
func NewClassify(textField string, p ClassifyParams, annotate bool) (*Classify, error) {
	if !classifyName.MatchString(p.Name) {
		return nil, fmt.Errorf("name %q: use letters, digits and _ (it prefixes the column names)", p.Name)
	}
	if p.Model == "" {
		return nil, fmt.Errorf("%s: no model file", p.Name)
	}
	m, err := fasttext.LoadFile(p.Model)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p.Name, err)
	}
	s := &Classify{textField: textField, annotate: annotate, params: p, preds: newPredictors(m), label: -1}
	for i := range m.NumLabels() {
		s.names = append(s.names, shortLabel(m.Label(i)))
	}
	if p.Label != "" {
		for i, n := range s.names {
			if n == shortLabel(p.Label) {
				s.label = i
			}
		}
		if s.label < 0 {
			return nil, fmt.Errorf("%s: the model has no label %q (it has %s)", p.Name, p.Label, strings.Join(s.names, ", "))
		}
	}
	if p.Threshold != nil {
		if s.label < 0 {
			return nil, fmt.Errorf("%s: a threshold needs a label (NAME=MODEL:LABEL:THRESHOLD)", p.Name)
		}
		if *p.Threshold < 0 || *p.Threshold > 1 {
			return nil, fmt.Errorf("%s: threshold %g is not in [0, 1]", p.Name, *p.Threshold)
		}
		s.threshold = float32(*p.Threshold)
	}
	s.fields = []arrow.Field{
		{Name: p.Name + "_label", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: p.Name + "_score", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	}
	return s, nil
}

func (s *Classify) Name() string { return "classify_" + s.params.Name }
func (s *Classify) Config() any  { return s.params }

// RemovedFields puts the label and score on removed rows too.
func (s *Classify) RemovedFields() []arrow.Field { return s.fields }

func (s *Classify) filtering() bool { return s.params.Threshold != nil }

func (s *Classify) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return labelSchema(in, s.textField, s.fields, s.filtering(), s.annotate)
}

func (s *Classify) Process(ctx context.Context, mem memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, _, err := textColumn(rec, s.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	preds := s.preds.predictColumn(text, s.label)
	labels, scores := labelColumns(mem, preds, s.names)
	defer labels.Release()
	defer scores.Release()
	var reasons []string
	if s.filtering() {
		reasons = make([]string, len(preds))
		for i, p := range preds {
			if p.label < 0 || p.prob < s.threshold {
				reasons[i] = s.fields[1].Name // NAME_score
			}
		}
	}
	return labelResult(ctx, mem, s.Name(), rec, reasons, s.annotate, s.fields, []arrow.Array{labels, scores})
}
