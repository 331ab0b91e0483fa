package stages

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/kernels/hftok"
	"github.com/sluice-data/sluice/kernels/textlen"
	"github.com/sluice-data/sluice/kernels/tokenize"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/sluice-data/sluice/stats"
)

// TokenCounter counts the tokens of every value of a string column; nulls
// stay null. One counter serves one goroutine.
type TokenCounter interface {
	Column(mem memory.Allocator, in *array.String) *array.Int64
}

// TokensColumn is the column the tokens stage adds.
const TokensColumn = "n_tokens"

// Tokens counts tokens per row, adds them as n_tokens when asked, and
// aggregates documents, tokens and characters per group. It removes
// nothing.
type Tokens struct {
	textField  string
	tokenizer  string
	groupBy    []string
	addColumn  bool
	newCounter func() TokenCounter
	// counters is a free list: counters keep their piece caches warm
	// across batches, which a sync.Pool would drop at every GC.
	counters chan TokenCounter

	mu     sync.Mutex
	groups map[string]*TokenGroup
}

// TokenGroup is the aggregate of one group of rows.
type TokenGroup struct {
	Key    []string        `json:"key,omitempty"` // one value per group-by column; "(null)" for nulls
	Docs   int64           `json:"documents"`     // rows with a text
	Tokens int64           `json:"tokens"`
	Chars  int64           `json:"chars"`
	Hist   stats.Histogram `json:"tokens_per_document"`
}

// TokensParams are the parameters of the tokens stage in a pipeline file.
type TokensParams struct {
	// Tokenizer is a built-in encoding (tokenize.Names), used when
	// TokenizerFile is empty.
	Tokenizer string `yaml:"tokenizer"`
	// TokenizerFile is a Hugging Face tokenizer.json.
	TokenizerFile string   `yaml:"tokenizer_file"`
	GroupBy       []string `yaml:"group_by" limit:"[0,100]"`
	// AddColumn adds n_tokens to every row; a pipeline stage adds it
	// unless told not to.
	AddColumn bool `yaml:"add_column"`
}

// DefaultTokensParams are the parameters of a tokens stage that sets none.
func DefaultTokensParams() TokensParams {
	return TokensParams{Tokenizer: "cl100k_base", AddColumn: true}
}

// TokenCounters returns how to make a counter for a tokenizer and its name
// for the manifest: the Hugging Face tokenizer.json file when file is
// set, else the built-in encoding named tokenizer.
func TokenCounters(tokenizer, file string) (func() TokenCounter, string, error) {
	if file != "" {
		tok, err := hftok.Load(file)
		if err != nil {
			return nil, "", err
		}
		return func() TokenCounter { return tok.NewCounter() }, file, nil
	}
	enc, err := tokenize.Get(tokenizer)
	if err != nil {
		return nil, "", err
	}
	return func() TokenCounter { return enc.NewCounter() }, enc.Name(), nil
}

// NewTokensStage returns the tokens stage of a pipeline file.
func NewTokensStage(textField string, p TokensParams) (*Tokens, error) {
	newCounter, name, err := TokenCounters(p.Tokenizer, p.TokenizerFile)
	if err != nil {
		return nil, err
	}
	return NewTokens(textField, name, newCounter, p.GroupBy, p.AddColumn), nil
}

// NewTokens returns the tokens stage. newCounter makes one counter per
// worker; tokenizer names it for the manifest.
func NewTokens(textField, tokenizer string, newCounter func() TokenCounter, groupBy []string, addColumn bool) *Tokens {
	return &Tokens{textField: textField, tokenizer: tokenizer, groupBy: groupBy, addColumn: addColumn,
		newCounter: newCounter, counters: make(chan TokenCounter, 256), groups: map[string]*TokenGroup{}}
}

func (t *Tokens) Name() string { return "tokens" }
func (t *Tokens) Config() any {
	return map[string]any{"tokenizer": t.tokenizer, "group_by": t.groupBy, "add_column": t.addColumn}
}

var tokensField = arrow.Field{Name: TokensColumn, Type: arrow.PrimitiveTypes.Int64, Nullable: true}

func (t *Tokens) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	if err := checkTextField(in, t.textField); err != nil {
		return nil, err
	}
	for _, g := range t.groupBy {
		if _, err := columnar.MemberField(in, g); err != nil {
			return nil, fmt.Errorf("cannot group by %s: %w", g, err)
		}
	}
	if !t.addColumn {
		return in, nil
	}
	return columnar.SetSchemaFields(in, []arrow.Field{tokensField}), nil
}

func (t *Tokens) Process(_ context.Context, mem memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, _, err := textColumn(rec, t.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	var counter TokenCounter
	select {
	case counter = <-t.counters:
	default:
		counter = t.newCounter()
	}
	counts := counter.Column(mem, text)
	select {
	case t.counters <- counter:
	default:
	}
	defer counts.Release()
	chars := textlen.RuneCounts(mem, text)
	defer chars.Release()

	keys := make([][]string, len(t.groupBy))
	for g, path := range t.groupBy {
		col, err := columnar.Member(rec, path)
		if err != nil {
			return pipeline.Result{}, err
		}
		keys[g] = stringValues(col)
	}
	local := map[string]*TokenGroup{}
	key := make([]string, len(t.groupBy))
	for i := 0; i < counts.Len(); i++ {
		if counts.IsNull(i) {
			continue
		}
		for g := range keys {
			key[g] = keys[g][i]
		}
		k := strings.Join(key, "\x00")
		grp, ok := local[k]
		if !ok {
			grp = &TokenGroup{Key: make([]string, len(key))}
			for g, v := range key {
				grp.Key[g] = strings.Clone(v) // the values view the batch's memory
			}
			local[strings.Clone(k)] = grp
		}
		n := counts.Value(i)
		grp.Docs++
		grp.Tokens += n
		grp.Chars += chars.Value(i)
		grp.Hist.Add(n)
	}
	t.mu.Lock()
	for k, grp := range local {
		if into, ok := t.groups[k]; ok {
			into.Docs += grp.Docs
			into.Tokens += grp.Tokens
			into.Chars += grp.Chars
			into.Hist.Merge(&grp.Hist)
		} else {
			t.groups[k] = grp
		}
	}
	t.mu.Unlock()

	if !t.addColumn {
		rec.Retain()
		return pipeline.Result{Kept: rec}, nil
	}
	return pipeline.Result{Kept: columnar.SetColumns(rec, []arrow.Field{tokensField}, []arrow.Array{counts})}, nil
}

// Reset forgets the counts so far (pipeline.Resetter).
func (t *Tokens) Reset() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.groups = map[string]*TokenGroup{}
}

// Groups returns the aggregates sorted by key, and their total.
func (t *Tokens) Groups() ([]*TokenGroup, *TokenGroup) {
	t.mu.Lock()
	defer t.mu.Unlock()
	total := &TokenGroup{}
	out := make([]*TokenGroup, 0, len(t.groups))
	for _, g := range t.groups {
		out = append(out, g)
		total.Docs += g.Docs
		total.Tokens += g.Tokens
		total.Chars += g.Chars
		total.Hist.Merge(&g.Hist)
	}
	sort.Slice(out, func(i, j int) bool { return strings.Join(out[i].Key, "\x00") < strings.Join(out[j].Key, "\x00") })
	return out, total
}

// stringValues renders every value of col as a group key.
func stringValues(col arrow.Array) []string {
	values := columnar.Unmask(col)
	out := make([]string, col.Len())
	for i := range out {
		switch {
		case col.IsNull(i):
			out[i] = "(null)"
		default:
			switch a := values.(type) {
			case *array.String:
				out[i] = a.Value(i)
			case *array.Int64:
				out[i] = strconv.FormatInt(a.Value(i), 10)
			default:
				out[i] = col.ValueStr(i)
			}
		}
	}
	return out
}

// TokensReport is what the tokens stage writes into the manifest: the
// counts and the tokens-per-document histogram of every group and of all
// rows, which the shards of a launched run merge exactly.
type TokensReport struct {
	Tokenizer string        `json:"tokenizer"`
	GroupBy   []string      `json:"group_by,omitempty"`
	Total     *TokenGroup   `json:"total"`
	Groups    []*TokenGroup `json:"groups,omitempty"`
}

// Report is the token counts of the run (pipeline.Reporter).
func (t *Tokens) Report() any {
	groups, total := t.Groups()
	r := TokensReport{Tokenizer: t.tokenizer, GroupBy: t.groupBy, Total: total}
	if len(t.groupBy) > 0 {
		r.Groups = groups
	}
	return r
}

// MergeReports adds up the reports of a launched run's shards
// (pipeline.ReportMerger).
func (t *Tokens) MergeReports(shards []json.RawMessage) (any, error) {
	merged := map[string]*TokenGroup{}
	for i, raw := range shards {
		var r TokensReport
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("tokens report of shard %d: %w", i, err)
		}
		if r.Tokenizer != t.tokenizer {
			return nil, fmt.Errorf("tokens report of shard %d counts %s tokens, not %s", i, r.Tokenizer, t.tokenizer)
		}
		groups := r.Groups
		if len(t.groupBy) == 0 && r.Total != nil {
			groups = []*TokenGroup{r.Total}
		}
		for _, g := range groups {
			k := strings.Join(g.Key, "\x00")
			if into, ok := merged[k]; ok {
				into.Docs += g.Docs
				into.Tokens += g.Tokens
				into.Chars += g.Chars
				into.Hist.Merge(&g.Hist)
			} else {
				merged[k] = g
			}
		}
	}
	t.mu.Lock()
	saved := t.groups
	t.groups = merged
	t.mu.Unlock()
	r := t.Report()
	t.mu.Lock()
	t.groups = saved
	t.mu.Unlock()
	return r, nil
}
