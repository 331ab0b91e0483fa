package stages

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/kernels/htmltext"
	"github.com/sluice-data/sluice/pipeline"
)

// ExtractParams are the extract stage's parameters.
type ExtractParams struct {
	Mode             string `yaml:"mode" json:"mode"`           // plain or main
	KeepHTML         bool   `yaml:"keep_html" json:"keep_html"` // keep the page, decoded to UTF-8, in an html column
	PayloadField     string `yaml:"payload_field" json:"payload_field"`
	ContentTypeField string `yaml:"content_type_field" json:"content_type_field"`
}

// The columns the extract stage adds, besides the text column.
const (
	TitleColumn   = "title"
	HTMLLangCol   = "html_lang"
	CharsetColumn = "charset"
	HTMLColumn    = "html"
)

// The reasons the extract stage removes a row for.
const (
	ReasonEmptyExtraction = "empty_extraction"
	ReasonNotHTML         = "not_html"
)

// Extract turns the payload column of WARC response rows (HTML pages) into
// text, title, html_lang and charset columns and drops the payload (or
// keeps the decoded page in html). Rows without a payload keep the text
// they have (WET conversion records). Pages with no text to keep go to
// removed/ as empty_extraction, payloads that are not pages (images, PDFs)
// as not_html; in annotate mode they are kept and marked.
type Extract struct {
	textField string
	params    ExtractParams
	mode      htmltext.Mode
	annotate  bool
}

// NewExtract returns the extract stage.
func NewExtract(textField string, p ExtractParams, annotate bool) (*Extract, error) {
	if p.Mode == "" {
		p.Mode = "plain"
	}
	if p.PayloadField == "" {
		p.PayloadField = "payload"
	}
	if p.ContentTypeField == "" {
		p.ContentTypeField = "content_type"
	}
	mode, err := htmltext.ParseMode(p.Mode)
	if err != nil {
		return nil, err
	}
	return &Extract{textField: textField, params: p, mode: mode, annotate: annotate}, nil
}

func (e *Extract) Name() string { return "extract" }
func (e *Extract) Config() any  { return e.params }

func (e *Extract) addedFields() []arrow.Field {
	str := arrow.BinaryTypes.String
	f := []arrow.Field{{Name: e.textField, Type: str, Nullable: true}, {Name: TitleColumn, Type: str, Nullable: true},
		{Name: HTMLLangCol, Type: str, Nullable: true}, {Name: CharsetColumn, Type: str, Nullable: true}}
	if e.params.KeepHTML {
		f = append(f, arrow.Field{Name: HTMLColumn, Type: str, Nullable: true})
	}
	return f
}

// RemovedFields keeps the extracted columns of rows that later stages
// remove.
func (e *Extract) RemovedFields() []arrow.Field { return e.addedFields()[:4] }

func (e *Extract) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	idx := in.FieldIndices(e.params.PayloadField)
	if len(idx) == 0 {
		return nil, fmt.Errorf("no %q column to extract from (it comes from WARC response records; columns: %v)", e.params.PayloadField, fieldNames(in))
	}
	if id := in.Field(idx[0]).Type.ID(); id != arrow.BINARY && id != arrow.STRING {
		return nil, fmt.Errorf("column %q is %s, not binary", e.params.PayloadField, in.Field(idx[0]).Type)
	}
	if t := in.FieldIndices(e.textField); len(t) > 0 && in.Field(t[0]).Type.ID() != arrow.STRING {
		return nil, fmt.Errorf("column %q is %s, not a string", e.textField, in.Field(t[0]).Type)
	}
	out := withoutField(in, e.params.PayloadField)
	if e.annotate {
		return annotatedSchema(columnar.SetSchemaFields(out, e.addedFields()), nil), nil
	}
	return columnar.SetSchemaFields(out, e.addedFields()), nil
}

func (e *Extract) Process(ctx context.Context, mem memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	pi := rec.Schema().FieldIndices(e.params.PayloadField)[0]
	var payload *array.Binary
	switch c := rec.Column(pi).(type) {
	case *array.Binary:
		payload = c
	case *array.String:
		payload = array.NewBinaryData(c.Data())
		defer payload.Release()
	}
	var ctype *array.String
	if idx := rec.Schema().FieldIndices(e.params.ContentTypeField); len(idx) > 0 {
		ctype, _ = rec.Column(idx[0]).(*array.String)
	}
	var oldText *array.String
	if idx := rec.Schema().FieldIndices(e.textField); len(idx) > 0 {
		oldText, _ = rec.Column(idx[0]).(*array.String)
	}
	cols, outcomes := htmltext.ExtractColumn(mem, payload, ctype, e.mode, e.params.KeepHTML)
	defer cols.Release()
	text := cols.Text
	reasons := make([]string, len(outcomes))
	anyPassed := false
	for i, o := range outcomes {
		switch o {
		case htmltext.Empty:
			reasons[i] = ReasonEmptyExtraction
		case htmltext.NotHTML:
			reasons[i] = ReasonNotHTML
		case htmltext.NoPayload:
			if oldText == nil || oldText.IsNull(i) || oldText.Value(i) == "" {
				reasons[i] = ReasonEmptyExtraction
			} else {
				anyPassed = true
			}
		}
	}
	if anyPassed {
		text = mergeText(mem, cols.Text, oldText, outcomes)
		defer text.Release()
	}
	added := []arrow.Array{text, cols.Title, cols.Lang, cols.Charset}
	if cols.HTML != nil {
		added = append(added, cols.HTML)
	}
	withCols := columnar.SetColumns(rec, e.addedFields(), added)
	defer withCols.Release()
	out, err := columnar.Project(mem, withCols, columnar.SetSchemaFields(withoutField(rec.Schema(), e.params.PayloadField), e.addedFields()))
	if err != nil {
		return pipeline.Result{}, err
	}
	defer out.Release()
	if e.annotate {
		return decide(ctx, mem, e.Name(), out, reasons, true, nil, nil)
	}
	// Kept rows lose the payload; removed rows keep it, to see why.
	keep, failed := keepMask(reasons)
	kept, err := columnar.Filter(ctx, mem, out, keep, true)
	if err != nil {
		return pipeline.Result{}, err
	}
	if len(failed) == 0 {
		return pipeline.Result{Kept: kept, Keep: keep}, nil
	}
	removed, err := columnar.Filter(ctx, mem, rec, keep, false)
	if err != nil {
		kept.Release()
		return pipeline.Result{}, err
	}
	return pipeline.Result{Kept: kept, Removed: removed, Reasons: failed, Keep: keep}, nil
}

// mergeText takes the extracted text, or the old text for rows without a
// payload.
func mergeText(mem memory.Allocator, extracted, old *array.String, outcomes []htmltext.Outcome) *array.String {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.Reserve(len(outcomes))
	for i, o := range outcomes {
		src := extracted
		if o == htmltext.NoPayload {
			src = old
		}
		if src.IsNull(i) {
			b.AppendNull()
		} else {
			b.Append(src.Value(i))
		}
	}
	return b.NewStringArray()
}

// withoutField returns s without the field named name.
func withoutField(s *arrow.Schema, name string) *arrow.Schema {
	var fields []arrow.Field
	for _, f := range s.Fields() {
		if f.Name != name {
			fields = append(fields, f)
		}
	}
	md := s.Metadata()
	return arrow.NewSchema(fields, &md)
}
