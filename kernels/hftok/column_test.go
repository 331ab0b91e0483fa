package hftok

import (
	"fmt"
	"github.com/sluice-data/sluice/internal/arrowtest"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// columnTexts is the test column; nil is a null.
var columnTexts = []*string{
	ptr("the thing"),
	nil,
	ptr(""),
	ptr("a   b"),
	ptr("x     "),
	ptr("it's 123\n\nthe end"),
	nil,
	ptr("naïve café \xff"),
	ptr(strings.Repeat("thing ", 40)),
	ptr("last"),
}

var (
	ptr               = arrowtest.Ptr
	buildStrings      = arrowtest.Strings
	buildLargeStrings = arrowtest.LargeStrings
)

func checkColumn(t *testing.T, tok *Tokenizer, got *array.Int64, want []*string) {
	t.Helper()
	if got.Len() != len(want) {
		t.Fatalf("length %d, want %d", got.Len(), len(want))
	}
	c := tok.NewCounter()
	for i, w := range want {
		switch {
		case w == nil && got.IsValid(i):
			t.Errorf("row %d: got %d, want null", i, got.Value(i))
		case w == nil:
		case !got.IsValid(i):
			t.Errorf("row %d: got null, want a count", i)
		default:
			if n := int64(c.Count([]byte(*w))); got.Value(i) != n {
				t.Errorf("row %d %q: got %d, want %d", i, *w, got.Value(i), n)
			}
		}
	}
}

func TestColumn(t *testing.T) {
	tok := config{}.tokenizer(t)
	n := len(columnTexts)
	cases := []struct {
		name     string
		from, to int
	}{
		{"whole", 0, n},
		{"sliced", 1, n - 1},
		{"sliced from a null", 1, 4},
		{"sliced without nulls", 2, 6},
		{"empty", 3, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			c := tok.NewCounter()

			arr := buildStrings(mem, columnTexts)
			defer arr.Release()
			in := array.NewSlice(arr, int64(tc.from), int64(tc.to)).(*array.String)
			defer in.Release()
			got := c.Column(mem, in)
			defer got.Release()
			checkColumn(t, tok, got, columnTexts[tc.from:tc.to])

			larr := buildLargeStrings(mem, columnTexts)
			defer larr.Release()
			lin := array.NewSlice(larr, int64(tc.from), int64(tc.to)).(*array.LargeString)
			defer lin.Release()
			lgot := c.LargeColumn(mem, lin)
			defer lgot.Release()
			checkColumn(t, tok, lgot, columnTexts[tc.from:tc.to])
		})
	}
}

// TestColumnValues pins a few counts worked out by hand (see gpt2Cases).
func TestColumnValues(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	arr := buildStrings(mem, []*string{ptr("the thing"), nil, ptr(""), ptr("a   b")})
	defer arr.Release()
	got := config{}.tokenizer(t).NewCounter().Column(mem, arr)
	defer got.Release()
	if got.NullN() != 1 || got.Value(0) != 3 || got.IsValid(1) || got.Value(2) != 0 || got.Value(3) != 4 {
		t.Errorf("got %v, want [3 (null) 0 4]", got)
	}
}

func TestCountAllocs(t *testing.T) {
	c := config{}.tokenizer(t).NewCounter()
	text := []byte("the thing, a   b, it's 123\n\nthe end")
	c.Count(text) // fill the cache and the scratch buffers
	if n := testing.AllocsPerRun(100, func() { c.Count(text) }); n != 0 {
		t.Errorf("Count allocates %v times per text once warm", n)
	}
}

func BenchmarkColumn(b *testing.B) {
	tok := config{}.tokenizer(b)
	for _, tc := range []struct {
		name string
		text string
	}{
		{"ascii", "The quick brown fox jumps over the lazy dog, then thinks about it. "},
		{"code", "func main() {\n\tfor i := 0; i < 10; i++ {\n\t\tfmt.Println(i)\n\t}\n}\n"},
		{"latin", "Größere Übungen für Anfänger und Fortgeschrittene. "},
		{"cjk", "日本語のテキストを数える。"},
	} {
		for _, pre := range []struct {
			name string
			pre  any
		}{{"gpt2", gpt2Pre}, {"cl100k", splitPre(cl100kPattern)}, {"o200k-regex", splitPre(o200kPattern)}} {
			tok := tok
			if pre.name != "gpt2" {
				tok = config{preTokenizer: pre.pre}.tokenizer(b)
			}
			b.Run(fmt.Sprintf("%s/%s", tc.name, pre.name), func(b *testing.B) {
				mem := memory.NewGoAllocator()
				sb := array.NewStringBuilder(mem)
				for i := range 1 << 10 {
					sb.Append(strings.Repeat(tc.text, 1+i%20) + fmt.Sprint(i))
				}
				arr := sb.NewStringArray()
				sb.Release()
				defer arr.Release()
				c := tok.NewCounter()
				b.SetBytes(int64(len(arr.ValueBytes())))
				b.ReportAllocs()
				for b.Loop() {
					c.Column(mem, arr).Release()
				}
			})
		}
	}
}
