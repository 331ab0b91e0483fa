package report

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/sluice-data/sluice/kernels/quality"
	"github.com/sluice-data/sluice/stats"
)

// fineBins is the resolution of a signal's histogram while rows are read;
// the chart merges them into fewer bins over the range that holds the
// rows.
const fineBins = 4096

// Signal is the distribution of one signal column over the kept rows of
// the last dataset.
type Signal struct {
	Column     string
	Stage      string // the stage that writes it
	Rows       int64  // rows with a value
	Nulls      int64
	Mean       float64
	Min, Max   float64
	Thresholds []Threshold
	Chart      Chart
	histogram  // the bars of its chart

	h       fineHist
	integer bool // an integer column: one bar per value when they are few
	sum     float64
}

// Threshold is a limit of the signal's stage, and how the rows fall
// around it.
type Threshold struct {
	Key   string  // the config key: min_word_count, max_dup_line_frac, ...
	Value float64 // the limit
	// Kind tells which side passes: "min" keeps values >= Value, "max"
	// keeps values <= Value, "below" keeps values < Value.
	Kind           string
	Pass, Fail     int64 // rows on the passing side and on the other
	PassShare      string
	FailShare      string
	LeftIsPassing  bool
	LeftN, RightN  int64
	LeftShare      string
	RightShare     string
	Title          string
	leftOf, passes func(float64) bool
}

func (s *Signal) add(v float64) {
	s.Rows++
	s.sum += v
	s.Min, s.Max = math.Min(s.Min, v), math.Max(s.Max, v)
	side := keptSide
	for i := range s.Thresholds {
		t := &s.Thresholds[i]
		if t.passes(v) {
			t.Pass++
		} else {
			t.Fail++
			side = removedSide
		}
		if t.leftOf(v) {
			t.LeftN++
		} else {
			t.RightN++
		}
	}
	s.h.add(v, side)
}

func (s *Signal) merge(o *Signal) {
	s.Rows += o.Rows
	s.Nulls += o.Nulls
	s.sum += o.sum
	s.Min, s.Max = math.Min(s.Min, o.Min), math.Max(s.Max, o.Max)
	s.h.merge(&o.h)
	for i := range s.Thresholds {
		s.Thresholds[i].Pass += o.Thresholds[i].Pass
		s.Thresholds[i].Fail += o.Thresholds[i].Fail
		s.Thresholds[i].LeftN += o.Thresholds[i].LeftN
		s.Thresholds[i].RightN += o.Thresholds[i].RightN
	}
}

func (s *Signal) clone() *Signal {
	c := *s
	c.h = newFineHist(s.h.lo, s.h.hi)
	c.Thresholds = slices.Clone(s.Thresholds)
	for i := range c.Thresholds {
		c.Thresholds[i].Pass, c.Thresholds[i].Fail, c.Thresholds[i].LeftN, c.Thresholds[i].RightN = 0, 0, 0, 0
	}
	c.Min, c.Max = math.Inf(1), math.Inf(-1)
	return &c
}

// signalStages maps every quality signal column to its filter, and the
// prefix its rule names drop.
var signalStages = func() map[string][2]string {
	out := map[string][2]string{}
	for _, name := range quality.Names {
		f, err := quality.New(name, quality.DefaultConfig())
		if err != nil {
			continue
		}
		prefix := name + "_"
		switch name {
		case "gopher_quality":
			prefix = "gopher_"
		case "gopher_repetition":
			prefix = "gopher_rep_"
		}
		for _, s := range f.Signals() {
			out[s] = [2]string{name, prefix}
		}
	}
	return out
}()

// signalColumns lists the signal columns of the schema, in its order, with
// their stage and thresholds.
func (rep *Report) signalColumns() []*Signal {
	var out []*Signal
	for _, c := range rep.Schema {
		if !isNumeric(c.dt) {
			continue
		}
		s := &Signal{Column: c.Name, integer: c.dt.ID() == arrow.INT64 || c.dt.ID() == arrow.INT32}
		switch {
		case signalStages[c.Name][0] != "":
			st := signalStages[c.Name]
			s.Stage = st[0]
			rule := strings.TrimPrefix(c.Name, st[1])
			if cfg := rep.stageConfig(st[0]); cfg != nil {
				if v, ok := cfg["min_"+rule].(float64); ok {
					s.Thresholds = append(s.Thresholds, Threshold{Key: "min_" + rule, Value: v, Kind: "min"})
				}
				if v, ok := cfg["max_"+rule].(float64); ok {
					s.Thresholds = append(s.Thresholds, Threshold{Key: "max_" + rule, Value: v, Kind: "max"})
				}
			}
		case c.Name == "lang_score":
			s.Stage = "lang"
			if cfg := rep.stageConfig("lang"); cfg != nil {
				langs, _ := cfg["languages"].([]any)
				if v, ok := cfg["min_score"].(float64); ok && len(langs) > 0 {
					s.Thresholds = append(s.Thresholds, Threshold{Key: "min_score", Value: v, Kind: "min"})
				}
			}
		case c.Name == "contam_hits":
			s.Stage = "decontaminate"
			if cfg := rep.stageConfig("decontaminate"); cfg != nil {
				if p, ok := cfg["params"].(map[string]any); ok {
					if v, ok := p["min_overlap"].(float64); ok {
						s.Thresholds = append(s.Thresholds, Threshold{Key: "min_overlap", Value: v, Kind: "below"})
					}
				}
			}
		case strings.HasSuffix(c.Name, "_score") && rep.hasColumn(strings.TrimSuffix(c.Name, "_score")+"_label"):
			name := strings.TrimSuffix(c.Name, "_score")
			s.Stage = "classify_" + name
			if cfg := rep.stageConfig(s.Stage); cfg != nil {
				if v, ok := cfg["threshold"].(float64); ok {
					s.Thresholds = append(s.Thresholds, Threshold{Key: "threshold", Value: v, Kind: "min"})
				}
			}
		case strings.HasPrefix(c.Name, "pii_"):
			s.Stage = "pii"
		case c.Name == "minhash_cluster_size":
			s.Stage = "dedup_minhash"
		default:
			continue
		}
		for i := range s.Thresholds {
			t := &s.Thresholds[i]
			v := t.Value
			switch t.Kind {
			case "min":
				t.passes = func(x float64) bool { return x >= v }
				t.leftOf = func(x float64) bool { return x < v }
			case "max":
				t.passes = func(x float64) bool { return x <= v }
				t.leftOf = func(x float64) bool { return x <= v }
				t.LeftIsPassing = true
			case "below":
				t.passes = func(x float64) bool { return x < v }
				t.leftOf = func(x float64) bool { return x < v }
				t.LeftIsPassing = true
			}
		}
		s.Min, s.Max = math.Inf(1), math.Inf(-1)
		out = append(out, s)
	}
	return out
}

// Tokens are the token counts of the kept rows.
type Tokens struct {
	Column        string
	Tokenizer     string
	Total, Docs   int64
	Mean          float64
	P50, P90, P99 int64
	Max           int64
	Chars         int64 // from the tokens stage's report, 0 when unknown
	CharsPerToken string
	Sources       []Share // tokens per source
	hist          stats.Histogram
	bySourceLang  map[[2]string]int64
}

// Share is a name with its rows and tokens.
type Share struct {
	Name          string
	Rows, Tokens  int64
	Chars         int64
	RowShare      string
	CharsPerToken string
}

// dataAcc is what one worker adds up over the kept rows.
type dataAcc struct {
	signals      []*Signal
	hist         stats.Histogram
	tokens       int64
	tokenDocs    int64
	langRows     map[string]int64
	langTokens   map[string]int64
	sourceRows   map[string]int64
	sourceTokens map[string]int64
	bySourceLang map[[2]string]int64
}

// scanData reads the signal, token, language and source columns of the
// last dataset's kept rows.
func (rep *Report) scanData(ctx context.Context, r *Run) error {
	if len(r.data) == 0 {
		return nil
	}
	signals := rep.signalColumns()
	for _, s := range signals {
		lo, hi, ok := footerRange(rep.opts.Mem, r.data, s.Column)
		if !ok {
			// No statistics in the footers: a first pass finds the range.
			lo, hi = math.Inf(1), math.Inf(-1)
			err := eachRowGroup(ctx, rep.opts.Mem, r.data, []string{s.Column}, 1, nil, func(_ int, _ group, rec arrow.RecordBatch) error {
				c, _ := numericColumn(rec, s.Column)
				for i := 0; i < int(rec.NumRows()); i++ {
					if v, ok := c.value(i); ok {
						lo, hi = math.Min(lo, v), math.Max(hi, v)
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		s.h = newFineHist(lo, hi)
	}
	hasTokens := rep.hasColumn("n_tokens") && isNumeric(rep.column("n_tokens").dt)
	cols := []string{}
	for _, s := range signals {
		cols = append(cols, s.Column)
	}
	if hasTokens {
		cols = append(cols, "n_tokens")
	}
	if rep.LangField != "" {
		cols = append(cols, rep.LangField)
	}
	srcTop, _, _ := cutDot(rep.SourceField)
	if srcTop != "" {
		cols = append(cols, srcTop)
	}
	if len(cols) == 0 {
		return nil
	}
	accs := make([]*dataAcc, rep.opts.Workers)
	for w := range accs {
		a := &dataAcc{langRows: map[string]int64{}, langTokens: map[string]int64{}, sourceRows: map[string]int64{},
			sourceTokens: map[string]int64{}, bySourceLang: map[[2]string]int64{}}
		for _, s := range signals {
			a.signals = append(a.signals, s.clone())
		}
		accs[w] = a
	}
	err := eachRowGroup(ctx, rep.opts.Mem, r.data, cols, rep.opts.Workers, nil, func(w int, _ group, rec arrow.RecordBatch) error {
		a := accs[w]
		n := int(rec.NumRows())
		for _, s := range a.signals {
			c, ok := numericColumn(rec, s.Column)
			if !ok {
				continue
			}
			for i := 0; i < n; i++ {
				if v, ok := c.value(i); ok {
					s.add(v)
				} else {
					s.Nulls++
				}
			}
		}
		toks, _ := numericColumn(rec, "n_tokens")
		lang := stringColumn(rec, rep.LangField)
		src := stringColumn(rec, rep.SourceField)
		for i := 0; i < n; i++ {
			l, s := "", ""
			if lang.ok() {
				l = orNull(lang, i)
				a.langRows[l]++
			}
			if src.ok() {
				s = orNull(src, i)
				a.sourceRows[s]++
			}
			if v, ok := toks.value(i); ok && hasTokens {
				t := int64(v)
				a.tokens += t
				a.tokenDocs++
				a.hist.Add(max(t, 0))
				a.langTokens[l] += t
				a.sourceTokens[s] += t
				a.bySourceLang[[2]string{s, l}] += t
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	all := accs[0]
	for _, a := range accs[1:] {
		for i, s := range a.signals {
			all.signals[i].merge(s)
		}
		all.hist.Merge(&a.hist)
		all.tokens += a.tokens
		all.tokenDocs += a.tokenDocs
		for _, m := range [][2]map[string]int64{{all.langRows, a.langRows}, {all.langTokens, a.langTokens},
			{all.sourceRows, a.sourceRows}, {all.sourceTokens, a.sourceTokens}} {
			for k, v := range m[1] {
				m[0][k] += v
			}
		}
		for k, v := range a.bySourceLang {
			all.bySourceLang[k] += v
		}
	}
	rows := rep.Runs[len(rep.Runs)-1].Manifest.Counts.RowsOut
	for _, s := range all.signals {
		if s.Rows > 0 {
			s.Mean = s.sum / float64(s.Rows)
		}
		for j := range s.Thresholds {
			t := &s.Thresholds[j]
			t.PassShare, t.FailShare = percent(t.Pass, s.Rows), percent(t.Fail, s.Rows)
			t.LeftShare, t.RightShare = percent(t.LeftN, s.Rows), percent(t.RightN, s.Rows)
			t.Title = fmt.Sprintf("%s %s = %s: %s rows (%s) pass, %s (%s) fail", s.Stage, t.Key, number(t.Value),
				thousands(t.Pass), t.PassShare, thousands(t.Fail), t.FailShare)
		}
		if s.Rows > 0 {
			rep.Signals = append(rep.Signals, s)
		}
	}
	for l, n := range all.langRows {
		rep.Languages = append(rep.Languages, Share{Name: l, Rows: n, Tokens: all.langTokens[l], RowShare: percent(n, rows)})
	}
	sortShares(rep.Languages)
	if hasTokens && all.tokenDocs > 0 {
		h := &all.hist
		t := &Tokens{Column: "n_tokens", Total: all.tokens, Docs: all.tokenDocs, Mean: h.Mean(),
			P50: h.Quantile(0.5), P90: h.Quantile(0.9), P99: h.Quantile(0.99), Max: h.Max(), hist: *h, bySourceLang: all.bySourceLang}
		for s, n := range all.sourceRows {
			t.Sources = append(t.Sources, Share{Name: s, Rows: n, Tokens: all.sourceTokens[s], RowShare: percent(n, rows)})
		}
		sortShares(t.Sources)
		rep.Tokens = t
	}
	return nil
}

func orNull(c stringCol, i int) string {
	if c.isNull(i) {
		return "(null)"
	}
	return c.value(i)
}

// sortShares sorts by tokens, then rows, most first, then by name.
func sortShares(s []Share) {
	slices.SortFunc(s, func(a, b Share) int {
		switch {
		case a.Tokens != b.Tokens:
			return cmpDesc(a.Tokens, b.Tokens)
		case a.Rows != b.Rows:
			return cmpDesc(a.Rows, b.Rows)
		}
		return strings.Compare(a.Name, b.Name)
	})
}

func cmpDesc(a, b int64) int {
	if a > b {
		return -1
	}
	if a < b {
		return 1
	}
	return 0
}
