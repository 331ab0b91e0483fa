package textlen

import (
	"fmt"
	"github.com/sluice-data/sluice/internal/arrowtest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// texts is the test column; nil is a null.
var texts = []*string{
	ptr("hello"),
	nil,
	ptr(""),
	ptr("héllo wörld"),
	ptr("文字化け"),
	ptr("emoji 🙂🙃 and ascii padding to pass eight bytes"),
	ptr("bad \xff\xfe utf-8"),
	nil,
	ptr(strings.Repeat("x", 100) + "é"),
	ptr("last"),
}

var (
	ptr               = arrowtest.Ptr
	buildStrings      = arrowtest.Strings
	buildLargeStrings = arrowtest.LargeStrings
)

func check(t *testing.T, got *array.Int64, want []*string) {
	t.Helper()
	if got.Len() != len(want) {
		t.Fatalf("length %d, want %d", got.Len(), len(want))
	}
	for i, w := range want {
		if w == nil {
			if got.IsValid(i) {
				t.Errorf("row %d: got %d, want null", i, got.Value(i))
			}
			continue
		}
		if !got.IsValid(i) {
			t.Errorf("row %d: got null, want %d", i, utf8.RuneCountInString(*w))
			continue
		}
		if n := int64(utf8.RuneCountInString(*w)); got.Value(i) != n {
			t.Errorf("row %d %q: got %d, want %d", i, *w, got.Value(i), n)
		}
	}
}

func TestRuneCounts(t *testing.T) {
	n := len(texts)
	cases := []struct {
		name     string
		from, to int
	}{
		{"whole", 0, n},
		{"sliced", 1, n - 1},
		{"sliced from a null", 1, 4},
		{"sliced without nulls", 2, 7},
		{"empty", 3, 3},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			arr := buildStrings(mem, texts)
			defer arr.Release()
			in := array.NewSlice(arr, int64(tc.from), int64(tc.to)).(*array.String)
			defer in.Release()
			got := RuneCounts(mem, in)
			defer got.Release()
			check(t, got, texts[tc.from:tc.to])

			larr := buildLargeStrings(mem, texts)
			defer larr.Release()
			lin := array.NewSlice(larr, int64(tc.from), int64(tc.to)).(*array.LargeString)
			defer lin.Release()
			lgot := LargeRuneCounts(mem, lin)
			defer lgot.Release()
			check(t, lgot, texts[tc.from:tc.to])
		})
	}
}

func TestRuneCountsNoValueBuffer(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	arr := buildStrings(mem, []*string{nil, nil, ptr("")})
	defer arr.Release()
	got := RuneCounts(mem, arr)
	defer got.Release()
	if got.NullN() != 2 || got.IsNull(2) || got.Value(2) != 0 {
		t.Fatalf("got %v, want [(null) (null) 0]", got)
	}
	if got.DataType().ID() != arrow.INT64 {
		t.Fatalf("type %s, want int64", got.DataType())
	}
}

func TestRuneCount(t *testing.T) {
	for _, s := range []string{"", "a", "abcdefg", "abcdefgh", "abcdefghi", "abcdefgh\xff", "ééééé", "abcdefgé", "abcdefghé12345678"} {
		if got, want := runeCount([]byte(s)), utf8.RuneCountInString(s); got != want {
			t.Errorf("runeCount(%q) = %d, want %d", s, got, want)
		}
	}
}

func BenchmarkRuneCounts(b *testing.B) {
	for _, tc := range []struct {
		name string
		text string
	}{
		{"ascii", "The quick brown fox jumps over the lazy dog. "},
		{"latin", "Größere Übungen für Anfänger und Fortgeschrittene. "},
		{"cjk", "日本語のテキストを数える。"},
	} {
		for _, rows := range []int{1 << 10, 1 << 14} {
			b.Run(fmt.Sprintf("%s/rows=%d", tc.name, rows), func(b *testing.B) {
				mem := memory.NewGoAllocator()
				sb := array.NewStringBuilder(mem)
				for i := range rows {
					sb.Append(strings.Repeat(tc.text, 1+i%20))
				}
				arr := sb.NewStringArray()
				sb.Release()
				defer arr.Release()
				b.SetBytes(int64(len(arr.ValueBytes())))
				b.ReportAllocs()
				for b.Loop() {
					RuneCounts(mem, arr).Release()
				}
			})
		}
	}
}
