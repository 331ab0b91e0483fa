package quality

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sluice-data/sluice/internal/testcorpus"
)

// chainTexts are the texts the chain tests run on: the test column, the
// generated corpus and texts where C4 keeps an empty line, cleans
// citations or keeps nothing.
func chainTexts(t *testing.T) []*string {
	texts := testColumn(t)
	for _, d := range testcorpus.Texts() {
		texts = append(texts, &d)
	}
	p := prose(t)
	for _, s := range []string{
		"[1]\n" + strings.Join(p[:8], "\n") + "\n[2] [edit]",
		strings.Join(p[:8], "\n") + "\n[citation needed]",
		"[3]",
		strings.Join(p[8:14], " [4]\n\n") + "\r\n\r\n" + p[20],
		"short\nlines\nonly",
		"Ünïcode Σίσυφος ΟΔΟΣ. " + strings.Join(p[14:20], "\n \u00a0\n") + "\n…",
		strings.Repeat(p[3]+"\n", 12),
		"",
		"\n\n\n",
	} {
		texts = append(texts, &s)
	}
	return texts
}

// chainConfigs are the configurations the chain tests run under: every
// profile, and rules that keep a line of citation markers alone (an empty
// line in C4's output).
func chainConfigs(t *testing.T) map[string]Config {
	out := map[string]Config{}
	for _, p := range Profiles {
		c, err := ProfileConfig(p)
		if err != nil {
			t.Fatal(err)
		}
		out[string(p)] = c
	}
	c := DefaultConfig()
	c.C4.MinWordsPerLine = 0
	c.C4.RequireEndMark = false
	c.C4.MinSentences = 0
	c.FineWeb.CountBlankLines = true
	out["empty-lines"] = c
	return out
}

// TestChainMatchesStages checks that ApplyChain gives each filter what its
// Apply gives on the text it would read as a stage: the input text, or the
// text the C4 before it rewrote.
func TestChainMatchesStages(t *testing.T) {
	texts := chainTexts(t)
	orders := [][]string{
		Names,
		{"c4", "gopher_quality", "gopher_repetition", "fineweb"},
		{"gopher_repetition", "fineweb"},
		{"c4", "fineweb", "c4", "gopher_repetition"},
		{"fineweb", "c4"},
	}
	for cname, c := range chainConfigs(t) {
		for _, order := range orders {
			t.Run(cname+"/"+strings.Join(order, ","), func(t *testing.T) {
				mem, fs, arr, got := chainRun(t, c, order, texts, ApplyChain)
				in := arr
				for k, f := range fs {
					want, err := f.Apply(mem, in)
					if err != nil {
						t.Fatal(err)
					}
					compareResults(t, f, got[k], want, in)
					if want.Rewritten != nil {
						if in != arr {
							in.Release()
						}
						in = want.Rewritten
						in.Retain()
					}
					want.Release()
				}
				if in != arr {
					in.Release()
				}
			})
		}
	}
}

// chainRun makes the filters of order with config c and applies them to
// texts with apply. When the test ends, the results and the column are
// released and the allocator is checked to hold nothing.
func chainRun(t *testing.T, c Config, order []string, texts []*string,
	apply func(memory.Allocator, *array.String, []Filter) ([]Result, error)) (memory.Allocator, []Filter, *array.String, []Result) {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	fs := newFilters(t, order, c)
	arr := buildStrings(mem, texts)
	t.Cleanup(arr.Release)
	got, err := apply(mem, arr, fs)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, r := range got {
			r.Release()
		}
	})
	return mem, fs, arr, got
}

// newFilters makes the rule sets names with config c.
func newFilters(tb testing.TB, names []string, c Config) []Filter {
	tb.Helper()
	var fs []Filter
	for _, name := range names {
		f, err := New(name, c)
		if err != nil {
			tb.Fatal(err)
		}
		fs = append(fs, f)
	}
	return fs
}

// compareResults fails the test where got and want differ: a signal value
// (bit for bit; got may have none: ApplyChainKept's), a fail reason or a
// rewritten text.
func compareResults(t *testing.T, f Filter, got, want Result, in *array.String) {
	t.Helper()
	for k, name := range f.Signals() {
		if got.Signals == nil {
			break
		}
		g, w := got.Signals[k], want.Signals[k]
		for i := range in.Len() {
			if g.IsNull(i) != w.IsNull(i) || g.ValueStr(i) != w.ValueStr(i) ||
				fmt.Sprint(valueBits(g, i)) != fmt.Sprint(valueBits(w, i)) {
				t.Fatalf("%s: row %d: %s = %s, alone %s (text %.80q)", f.Name(), i, name, g.ValueStr(i), w.ValueStr(i), in.Value(i))
			}
		}
	}
	for i := range in.Len() {
		if got.Fail[i] != want.Fail[i] {
			t.Fatalf("%s: row %d fails %q, alone %q (text %.80q)", f.Name(), i, got.Fail[i], want.Fail[i], in.Value(i))
		}
	}
	if (got.Rewritten == nil) != (want.Rewritten == nil) {
		t.Fatalf("%s: rewritten %v, alone %v", f.Name(), got.Rewritten != nil, want.Rewritten != nil)
	}
	if got.Rewritten != nil {
		for i := range in.Len() {
			if got.Rewritten.IsNull(i) != want.Rewritten.IsNull(i) || got.Rewritten.Value(i) != want.Rewritten.Value(i) {
				t.Fatalf("%s: row %d rewritten %.80q, alone %.80q", f.Name(), i, got.Rewritten.Value(i), want.Rewritten.Value(i))
			}
		}
	}
}

// valueBits is the bits of a float64 signal, so that -0 and NaN compare
// exactly, or the value of an int64 one.
func valueBits(a interface{ IsNull(int) bool }, i int) any {
	switch a := a.(type) {
	case *array.Float64:
		return math.Float64bits(a.Value(i))
	case *array.Int64:
		return a.Value(i)
	}
	return nil
}

func TestApplyChainRefusesOtherFilters(t *testing.T) {
	arr := buildStrings(memory.DefaultAllocator, []*string{ptr("x")})
	defer arr.Release()
	if _, err := ApplyChain(memory.DefaultAllocator, arr, []Filter{otherFilter{}}); err == nil {
		t.Fatal("ApplyChain took a filter New did not make")
	}
}

type otherFilter struct{}

func (otherFilter) Name() string      { return "other" }
func (otherFilter) Signals() []string { return nil }
func (otherFilter) Apply(memory.Allocator, *array.String) (Result, error) {
	return Result{}, nil
}

// TestChainKeptMatchesStages checks that ApplyChainKept gives each filter
// the decisions and rewritten texts its Apply gives on the rows it would
// get as a stage in filter mode: those every filter before it passed, as
// the C4 before it rewrote them (and no signals, which it does not
// measure to the end).
func TestChainKeptMatchesStages(t *testing.T) {
	texts := chainTexts(t)
	orders := [][]string{
		Names,
		{"c4", "gopher_quality", "fineweb"},
		{"gopher_repetition", "fineweb", "c4"},
	}
	for cname, c := range chainConfigs(t) {
		for _, order := range orders {
			t.Run(cname+"/"+strings.Join(order, ","), func(t *testing.T) {
				mem, fs, _, got := chainRun(t, c, order, texts, ApplyChainKept)
				cur := texts
				for k, f := range fs {
					in := buildStrings(mem, cur)
					want, err := f.Apply(mem, in)
					if err != nil {
						t.Fatal(err)
					}
					if got[k].Fail == nil && len(cur) > 0 || len(got[k].Fail) != len(cur) {
						t.Fatalf("%s: %d rows, want %d", f.Name(), len(got[k].Fail), len(cur))
					}
					if got[k].Signals != nil {
						t.Fatalf("%s: signals in filter mode", f.Name())
					}
					compareResults(t, f, got[k], want, in)
					var next []*string
					for i, txt := range cur {
						if want.Fail[i] != "" {
							continue
						}
						if want.Rewritten != nil && txt != nil {
							s := want.Rewritten.Value(i)
							txt = &s
						}
						next = append(next, txt)
					}
					cur = next
					want.Release()
					in.Release()
				}
			})
		}
	}
}
