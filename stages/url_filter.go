package stages

import (
	"context"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/internal/sidefile"
	"github.com/sluice-data/sluice/kernels/urlfilter"
	"github.com/sluice-data/sluice/pipeline"
)

// URLFilterParams are the url_filter stage's parameters: block lists as
// files (one entry a line, # comments) or inline.
type URLFilterParams struct {
	URLField       string   `yaml:"url_field" json:"url_field"`
	DomainsFile    string   `yaml:"domains_file" json:"domains_file,omitempty"`
	SubstringsFile string   `yaml:"substrings_file" json:"substrings_file,omitempty"`
	Domains        []string `yaml:"domains" json:"domains,omitempty" limit:"[0,10000000]"`
	Substrings     []string `yaml:"substrings" json:"substrings,omitempty" limit:"[0,10000000]"`
	// Counts of the entries loaded, for the manifest.
	DomainCount    int `yaml:"-" json:"domain_count"`
	SubstringCount int `yaml:"-" json:"substring_count"`
}

// URLFilter removes rows whose URL is on a block list: its host is a
// blocked domain or a subdomain of one, or it contains a blocked substring.
// The reason is the rule that matched ("domain:example.com",
// "substring:/wp-login"). Rows without a URL are kept.
type URLFilter struct {
	params   URLFilterParams
	m        *urlfilter.Matcher
	annotate bool
}

// NewURLFilter loads the block lists.
func NewURLFilter(p URLFilterParams, annotate bool) (*URLFilter, error) {
	if p.URLField == "" {
		p.URLField = "url"
	}
	m := urlfilter.New()
	for _, d := range p.Domains {
		if err := m.AddDomain(d); err != nil {
			return nil, fmt.Errorf("domains: %w", err)
		}
	}
	for _, s := range p.Substrings {
		if err := m.AddSubstring(s); err != nil {
			return nil, fmt.Errorf("substrings: %w", err)
		}
	}
	for _, l := range []struct {
		path string
		load func(string, []byte) error
	}{{p.DomainsFile, m.LoadDomains}, {p.SubstringsFile, m.LoadSubstrings}} {
		if l.path == "" {
			continue
		}
		data, err := sidefile.ReadFile(l.path, sidefile.BlockList)
		if err != nil {
			return nil, err
		}
		if err := l.load(l.path, data); err != nil {
			return nil, err
		}
	}
	p.DomainCount, p.SubstringCount = m.Len()
	if p.DomainCount+p.SubstringCount == 0 {
		return nil, errors.New("no domain or substring to block (give domains_file, substrings_file, domains or substrings)")
	}
	return &URLFilter{params: p, m: m, annotate: annotate}, nil
}

func (u *URLFilter) Name() string { return "url_filter" }
func (u *URLFilter) Config() any  { return u.params }

func (u *URLFilter) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	idx := in.FieldIndices(u.params.URLField)
	if len(idx) == 0 {
		return nil, fmt.Errorf("no URL column %q in the input (columns: %v; set url_field)", u.params.URLField, fieldNames(in))
	}
	if in.Field(idx[0]).Type.ID() != arrow.STRING {
		return nil, fmt.Errorf("column %q is %s, not a string", u.params.URLField, in.Field(idx[0]).Type)
	}
	if u.annotate {
		return annotatedSchema(in, nil), nil
	}
	return in, nil
}

func (u *URLFilter) Process(ctx context.Context, mem memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	col := rec.Column(rec.Schema().FieldIndices(u.params.URLField)[0]).(*array.String)
	reasons := make([]string, col.Len())
	for i := range reasons {
		if col.IsValid(i) {
			reasons[i] = u.m.Match(col.Value(i))
		}
	}
	return decide(ctx, mem, u.Name(), rec, reasons, u.annotate, nil, nil)
}
