package stages

import (
	"bytes"
	"compress/gzip"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cespare/xxhash/v2"

	"github.com/sluice-data/sluice/columnar"
	"github.com/sluice-data/sluice/internal/testcorpus"
	"github.com/sluice-data/sluice/kernels/quality"
	"github.com/sluice-data/sluice/pipeline"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// cleanVariants are the rule configurations the golden files pin: the
// four profiles and one that takes the less common paths (blank lines
// counted as lines, stop words too long for the stop table, a non-ASCII
// stop word, no curly-brace rule).
var cleanVariants = []string{"paper", "datatrove", "dolma", "nemo", "alt"}

func variantConfig(t testing.TB, name string) quality.Config {
	if name == "alt" {
		c := quality.DefaultConfig()
		c.GopherQuality.StopWords = append(c.GopherQuality.StopWords, "nevertheless", "überhaupt", "THE")
		c.FineWeb.CountBlankLines = true
		c.C4.DropCurlyBrace = false
		return c
	}
	c, err := quality.ProfileConfig(quality.Profile(name))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// goldenDocs are the texts the golden files run on: the 300 documents of
// the generated test corpus (package testcorpus), then craftedDocs, with a
// null text now and then.
func goldenDocs(t testing.TB) []*string {
	docs := generatedDocs(t)
	for i, d := range craftedDocs(240) {
		if i%37 == 5 {
			docs = append(docs, nil)
		}
		docs = append(docs, &d)
	}
	return docs
}

// generatedDocs returns the texts of the generated test corpus.
func generatedDocs(t testing.TB) []*string {
	var docs []*string
	for _, d := range testcorpus.Texts() {
		docs = append(docs, &d)
	}
	return docs
}

// craftedFragments are the pieces craftedDocs makes texts of: prose and
// the things the rules look for (bullets, ellipses, hashes, citations,
// phrases, braces, long words, CJK, case that lowers differently, CRLF,
// Unicode spaces, invalid UTF-8).
var craftedFragments = []string{
	"The cat sat on the mat and looked at the birds that flew by the window.",
	"It was the best of times, it was the worst of times, it was the age of wisdom.",
	"We have to go to the market with the money that they gave us.",
	"Dr. Smith arrived at 3.14 p.m. and said: \"Well, that's 1,000 dollars!\"",
	"state-of-the-art systems don't work well--known problems remain",
	"- first bullet point of the list",
	"* second bullet point here",
	"• a bullet with a round dot",
	"  ‣ indented triangle bullet",
	"and then it went on and on...",
	"and then…",
	"Read more",
	"read more..",
	"#hashtag #another #third",
	"See the results [1] and the discussion [citation needed] here [edit].",
	"A marker [12] inside [] and [x] too.",
	"Lorem ipsum dolor sit amet, consectetur adipiscing elit.",
	"Please enable JavaScript to view the comments.",
	"By using this site you agree to the Terms of Use and Privacy Policy.",
	"This website uses cookies to improve your experience.",
	"function f() { return 1; }",
	strings.Repeat("x", 1200) + " is a very long word.",
	strings.Repeat("é", 600) + " accented long word.",
	"人工智能技术正在改变世界。我们需要学习！真的吗？",
	"AI技术 and ｶﾀｶﾅ mixed with ひらがな text.",
	"ΟΔΟΣ ΣΟΦΟΣ ΘΕΟΣ in Greek capitals, with a final sigma.",
	"İstanbul ve Iğdır THE The tHe ÜBERHAUPT Überhaupt nevertheless.",
	"Ça va très bien, merci beaucoup à vous tous.",
	"line with trailing spaces   \t",
	"\u00a0\u2003non-breaking and em spaces\u00a0",
	"tabs\tinside\tthe\tline of words here today.",
	"short",
	"ok.",
	"Why?",
	"Yes!",
	"'quoted'",
	"“Curly quotes,” she said.",
	"a l’homme d’affaires",
	"e.g. the thing, i.e. this one, vs. that one. J. Smith went home.",
	"Mr. Brown and Mrs. Green met Prof. White at St. Mary's.",
	"bad \xff\xfe bytes \xc3 here.",
	"numbers 12,345.678 and 1.2.3 and 4,,5 and 6..7",
	"| -- | && || ->",
	"Copyright 2024 All rights reserved.",
	"",
	"   ",
	"Click here to subscribe to our newsletter for more updates!",
	"The the the the the the the the the the the the.",
}

// craftedWords are the words of craftedDocs' sentences.
var craftedWords = strings.Fields("the be to of and a in that have it for not on with he as you do at " +
	"this but his by from they we say her she or an will my one all would there their what so up out " +
	"river garden window market morning history village station letter summer answer picture engine " +
	"über café naïve résumé Zürich 東京 l’été don't well-known 3.5 1,200 x86 e-mail")

// craftedDocs returns n texts of made-up sentences and craftedFragments,
// joined by the line and paragraph breaks texts use, some lines repeated,
// as a fixed linear congruential generator picks them. Each text leans to
// one style: prose, prose with fragments, short lines, or fragments.
func craftedDocs(n int) []string {
	seed := uint32(20240611)
	next := func(k int) int {
		seed = seed*1664525 + 1013904223
		return int(seed>>8) % k
	}
	sentence := func() string {
		var b strings.Builder
		words := 3 + next(14)
		for w := range words {
			word := craftedWords[next(len(craftedWords))]
			if w == 0 {
				word = strings.ToUpper(word[:1]) + word[1:]
			} else {
				b.WriteByte(' ')
			}
			b.WriteString(word)
		}
		b.WriteString([]string{".", ".", ".", "!", "?", "", ",", "..."}[next(8)])
		return b.String()
	}
	seps := []string{" ", " ", " ", "\n", "\n", "\n\n", "\r\n", "\n \n", "\n\n\n", "\t"}
	docs := make([]string, n)
	for d := range docs {
		var b strings.Builder
		style := next(4)
		parts := 1 + next(80)
		var prev string
		for range parts {
			var f string
			switch {
			case prev != "" && next(8) == 0:
				f = prev // a repeated piece
			case style == 0, style == 1 && next(4) != 0, style == 2 && next(3) != 0:
				f = sentence()
				if style == 2 {
					f = f[:min(len(f), 5+next(30))]
				}
			default:
				f = craftedFragments[next(len(craftedFragments))]
			}
			b.WriteString(f)
			sep := seps[next(len(seps))]
			if style == 2 {
				sep = "\n"
			}
			b.WriteString(sep)
			prev = f
		}
		s := b.String()
		if next(4) == 0 {
			s = strings.TrimSpace(s)
		}
		docs[d] = s
	}
	return docs
}

// cleanStages builds what `sluice clean --normalize --filters
// gopher_quality,gopher_repetition,c4,fineweb --pii email,phone,ip` runs.
func cleanStages(t testing.TB, c quality.Config, annotate bool) []pipeline.Stage {
	norm, err := NewNormalize("text", NormalizeParams{})
	if err != nil {
		t.Fatal(err)
	}
	out := []pipeline.Stage{norm}
	for _, name := range quality.Names {
		q, err := NewQuality("text", name, c, annotate)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, q)
	}
	p, err := NewPII("text", PIIParams{})
	if err != nil {
		t.Fatal(err)
	}
	return append(out, p)
}

// chainResult is what a chain of stages made of one batch: the kept rows,
// and for each input row the stage and reason that removed it.
type chainResult struct {
	kept    arrow.RecordBatch
	keptRow []int // input row of each kept row
	removed map[int]string
}

// runChain runs the stages over rec as a pipeline run does: each stage
// gets the batch the one before kept.
func runChain(t testing.TB, mem memory.Allocator, sts []pipeline.Stage, rec arrow.RecordBatch, seq int64) chainResult {
	rows := make([]int, rec.NumRows())
	for i := range rows {
		rows[i] = i
	}
	removed := map[int]string{}
	rec.Retain()
	for _, st := range sts {
		res, err := st.Process(context.Background(), mem, pipeline.NewBatch(rec, seq))
		rec.Release()
		if err != nil {
			t.Fatalf("stage %s: %v", st.Name(), err)
		}
		if res.Kept.NumRows() != int64(len(rows)) {
			var kept []int
			r := 0
			for i, k := range res.Keep {
				if k {
					kept = append(kept, rows[i])
				} else {
					removed[rows[i]] = st.Name() + ":" + res.Reasons[r]
					r++
				}
			}
			rows = kept
		}
		if res.Removed != nil {
			res.Removed.Release()
		}
		rec = res.Kept
	}
	return chainResult{kept: rec, keptRow: rows, removed: removed}
}

// goldenBatch is the number of rows a batch of the golden runs holds: small
// enough for several batches, each with rows that fail.
const goldenBatch = 97

// cleanGolden runs the clean stages over the golden documents in batches,
// in filter and annotate mode, under every variant, and describes every
// row: in filter mode the stage and rule that removed it or the final text
// and PII counts, in annotate mode every column the stages add.
func cleanGolden(t testing.TB) string {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	docs := goldenDocs(t)
	var out strings.Builder
	for _, variant := range cleanVariants {
		c := variantConfig(t, variant)
		for _, annotate := range []bool{false, true} {
			mode := "filter"
			if annotate {
				mode = "annotate"
			}
			sts := cleanStages(t, c, annotate)
			header := ""
			for start := 0; start < len(docs); start += goldenBatch {
				end := min(start+goldenBatch, len(docs))
				rec := textBatch(mem, docs[start:end])
				res := runChain(t, mem, sts, rec, int64(start/goldenBatch))
				rec.Release()
				describeRows(&out, &header, variant+" "+mode, start, end-start, res)
				res.kept.Release()
			}
		}
	}
	return out.String()
}

func textBatch(mem memory.Allocator, docs []*string) arrow.RecordBatch {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for _, d := range docs {
		if d == nil {
			b.AppendNull()
		} else {
			b.Append(*d)
		}
	}
	col := b.NewStringArray()
	defer col.Release()
	s := arrow.NewSchema([]arrow.Field{{Name: "text", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
	return array.NewRecordBatch(s, []arrow.Array{col}, int64(col.Len()))
}

// describeRows writes one line a row: its number, then "removed STAGE:RULE"
// or the value of every column of the kept row (the text as its length and
// hash), after a line naming the columns when they change.
func describeRows(out *strings.Builder, header *string, label string, start, n int, res chainResult) {
	at := make(map[int]int, len(res.keptRow))
	for k, r := range res.keptRow {
		at[r] = k
	}
	rec := res.kept
	var names []string
	for _, f := range rec.Schema().Fields() {
		names = append(names, f.Name)
	}
	if h := label + " columns: " + strings.Join(names, " "); h != *header {
		*header = h
		fmt.Fprintln(out, h)
	}
	for r := range n {
		fmt.Fprintf(out, "%s %d", label, start+r)
		if why, ok := res.removed[r]; ok {
			fmt.Fprintf(out, " removed %s\n", why)
			continue
		}
		k := at[r]
		for _, col := range rec.Columns() {
			fmt.Fprintf(out, " %s", cellString(col, k))
		}
		out.WriteByte('\n')
	}
}

func cellString(col arrow.Array, i int) string {
	if col.IsNull(i) {
		return "null"
	}
	switch a := col.(type) {
	case *array.String:
		v := a.Value(i)
		if a.DataType().ID() == arrow.STRING && len(v) > 40 {
			return fmt.Sprintf("len%d:%016x", len(v), xxhash.Sum64String(v))
		}
		return strconv.Quote(v)
	case *array.Int64:
		return strconv.FormatInt(a.Value(i), 10)
	case *array.Float64:
		return strconv.FormatFloat(a.Value(i), 'g', -1, 64)
	case *array.Boolean:
		return strconv.FormatBool(a.Value(i))
	}
	return "?" + col.DataType().String()
}

// TestCleanGolden pins every decision and signal of the clean stages on
// generated and crafted documents: testdata/clean.golden.gz holds what they
// computed (go test ./stages -run TestCleanGolden -update rewrites it;
// zcat reads it).
func TestCleanGolden(t *testing.T) {
	got := cleanGolden(t)
	golden := filepath.Join("testdata", "clean.golden.gz")
	if *update {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write([]byte(got))
		zw.Close()
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.Open(golden)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	want, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if got == string(want) {
		return
	}
	gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
	shown := 0
	for i := 0; i < max(len(gl), len(wl)) && shown < 10; i++ {
		var g, w string
		if i < len(gl) {
			g = gl[i]
		}
		if i < len(wl) {
			w = wl[i]
		}
		if g != w {
			t.Errorf("line %d:\n got %s\nwant %s", i+1, g, w)
			shown++
		}
	}
	if len(gl) != len(wl) {
		t.Errorf("%d lines, want %d", len(gl), len(wl))
	}
}

// copyText is a stage that passes on a copy of the text column, as a stage
// that rewrites texts does.
type copyText struct{}

func (copyText) Name() string                                         { return "copy_text" }
func (copyText) OutputSchema(in *arrow.Schema) (*arrow.Schema, error) { return in, nil }
func (copyText) Process(_ context.Context, mem memory.Allocator, b *pipeline.Batch) (pipeline.Result, error) {
	text, idx, err := textColumn(b.Rec, "text")
	if err != nil {
		return pipeline.Result{}, err
	}
	sb := array.NewStringBuilder(mem)
	defer sb.Release()
	for i := range text.Len() {
		if text.IsNull(i) {
			sb.AppendNull()
		} else {
			sb.Append(text.Value(i))
		}
	}
	c := sb.NewStringArray()
	defer c.Release()
	return pipeline.Result{Kept: columnar.SetColumns(b.Rec, []arrow.Field{b.Rec.Schema().Field(idx)}, []arrow.Array{c})}, nil
}

// TestQualityStagesLink checks that consecutive quality stages learn which
// stage reads their output, also across a stage that passes the text
// column on as it is (pii without personal data), that the stage after one
// that passes on a new text column computes its own results, and that
// the results are those of stages that are never linked.
func TestQualityStagesLink(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	docs := goldenDocs(t)
	c := quality.DefaultConfig()
	for _, annotate := range []bool{false, true} {
		sts := cleanStages(t, c, annotate)
		gq, gr, c4, fw, pii := sts[1].(*Quality), sts[2].(*Quality), sts[3].(*Quality), sts[4].(*Quality), sts[5]
		split := []pipeline.Stage{sts[0], gq, pii, gr, copyText{}, c4, fw}
		var want, got []string
		for start := 0; start < len(docs); start += goldenBatch {
			end := min(start+goldenBatch, len(docs))
			rec := textBatch(mem, docs[start:end])
			res := runChain(t, mem, split, rec, int64(start))
			var b strings.Builder
			describeRows(&b, new(string), "", start, end-start, res)
			got = append(got, b.String())
			res.kept.Release()
			rec.Release()
		}
		if gq.next.Load() != gr || gr.next.Load() != nil || c4.next.Load() != fw || fw.next.Load() != nil {
			t.Errorf("annotate %v: links gq→%p gr→%p c4→%p fw→%p, want gq→gr (%p), c4→fw (%p)",
				annotate, gq.next.Load(), gr.next.Load(), c4.next.Load(), fw.next.Load(), gr, fw)
		}
		// The same stages, fresh, and never linked: each computes its own.
		fresh := cleanStages(t, c, annotate)
		alone := []pipeline.Stage{fresh[0], fresh[1], fresh[5], fresh[2], copyText{}, fresh[3], fresh[4]}
		for start := 0; start < len(docs); start += goldenBatch {
			end := min(start+goldenBatch, len(docs))
			rec := textBatch(mem, docs[start:end])
			for _, st := range alone {
				if q, ok := st.(*Quality); ok {
					q.next.Store(nil)
				}
			}
			res := runChain(t, mem, alone, rec, int64(start))
			var b strings.Builder
			describeRows(&b, new(string), "", start, end-start, res)
			want = append(want, b.String())
			res.kept.Release()
			rec.Release()
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("annotate %v: batch %d differs between linked and unlinked stages:\n%s\nwant\n%s", annotate, i, got[i], want[i])
			}
		}
	}
}
