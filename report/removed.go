package report

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
)

// Reason is what one removal reason of one stage removed.
type Reason struct {
	Run           int
	Stage, Reason string
	Rows          int64 // rows in removed/ with this _stage and _reason
	Manifest      int64 // rows the manifest counts for it
	Tokens        int64
	HasTokens     bool
	Examples      []Example
}

// Example is one removed row, cut for the page.
type Example struct {
	ID, Source, Text, DupOf string
	Cut                     bool // the text was longer than shown
	NullText                bool
}

// pos is where a row is: file, row group, row.
type pos struct {
	run, file, group, row int
}

func comparePos(a, b pos) int {
	return cmp.Or(cmp.Compare(a.run, b.run), cmp.Compare(a.file, b.file), cmp.Compare(a.group, b.group), cmp.Compare(a.row, b.row))
}

type reasonKey struct {
	run           int
	stage, reason string
}

// scanRemoved counts the rows of every removed/ file by stage and reason
// (reading _stage, _reason and n_tokens), then reads the text, id and
// source of the first rows of each reason, in the row groups that hold
// them only.
func (rep *Report) scanRemoved(ctx context.Context) error {
	counts := map[reasonKey]*Reason{}
	examples := map[reasonKey][]pos{}
	k := rep.opts.Examples
	for ri, run := range rep.Runs {
		if len(run.removed) == 0 {
			continue
		}
		var mu sync.Mutex
		err := eachRowGroup(ctx, rep.opts.Mem, run.removed, []string{"_stage", "_reason", "n_tokens"}, rep.opts.Workers, nil,
			func(_ int, g group, rec arrow.RecordBatch) error {
				stage, reason := stringColumn(rec, "_stage"), stringColumn(rec, "_reason")
				toks, hasTok := numericColumn(rec, "n_tokens")
				local := map[reasonKey]*Reason{}
				firsts := map[reasonKey][]pos{}
				for i := 0; i < int(rec.NumRows()); i++ {
					key := reasonKey{ri, stage.value(i), reason.value(i)}
					r := local[key]
					if r == nil {
						r = &Reason{Run: ri, Stage: key.stage, Reason: key.reason, HasTokens: hasTok}
						local[key] = r
					}
					r.Rows++
					if v, ok := toks.value(i); ok {
						r.Tokens += int64(v)
					}
					if len(firsts[key]) < k {
						firsts[key] = append(firsts[key], pos{ri, g.file, g.group, i})
					}
				}
				mu.Lock()
				defer mu.Unlock()
				for key, r := range local {
					if c := counts[key]; c != nil {
						c.Rows += r.Rows
						c.Tokens += r.Tokens
						c.HasTokens = c.HasTokens && r.HasTokens
					} else {
						counts[key] = r
					}
					examples[key] = append(examples[key], firsts[key]...)
				}
				return nil
			})
		if err != nil {
			return err
		}
	}
	// The manifest's counts, for reasons whose rows were not written
	// (a one-file JSONL output) or that differ.
	for ri, run := range rep.Runs {
		for _, s := range run.Manifest.Stages {
			for reason, n := range s.Removed {
				key := reasonKey{ri, s.Name, reason}
				if counts[key] == nil {
					counts[key] = &Reason{Run: ri, Stage: s.Name, Reason: reason}
				}
				counts[key].Manifest += n
			}
		}
	}
	// The first k rows of each reason, in file order, grouped by the row
	// group that holds them.
	want := map[int]map[group][]pos{} // by run
	for key, ps := range examples {
		slices.SortFunc(ps, comparePos)
		ps = ps[:min(k, len(ps))]
		examples[key] = ps
		for _, p := range ps {
			g := group{p.file, p.group}
			if want[p.run] == nil {
				want[p.run] = map[group][]pos{}
			}
			want[p.run][g] = append(want[p.run][g], p)
		}
	}
	got := map[pos]Example{}
	cols := []string{rep.IDField, rep.TextField, "_dup_of"}
	if top, _, _ := cutDot(rep.SourceField); top != "" {
		cols = append(cols, top)
	}
	for ri, groups := range want {
		only := make([]group, 0, len(groups))
		for g := range groups {
			only = append(only, g)
		}
		slices.SortFunc(only, func(a, b group) int { return cmp.Or(cmp.Compare(a.file, b.file), cmp.Compare(a.group, b.group)) })
		var mu sync.Mutex
		err := eachRowGroup(ctx, rep.opts.Mem, rep.Runs[ri].removed, cols, rep.opts.Workers, only,
			func(_ int, g group, rec arrow.RecordBatch) error {
				id, text := stringColumn(rec, rep.IDField), stringColumn(rec, rep.TextField)
				src, dup := stringColumn(rec, rep.SourceField), stringColumn(rec, "_dup_of")
				mu.Lock()
				defer mu.Unlock()
				for _, p := range groups[g] {
					ex := Example{ID: id.value(p.row), Source: src.value(p.row), DupOf: dup.value(p.row), NullText: text.isNull(p.row)}
					ex.Text, ex.Cut = snippet(text.value(p.row), rep.opts.Snippet)
					got[p] = ex
				}
				return nil
			})
		if err != nil {
			return err
		}
	}
	for key, r := range counts {
		for _, p := range examples[key] {
			r.Examples = append(r.Examples, got[p])
		}
		rep.Reasons = append(rep.Reasons, *r)
	}
	slices.SortFunc(rep.Reasons, func(a, b Reason) int {
		return cmp.Or(cmp.Compare(a.Run, b.Run), cmp.Compare(max(b.Rows, b.Manifest), max(a.Rows, a.Manifest)),
			strings.Compare(a.Stage, b.Stage), strings.Compare(a.Reason, b.Reason))
	})
	return nil
}

// snippet cuts s to n characters at a word boundary near the end, with
// its line breaks kept (the page shows them).
func snippet(s string, n int) (string, bool) {
	if utf8.RuneCountInString(s) <= n {
		return s, false
	}
	cut := 0
	for i := range s {
		if n == 0 {
			cut = i
			break
		}
		n--
	}
	t := s[:cut]
	if sp := strings.LastIndexAny(t, " \n\t"); sp > len(t)*3/4 {
		t = t[:sp]
	}
	return strings.TrimRight(t, " \n\t"), true
}
