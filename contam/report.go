package contam

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
)

// Tally adds up the matches of a scan. Rows are named by their position
// in input order (any increasing number, such as batch<<32|row), so the
// report is the same whatever order batches are added in. It is safe for
// concurrent use.
type Tally struct {
	x  *Index
	mu sync.Mutex
	// per example
	rows     []int64
	firstPos []uint64
	firstID  []string
	sources  map[string]*SourceReport
	scanned  int64
	hit      int64
}

// NewTally returns an empty tally over x's examples.
func NewTally(x *Index) *Tally {
	t := &Tally{x: x, rows: make([]int64, len(x.examples)), firstPos: make([]uint64, len(x.examples)),
		firstID: make([]string, len(x.examples)), sources: map[string]*SourceReport{}}
	for i := range t.firstPos {
		t.firstPos[i] = ^uint64(0)
	}
	return t
}

// Batch is what one batch adds to a Tally; a worker fills it alone and
// hands it to Tally.Add.
type Batch struct {
	matches []batchMatch
	sources map[string]*SourceReport
	scanned int64
	hit     int64
}

type batchMatch struct {
	ex  int
	pos uint64
	id  string
}

// Row records one scanned row: its position, id (may be empty), source
// (may be empty; it may view batch memory, Row copies what it keeps) and
// the examples it matched.
func (b *Batch) Row(pos uint64, id, source string, matched []int) {
	if b.sources == nil {
		b.sources = map[string]*SourceReport{}
	}
	s := b.sources[source]
	if s == nil {
		source = strings.Clone(source)
		s = &SourceReport{Source: source}
		b.sources[source] = s
	}
	s.Rows++
	b.scanned++
	if len(matched) == 0 {
		return
	}
	s.Contaminated++
	b.hit++
	for _, e := range matched {
		b.matches = append(b.matches, batchMatch{e, pos, id})
	}
}

// Add merges a batch.
func (t *Tally) Add(b *Batch) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.scanned += b.scanned
	t.hit += b.hit
	for name, s := range b.sources {
		into := t.sources[name]
		if into == nil {
			into = &SourceReport{Source: name}
			t.sources[name] = into
		}
		into.Rows += s.Rows
		into.Contaminated += s.Contaminated
	}
	for _, m := range b.matches {
		t.rows[m.ex]++
		if m.pos < t.firstPos[m.ex] {
			t.firstPos[m.ex], t.firstID[m.ex] = m.pos, m.id
		}
	}
}

// Report is what a scan found.
type Report struct {
	Params           Params         `json:"params"`
	EvalFields       []string       `json:"eval_fields,omitempty"`
	DistinctNGrams   int            `json:"distinct_ngrams"`
	IgnoredNGrams    int            `json:"ignored_ngrams"`
	Rows             int64          `json:"rows_scanned"`
	ContaminatedRows int64          `json:"rows_contaminated"`
	EvalSets         []SetReport    `json:"eval_sets"`
	Sources          []SourceReport `json:"sources"`
}

// SetReport is one evaluation set's part of a report.
type SetReport struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Examples int    `json:"examples"`
	// TooShort counts the examples with fewer words than the n-gram
	// length, which no text can match.
	TooShort     int          `json:"too_short"`
	Contaminated int          `json:"contaminated"`
	Fraction     float64      `json:"contaminated_fraction"`
	Found        []ExampleHit `json:"found"`
}

// ExampleHit is an example found in the corpus.
type ExampleHit struct {
	ID       string `json:"id"`
	Line     int64  `json:"line"`   // line (JSONL) or row (Parquet) number in its file, from 1
	NGrams   int    `json:"ngrams"` // its distinct n-grams in the index
	Rows     int64  `json:"rows"`   // corpus rows that contain it
	FirstRow string `json:"first_row,omitempty"`
}

// SourceReport is one corpus source's part of a report.
type SourceReport struct {
	Source       string `json:"source"`
	Rows         int64  `json:"rows"`
	Contaminated int64  `json:"contaminated"`
}

// Report returns what the tally holds, sets in the order given, examples
// in file order, sources by name.
func (t *Tally) Report() Report {
	t.mu.Lock()
	defer t.mu.Unlock()
	x := t.x
	r := Report{Params: x.p, DistinctNGrams: x.Distinct, IgnoredNGrams: x.Ignored, Rows: t.scanned, ContaminatedRows: t.hit}
	r.EvalSets = make([]SetReport, len(x.Sets))
	for i, s := range x.Sets {
		r.EvalSets[i] = SetReport{Name: s.Name, Path: s.Path, TooShort: x.TooShort[i], Found: []ExampleHit{}}
	}
	for i, ex := range x.examples {
		sr := &r.EvalSets[ex.Set]
		sr.Examples++
		if t.rows[i] == 0 {
			continue
		}
		sr.Contaminated++
		sr.Found = append(sr.Found, ExampleHit{ID: ex.ID, Line: ex.Line, NGrams: int(x.nGrams[i]), Rows: t.rows[i], FirstRow: t.firstID[i]})
	}
	for i := range r.EvalSets {
		if n := r.EvalSets[i].Examples; n > 0 {
			r.EvalSets[i].Fraction = float64(r.EvalSets[i].Contaminated) / float64(n)
		}
	}
	r.Sources = []SourceReport{}
	for _, s := range t.sources {
		r.Sources = append(r.Sources, *s)
	}
	sort.Slice(r.Sources, func(i, j int) bool { return r.Sources[i].Source < r.Sources[j].Source })
	return r
}

// WriteJSON writes r as indented JSON.
func (r Report) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteText writes r as tables for a terminal, listing up to maxList
// examples found per set.
func (r Report) WriteText(w io.Writer, maxList int) {
	p := r.Params
	fmt.Fprintf(w, "contamination: %d-word n-grams, at least %d shared", p.NGram, p.MinOverlap)
	if p.MinFraction > 0 {
		fmt.Fprintf(w, " and %.0f%% of an example's", 100*p.MinFraction)
	}
	fmt.Fprintf(w, "; %d distinct eval n-grams", r.DistinctNGrams)
	if p.MaxNGramExamples > 0 {
		fmt.Fprintf(w, ", %d ignored (in more than %d examples)", r.IgnoredNGrams, p.MaxNGramExamples)
	}
	fmt.Fprintf(w, "\n%d of %d corpus rows contain evaluation text\n\n", r.ContaminatedRows, r.Rows)
	fmt.Fprintf(w, "%-24s %9s %9s %12s %9s\n", "eval set", "examples", "too short", "contaminated", "fraction")
	for _, s := range r.EvalSets {
		fmt.Fprintf(w, "%-24s %9d %9d %12d %8.2f%%\n", s.Name, s.Examples, s.TooShort, s.Contaminated, 100*s.Fraction)
	}
	for _, s := range r.EvalSets {
		if len(s.Found) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s: found in the corpus\n", s.Name)
		for i, h := range s.Found {
			if i == maxList {
				fmt.Fprintf(w, "  ... and %d more (contamination.json lists them all)\n", len(s.Found)-maxList)
				break
			}
			first := ""
			if h.FirstRow != "" {
				first = ", first in row " + h.FirstRow
			}
			fmt.Fprintf(w, "  %s (line %d): %d row(s)%s\n", h.ID, h.Line, h.Rows, first)
		}
	}
	fmt.Fprintf(w, "\n%-24s %9s %12s\n", "corpus source", "rows", "contaminated")
	for _, s := range r.Sources {
		name := s.Source
		if name == "" {
			name = "(all)"
		}
		fmt.Fprintf(w, "%-24s %9d %12d\n", name, s.Rows, s.Contaminated)
	}
}

// Merge adds up the reports of scans over consecutive parts of one corpus
// (the shards of a launched run, in input order) with the same index: rows
// and sources add up, an example found in several parts counts once with
// its rows added, and its first row is the one of the earliest part.
func Merge(parts []Report) (Report, error) {
	if len(parts) == 0 {
		return Report{}, fmt.Errorf("contam: no report to merge")
	}
	m := parts[0]
	m.Rows, m.ContaminatedRows = 0, 0
	m.EvalSets = make([]SetReport, len(parts[0].EvalSets))
	sources := map[string]*SourceReport{}
	found := make([]map[string]*ExampleHit, len(m.EvalSets))
	var order [][]string
	for i, s := range parts[0].EvalSets {
		s.Contaminated, s.Fraction, s.Found = 0, 0, nil
		m.EvalSets[i] = s
		found[i] = map[string]*ExampleHit{}
		order = append(order, nil)
	}
	for k, p := range parts {
		if p.Params != m.Params || len(p.EvalSets) != len(m.EvalSets) {
			return Report{}, fmt.Errorf("contam: report %d was made with other parameters or evaluation sets", k)
		}
		m.Rows += p.Rows
		m.ContaminatedRows += p.ContaminatedRows
		for _, s := range p.Sources {
			into := sources[s.Source]
			if into == nil {
				into = &SourceReport{Source: s.Source}
				sources[s.Source] = into
			}
			into.Rows += s.Rows
			into.Contaminated += s.Contaminated
		}
		for i, s := range p.EvalSets {
			if s.Name != m.EvalSets[i].Name || s.Examples != m.EvalSets[i].Examples {
				return Report{}, fmt.Errorf("contam: report %d: evaluation set %d is %s with %d examples, not %s with %d",
					k, i, s.Name, s.Examples, m.EvalSets[i].Name, m.EvalSets[i].Examples)
			}
			for _, h := range s.Found {
				key := fmt.Sprintf("%d\x00%s", h.Line, h.ID)
				if into := found[i][key]; into != nil {
					into.Rows += h.Rows // its first row is in the earlier part
					continue
				}
				h := h
				found[i][key] = &h
				order[i] = append(order[i], key)
			}
		}
	}
	for i := range m.EvalSets {
		s := &m.EvalSets[i]
		s.Found = []ExampleHit{}
		for _, key := range order[i] {
			s.Found = append(s.Found, *found[i][key])
		}
		sort.SliceStable(s.Found, func(a, b int) bool { return s.Found[a].Line < s.Found[b].Line })
		s.Contaminated = len(s.Found)
		if s.Examples > 0 {
			s.Fraction = float64(s.Contaminated) / float64(s.Examples)
		}
	}
	m.Sources = []SourceReport{}
	for _, s := range sources {
		m.Sources = append(m.Sources, *s)
	}
	sort.Slice(m.Sources, func(i, j int) bool { return m.Sources[i].Source < m.Sources[j].Source })
	return m, nil
}
