package quality

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sluice-data/sluice/internal/cputime"
	"github.com/sluice-data/sluice/internal/testcorpus"
)

// proseDocs builds n English documents of about size bytes each: sentences
// of testdata/prose.txt in a different order for each document, without
// repeats, four or five to a line and a blank line now and then.
func proseDocs(tb testing.TB, n, size int) []string {
	p := prose(tb)
	docs := make([]string, n)
	seed := uint32(7)
	for d := range docs {
		order := make([]int, len(p))
		for i := range order {
			order[i] = i
		}
		for i := len(order) - 1; i > 0; i-- {
			seed = seed*1664525 + 1013904223
			j := int(seed>>8) % (i + 1)
			order[i], order[j] = order[j], order[i]
		}
		var b strings.Builder
		for k, i := 0, 0; b.Len() < size && i < len(order); i++ {
			b.WriteString(p[order[i]])
			k++
			switch {
			case k%9 == 0:
				b.WriteString("\n\n")
			case k%4 == 0:
				b.WriteString("\n")
			default:
				b.WriteString(" ")
			}
		}
		docs[d] = strings.TrimSpace(b.String())
	}
	return docs
}

func benchColumn(b *testing.B) *array.String {
	docs := proseDocs(b, 1000, 3000)
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	defer sb.Release()
	for _, d := range docs {
		sb.Append(d)
	}
	return sb.NewStringArray()
}

func BenchmarkFilters(b *testing.B) {
	arr := benchColumn(b)
	defer arr.Release()
	size := int64(len(arr.ValueBytes()))
	for _, name := range Names {
		f, err := New(name, DefaultConfig())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				res, err := f.Apply(memory.DefaultAllocator, arr)
				if err != nil {
					b.Fatal(err)
				}
				res.Release()
			}
		})
	}
	b.Run("all", func(b *testing.B) {
		var fs []Filter
		for _, name := range Names {
			f, _ := New(name, DefaultConfig())
			fs = append(fs, f)
		}
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			for _, f := range fs {
				res, err := f.Apply(memory.DefaultAllocator, arr)
				if err != nil {
					b.Fatal(err)
				}
				res.Release()
			}
		}
	})
}

func TestBenchDocsPass(t *testing.T) {
	// The benchmark measures the path clean prose takes.
	docs := proseDocs(t, 20, 3000)
	for _, name := range Names {
		for i, o := range applyAll(t, name, DefaultConfig(), func() []*string {
			out := make([]*string, len(docs))
			for i := range docs {
				out[i] = &docs[i]
			}
			return out
		}()) {
			if o.fail != "" {
				t.Errorf("%s: document %d fails %q: %v", name, i, o.fail, o.signals)
			}
		}
	}
}

// corpusColumn is the generated test corpus as a string column.
func corpusColumn() *array.String {
	sb := array.NewStringBuilder(memory.DefaultAllocator)
	defer sb.Release()
	for _, d := range testcorpus.Texts() {
		sb.Append(d)
	}
	return sb.NewStringArray()
}

// BenchmarkCorpus runs each rule set, and the four in a row as the clean
// stages run them (fineweb on c4's rewritten text), over the generated
// corpus.
func BenchmarkCorpus(b *testing.B) {
	arr := corpusColumn()
	defer arr.Release()
	size := int64(len(arr.ValueBytes()))
	fs := newFilters(b, Names, DefaultConfig())
	for _, f := range fs {
		b.Run(f.Name(), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			defer cputime.Start(b, size)()
			for b.Loop() {
				res, err := f.Apply(memory.DefaultAllocator, arr)
				if err != nil {
					b.Fatal(err)
				}
				res.Release()
			}
		})
	}
	b.Run("all", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		defer cputime.Start(b, size)()
		for b.Loop() {
			text := arr
			var rs []Result
			for _, f := range fs {
				res, err := f.Apply(memory.DefaultAllocator, text)
				if err != nil {
					b.Fatal(err)
				}
				if res.Rewritten != nil {
					text = res.Rewritten
				}
				rs = append(rs, res)
			}
			for _, r := range rs {
				r.Release()
			}
		}
	})
}

// BenchmarkChain runs the four rule sets over the generated corpus with
// ApplyChain, each text split and hashed once for all of them.
func BenchmarkChain(b *testing.B) {
	arr := corpusColumn()
	defer arr.Release()
	size := int64(len(arr.ValueBytes()))
	fs := newFilters(b, Names, DefaultConfig())
	b.SetBytes(size)
	b.ReportAllocs()
	defer cputime.Start(b, size)()
	for b.Loop() {
		rs, err := ApplyChain(memory.DefaultAllocator, arr, fs)
		if err != nil {
			b.Fatal(err)
		}
		for _, r := range rs {
			r.Release()
		}
	}
}
