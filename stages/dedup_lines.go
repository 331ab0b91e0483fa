package stages

import (
	"bytes"
	"context"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cespare/xxhash/v2"
	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/pipeline"
)

// LinesParams are the parameters of line deduplication.
type LinesParams struct {
	// KeepFirst keeps the first copy of a repeated line (in input order)
	// instead of removing every copy.
	KeepFirst bool `yaml:"keep_first" json:"keep_first"`
	// MinLineChars leaves lines shorter than this (in characters, after
	// trimming white space) alone: they are neither counted nor removed.
	MinLineChars int `yaml:"min_line_chars" json:"min_line_chars"`
}

// LineIndex counts every line's 64-bit hash over the corpus with
// saturating counters (a line seen twice is all that matters), and, for
// keep-first, the position of its first copy. Memory: about 9 bytes per
// distinct line plus the map's overhead (17 with keep-first).
type LineIndex struct {
	shards [64]lineShard
}

type lineShard struct {
	mu    sync.Mutex
	count map[uint64]uint8
	first map[uint64]uint64
}

// NewLineIndex returns an empty index.
func NewLineIndex() *LineIndex {
	x := &LineIndex{}
	for i := range x.shards {
		x.shards[i].count = map[uint64]uint8{}
		x.shards[i].first = map[uint64]uint64{}
	}
	return x
}

// Len returns the number of distinct lines counted.
func (x *LineIndex) Len() int {
	n := 0
	for i := range x.shards {
		n += len(x.shards[i].count)
	}
	return n
}

// Each calls fn for every distinct line hash with its saturating count
// and, for keep-first, the position of its first copy, in no particular
// order.
func (x *LineIndex) Each(fn func(h uint64, count uint8, first uint64) error) error {
	for i := range x.shards {
		sh := &x.shards[i]
		sh.mu.Lock()
		for h, c := range sh.count {
			if err := fn(h, c, sh.first[h]); err != nil {
				sh.mu.Unlock()
				return err
			}
		}
		sh.mu.Unlock()
	}
	return nil
}

// NoCopyKept is the first position Seed takes for a repeated line whose
// kept copy is elsewhere (in another shard of a sharded run): every copy
// here goes.
const NoCopyKept = ^uint64(0)

// Seed records that the line with hash h occurs more than once in the
// whole corpus, and where its kept copy is (keep-first; NoCopyKept when
// it is not among the rows this index's filter will see).
func (x *LineIndex) Seed(h, keep uint64) {
	sh := &x.shards[h%uint64(len(x.shards))]
	sh.mu.Lock()
	sh.count[h] = 2
	sh.first[h] = keep
	sh.mu.Unlock()
}

// linePos orders lines in input order: the row's position, then the
// line's index within the row.
func linePos(rowPos uint64, line int) uint64 { return rowPos<<16 | uint64(min(line, 0xffff)) }

// lines calls fn for every line of text that is long enough to count,
// with its hash and index; the line excludes its newline, and hashing
// ignores surrounding white space.
func (p LinesParams) lines(text []byte, fn func(i int, start, end int, h uint64)) {
	i, start := 0, 0
	for start <= len(text) {
		end := bytes.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		line := bytes.TrimSpace(text[start:end])
		if len(line) > 0 && utf8.RuneCount(line) >= p.MinLineChars {
			fn(i, start, end, xxhash.Sum64(line))
		}
		i++
		start = end + 1
	}
}

// LinesScan is the first pass of line dedup: it counts lines and passes
// the batch on unchanged.
type LinesScan struct {
	textField string
	params    LinesParams
	index     *LineIndex
}

// NewLinesScan returns the counting pass that fills index.
func NewLinesScan(textField string, p LinesParams, index *LineIndex) *LinesScan {
	return &LinesScan{textField: textField, params: p, index: index}
}

func (s *LinesScan) Name() string      { return "dedup_lines_scan" }
func (s *LinesScan) Columns() []string { return []string{s.textField} }
func (s *LinesScan) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return in, checkTextField(in, s.textField)
}

func (s *LinesScan) Process(ctx context.Context, _ memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, _, err := textColumn(rec, s.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	type seen struct {
		h   uint64
		pos uint64
	}
	var lines []seen
	for row := 0; row < text.Len(); row++ {
		if text.IsNull(row) {
			continue
		}
		rowPos := position(batch, row)
		s.params.lines(valueBytes(text, row), func(i, _, _ int, h uint64) {
			lines = append(lines, seen{h, linePos(rowPos, i)})
		})
	}
	for _, l := range lines {
		sh := &s.index.shards[l.h%uint64(len(s.index.shards))]
		sh.mu.Lock()
		if c := sh.count[l.h]; c < 255 {
			sh.count[l.h] = c + 1
		}
		if s.params.KeepFirst {
			if cur, ok := sh.first[l.h]; !ok || l.pos < cur {
				sh.first[l.h] = l.pos
			}
		}
		sh.mu.Unlock()
	}
	rec.Retain()
	return pipeline.Result{Kept: rec}, nil
}

// DedupLines is the second pass: it rewrites each text without its
// repeated lines, each removed with its line break ("\n" or "\r\n"),
// leaving every other byte as it was; a text left empty (or blank) goes
// to removed/ with _reason empty_after_line_dedup.
type DedupLines struct {
	textField string
	params    LinesParams
	index     *LineIndex
}

// NewDedupLines returns the rewriting pass over a filled index.
func NewDedupLines(textField string, p LinesParams, index *LineIndex) *DedupLines {
	return &DedupLines{textField: textField, params: p, index: index}
}

func (d *DedupLines) Name() string { return "dedup_lines" }
func (d *DedupLines) Config() any  { return d.params }
func (d *DedupLines) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) {
	return in, checkTextField(in, d.textField)
}

// drop reports whether the line with hash h at position pos goes.
func (d *DedupLines) drop(h, pos uint64) bool {
	sh := &d.index.shards[h%uint64(len(d.index.shards))]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.count[h] < 2 {
		return false
	}
	return !d.params.KeepFirst || sh.first[h] != pos
}

func (d *DedupLines) Process(ctx context.Context, mem memory.Allocator, batch *pipeline.Batch) (pipeline.Result, error) {
	rec := batch.Rec
	text, idx, err := textColumn(rec, d.textField)
	if err != nil {
		return pipeline.Result{}, err
	}
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.ReserveData(len(text.ValueBytes()))
	keep := make([]bool, text.Len())
	var out []byte
	for row := 0; row < text.Len(); row++ {
		keep[row] = true
		if text.IsNull(row) {
			b.AppendNull()
			continue
		}
		src := valueBytes(text, row)
		rowPos := position(batch, row)
		out = out[:0]
		last, dropped := 0, 0
		d.params.lines(src, func(i, start, end int, h uint64) {
			if !d.drop(h, linePos(rowPos, i)) {
				return
			}
			dropped++
			out = append(out, src[last:start]...)
			last = end + 1 // the line and its newline go
		})
		if dropped == 0 {
			b.BinaryBuilder.Append(src)
			continue
		}
		// Kept lines stay as they were, line breaks included: a removed
		// line takes only its own break with it.
		if last < len(src) {
			out = append(out, src[last:]...)
		}
		if len(bytes.TrimSpace(out)) == 0 {
			keep[row] = false
		}
		b.BinaryBuilder.Append(out)
	}
	rewritten := b.NewStringArray()
	defer rewritten.Release()
	withText := columnar.SetColumns(rec, []arrow.Field{rec.Schema().Field(idx)}, []arrow.Array{rewritten})
	defer withText.Release()
	kept, err := columnar.Filter(ctx, mem, withText, keep, true)
	if err != nil {
		return pipeline.Result{}, err
	}
	// Removed rows keep their text as it came, to show what was lost.
	removed, err := columnar.Filter(ctx, mem, rec, keep, false)
	if err != nil {
		kept.Release()
		return pipeline.Result{}, err
	}
	reasons := make([]string, removed.NumRows())
	for i := range reasons {
		reasons[i] = "empty_after_line_dedup"
	}
	return pipeline.Result{Kept: kept, Removed: removed, Reasons: reasons, Keep: keep}, nil
}
