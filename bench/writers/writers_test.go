// Package writers compares Parquet writers on text-heavy rows (id, ~3 KB text)
// to choose the one sluice uses. Run from the repository root:
//
//	go test ./bench/writers -bench . -benchtime 3x -run '^$'
package writers

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pq "github.com/parquet-go/parquet-go"
)

const numRows = 10_000

// Doc is the row shape written by the parquet-go case (plain encoding, no dictionary).
type Doc struct {
	ID   string `parquet:"id"`
	Text string `parquet:"text"`
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

var (
	once      sync.Once
	rec       arrow.RecordBatch
	docs      []Doc
	textBytes int64
)

// corpus builds the rows once: Zipf-distributed words from a fixed-seed
// synthetic vocabulary, sentences of 6-24 words, lognormal lengths with mean ~3 KB.
func corpus() {
	rng := rand.New(rand.NewPCG(42, 7))
	syll := strings.Fields("ka lo mi ter an re on ing ex pro di ver sta tion al ment con ble un der pa li")
	vocab := strings.Fields("the of and to a in is that for it as was with be by on not this are or from at which but have an they you were their")
	for len(vocab) < 20_000 {
		var sb strings.Builder
		for k := 1 + rng.IntN(4); k > 0; k-- {
			sb.WriteString(syll[rng.IntN(len(syll))])
		}
		vocab = append(vocab, sb.String())
	}
	zipf := rand.NewZipf(rand.New(rand.NewPCG(1, 2)), 1.1, 2, uint64(len(vocab)-1))
	b := array.NewRecordBuilder(memory.NewGoAllocator(), arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.BinaryTypes.String},
		{Name: "text", Type: arrow.BinaryTypes.String},
	}, nil))
	defer b.Release()
	ids, texts := b.Field(0).(*array.StringBuilder), b.Field(1).(*array.StringBuilder)
	var sb strings.Builder
	for i := range numRows {
		target := int(3000 * math.Exp(0.5*rng.NormFloat64()-0.125))
		sb.Reset()
		for sb.Len() < target {
			for j, n := 0, 6+rng.IntN(19); j < n; j++ {
				w := vocab[zipf.Uint64()]
				if j == 0 {
					w = strings.ToUpper(w[:1]) + w[1:]
				} else {
					sb.WriteByte(' ')
				}
				sb.WriteString(w)
			}
			sb.WriteString(". ")
		}
		id, text := fmt.Sprintf("doc-%08d", i), sb.String()
		ids.Append(id)
		texts.Append(text)
		docs = append(docs, Doc{ID: id, Text: text})
		textBytes += int64(len(text))
	}
	rec = b.NewRecordBatch()
}

func benchPqarrow(b *testing.B, opts ...parquet.WriterProperty) {
	once.Do(corpus)
	props := parquet.NewWriterProperties(append([]parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Zstd)}, opts...)...)
	b.SetBytes(textBytes)
	b.ReportAllocs()
	var out int64
	for b.Loop() {
		cw := &countWriter{}
		fw, err := pqarrow.NewFileWriter(rec.Schema(), cw, props, pqarrow.DefaultWriterProps())
		if err != nil {
			b.Fatal(err)
		}
		if err := fw.Write(rec); err != nil {
			b.Fatal(err)
		}
		if err := fw.Close(); err != nil {
			b.Fatal(err)
		}
		out = cw.n
	}
	b.ReportMetric(float64(out), "outB")
}

// (a) pqarrow, zstd default level, no dictionary for text.
func BenchmarkPqarrowZstdNoDict(b *testing.B) {
	benchPqarrow(b, parquet.WithDictionaryFor("text", false))
}

// (b) pqarrow, zstd default level, dictionary on (the library default).
func BenchmarkPqarrowZstdDict(b *testing.B) {
	benchPqarrow(b, parquet.WithDictionaryDefault(true))
}

// (c) parquet-go GenericWriter, zstd default level, plain encoding.
func BenchmarkParquetGoZstd(b *testing.B) {
	once.Do(corpus)
	b.SetBytes(textBytes)
	b.ReportAllocs()
	var out int64
	for b.Loop() {
		cw := &countWriter{}
		w := pq.NewGenericWriter[Doc](cw, pq.Compression(&pq.Zstd))
		if _, err := w.Write(docs); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		out = cw.n
	}
	b.ReportMetric(float64(out), "outB")
}

// (d) pqarrow, zstd level 1, no dictionary for text.
func BenchmarkPqarrowZstd1NoDict(b *testing.B) {
	benchPqarrow(b, parquet.WithDictionaryFor("text", false), parquet.WithCompressionLevel(1))
}
