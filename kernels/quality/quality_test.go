package quality

import (
	"fmt"
	"github.com/sluice-data/sluice/internal/arrowtest"
	"math"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// outcome is what a filter computed for one text, in plain Go values.
type outcome struct {
	signals   map[string]float64
	fail      string
	rewritten string
}

var (
	ptr          = arrowtest.Ptr
	buildStrings = arrowtest.Strings
)

// applyAll runs the filter called name over texts and returns one outcome a
// row (nil for a null row), checking the shape of the result and that every
// buffer is released.
func applyAll(t *testing.T, name string, c Config, texts []*string) []*outcome {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	f, err := New(name, c)
	if err != nil {
		t.Fatalf("New(%q): %v", name, err)
	}
	arr := buildStrings(mem, texts)
	defer arr.Release()
	res, err := f.Apply(mem, arr)
	if err != nil {
		t.Fatalf("Apply: %v", err)
	}
	defer res.Release()
	return outcomes(t, f, res, texts)
}

func outcomes(t *testing.T, f Filter, res Result, texts []*string) []*outcome {
	t.Helper()
	names := f.Signals()
	if len(res.Signals) != len(names) {
		t.Fatalf("%d signal columns, want %d", len(res.Signals), len(names))
	}
	if len(res.Fail) != len(texts) {
		t.Fatalf("%d fail reasons, want %d", len(res.Fail), len(texts))
	}
	if (res.Rewritten != nil) != (f.Name() == "c4") {
		t.Fatalf("%s: Rewritten non-nil is %v", f.Name(), res.Rewritten != nil)
	}
	out := make([]*outcome, len(texts))
	for i, txt := range texts {
		for k, a := range res.Signals {
			if a.Len() != len(texts) {
				t.Fatalf("signal %s has %d rows, want %d", names[k], a.Len(), len(texts))
			}
			if a.IsNull(i) != (txt == nil) {
				t.Fatalf("row %d signal %s null=%v, text null=%v", i, names[k], a.IsNull(i), txt == nil)
			}
		}
		if res.Rewritten != nil && res.Rewritten.IsNull(i) != (txt == nil) {
			t.Fatalf("row %d rewritten null=%v, text null=%v", i, res.Rewritten.IsNull(i), txt == nil)
		}
		if txt == nil {
			if res.Fail[i] != "" {
				t.Fatalf("row %d: null text fails %q", i, res.Fail[i])
			}
			continue
		}
		o := &outcome{signals: map[string]float64{}, fail: res.Fail[i]}
		for k, a := range res.Signals {
			switch a := a.(type) {
			case *array.Int64:
				o.signals[names[k]] = float64(a.Value(i))
			case *array.Float64:
				o.signals[names[k]] = a.Value(i)
			default:
				t.Fatalf("signal %s has type %s", names[k], a.DataType())
			}
		}
		if res.Rewritten != nil {
			o.rewritten = res.Rewritten.Value(i)
		}
		out[i] = o
	}
	return out
}

func apply(t *testing.T, name string, c Config, text string) *outcome {
	t.Helper()
	return applyAll(t, name, c, []*string{&text})[0]
}

// prose returns the sentences of testdata/prose.txt, one a line.
func prose(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile("testdata/prose.txt")
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(b)), "\n")
}

// uniqueWords returns n (up to 26³) distinct four-letter words that appear
// in no other test text.
func uniqueWords(n int) []string {
	out := make([]string, n)
	for i := range n {
		out[i] = string([]byte{'q', byte('a' + i/676%26), byte('a' + i/26%26), byte('a' + i%26)})
	}
	return out
}

// filler returns distinct words, starting at word number from, whose
// characters add up to exactly chars.
func filler(from, chars int) []string {
	ws := uniqueWords(from + chars/4 + 1)[from:]
	out := ws[:chars/4]
	if r := chars % 4; r > 0 {
		out = append(out, strings.Repeat("z", r))
	}
	return out
}

func TestProseKeptByEveryFilter(t *testing.T) {
	text := strings.Join(prose(t)[:20], "\n")
	for _, name := range Names {
		for _, profile := range Profiles {
			c, err := ProfileConfig(profile)
			if err != nil {
				t.Fatal(err)
			}
			o := apply(t, name, c, text)
			if o.fail != "" {
				t.Errorf("%s (%s): prose fails %q; signals %v", name, profile, o.fail, o.signals)
			}
		}
	}
	o := apply(t, "c4", DefaultConfig(), text)
	if o.rewritten != text {
		t.Errorf("c4 rewrote clean prose:\n%s", o.rewritten)
	}
}

func TestNew(t *testing.T) {
	for _, name := range Names {
		f, err := New(name, DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		if f.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, f.Name())
		}
		prefix := map[string]string{"gopher_quality": "gopher_", "gopher_repetition": "gopher_rep_", "c4": "c4_", "fineweb": "fineweb_"}[name]
		for _, s := range f.Signals() {
			if !strings.HasPrefix(s, prefix) {
				t.Errorf("%s signal %q lacks prefix %q", name, s, prefix)
			}
		}
	}
	if _, err := New("nope", DefaultConfig()); err == nil || !strings.Contains(err.Error(), "unknown filter") {
		t.Errorf("New(nope) error = %v", err)
	}
	bad := DefaultConfig()
	bad.C4.MaxWordLength = 0
	bad.FineWeb.MaxShortLineFrac = 2
	if _, err := New("c4", bad); err == nil || !strings.Contains(err.Error(), "c4.max_word_length") {
		t.Errorf("New(c4) with a bad c4 section: %v", err)
	}
	// A problem in another section does not stop this filter.
	if _, err := New("gopher_quality", bad); err != nil {
		t.Errorf("New(gopher_quality) with a bad c4 section: %v", err)
	}
}

// testColumn is the test column: nulls at both ends and inside, empty text,
// prose, repetitive and list-like text, CJK and invalid UTF-8.
func testColumn(t *testing.T) []*string {
	p := prose(t)
	return []*string{
		nil,
		ptr(strings.Join(p[:12], "\n")),
		ptr(""),
		nil,
		ptr(strings.Repeat("Buy now and save big today.\n", 30)),
		ptr("- one\n- two\n- three\n\n- four..."),
		ptr(strings.Join(p[12:30], "\n\n")),
		ptr("中文文本也一样。日本語のテキスト。\n" + p[40]),
		ptr("bad \xff\xfe utf-8 {code} [1] lorem ipsum.\r\nJavaScript is required here, please."),
		ptr(strings.Join(p[30:45], " ") + "\n" + p[5] + " [citation needed]\n" + p[6] + "[2]"),
		nil,
	}
}

func TestColumns(t *testing.T) {
	texts := testColumn(t)
	n := len(texts)
	cases := []struct {
		name     string
		from, to int
	}{
		{"whole", 0, n},
		{"sliced", 1, n - 1},
		{"sliced from a null", 3, 8},
		{"sliced without nulls", 4, 7},
		{"empty", 2, 2},
	}
	for _, name := range Names {
		c := DefaultConfig()
		// Each row alone is the reference.
		var want []*outcome
		for _, txt := range texts {
			if txt == nil {
				want = append(want, nil)
			} else {
				want = append(want, apply(t, name, c, *txt))
			}
		}
		for _, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
				defer mem.AssertSize(t, 0)
				f, err := New(name, c)
				if err != nil {
					t.Fatal(err)
				}
				arr := buildStrings(mem, texts)
				defer arr.Release()
				in := array.NewSlice(arr, int64(tc.from), int64(tc.to)).(*array.String)
				defer in.Release()
				res, err := f.Apply(mem, in)
				if err != nil {
					t.Fatal(err)
				}
				defer res.Release()
				got := outcomes(t, f, res, texts[tc.from:tc.to])
				for i, g := range got {
					w := want[tc.from+i]
					if describe(g) != describe(w) {
						t.Errorf("row %d: got %s, want %s", tc.from+i, describe(g), describe(w))
					}
				}
			})
		}
	}
}

func TestSignalTypes(t *testing.T) {
	ints := map[string]bool{"gopher_word_count": true, "gopher_stop_words": true, "c4_lines_kept": true, "c4_lines_removed": true, "c4_sentences": true}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	arr := buildStrings(mem, []*string{ptr("some text."), nil})
	defer arr.Release()
	for _, name := range Names {
		f, _ := New(name, DefaultConfig())
		res, err := f.Apply(mem, arr)
		if err != nil {
			t.Fatal(err)
		}
		for k, a := range res.Signals {
			want := arrow.FLOAT64
			if ints[f.Signals()[k]] {
				want = arrow.INT64
			}
			if a.DataType().ID() != want {
				t.Errorf("%s is %s, want %s", f.Signals()[k], a.DataType(), want)
			}
		}
		res.Release()
	}
}

func TestNoValueBuffer(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	arr := buildStrings(mem, []*string{nil, nil})
	defer arr.Release()
	for _, name := range Names {
		f, _ := New(name, DefaultConfig())
		res, err := f.Apply(mem, arr)
		if err != nil {
			t.Fatal(err)
		}
		outcomes(t, f, res, []*string{nil, nil})
		res.Release()
	}
}

func TestConcurrentApply(t *testing.T) {
	texts := testColumn(t)
	for _, name := range Names {
		f, _ := New(name, DefaultConfig())
		want := applyAll(t, name, DefaultConfig(), texts)
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				mem := memory.NewGoAllocator()
				arr := buildStrings(mem, texts)
				defer arr.Release()
				for range 20 {
					res, err := f.Apply(mem, arr)
					if err != nil {
						t.Error(err)
						return
					}
					got := outcomes(t, f, res, texts)
					res.Release()
					for i := range got {
						if describe(got[i]) != describe(want[i]) {
							t.Errorf("%s row %d: concurrent result %s, want %s", name, i, describe(got[i]), describe(want[i]))
							return
						}
					}
				}
			})
		}
		wg.Wait()
	}
}

// TestAllocsPerRowConstant checks that Apply allocates per call, not per row.
func TestAllocsPerRowConstant(t *testing.T) {
	p := prose(t)
	docs := func(n int) *array.String {
		vals := make([]*string, n)
		for i := range n {
			vals[i] = ptr(strings.Join(p[i%30:i%30+25], "\n"))
		}
		return buildStrings(memory.DefaultAllocator, vals)
	}
	small, large := docs(10), docs(500)
	defer small.Release()
	defer large.Release()
	for _, name := range Names {
		f, _ := New(name, DefaultConfig())
		run := func(arr *array.String) float64 {
			return testing.AllocsPerRun(20, func() {
				res, _ := f.Apply(memory.DefaultAllocator, arr)
				res.Release()
			})
		}
		run(large) // grow the pooled scratch state
		a, b := run(small), run(large)
		if b > a+2 {
			t.Errorf("%s: %v allocations for 10 rows, %v for 500", name, a, b)
		}
	}
}

// describe prints an outcome with its signals in name order.
func describe(o *outcome) string {
	if o == nil {
		return "<null>"
	}
	return fmt.Sprintf("fail=%q signals=%v rewritten=%q", o.fail, o.signals, o.rewritten)
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestEmptyColumn(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	arr := buildStrings(mem, nil)
	defer arr.Release()
	for _, name := range Names {
		f, _ := New(name, DefaultConfig())
		res, err := f.Apply(mem, arr)
		if err != nil {
			t.Fatal(err)
		}
		outcomes(t, f, res, nil)
		res.Release()
	}
}
