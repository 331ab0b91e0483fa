package warc

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// benchWARC returns a per-record gzip WARC of n responses of about 60 KB
// of HTML made of words drawn from a small vocabulary.
func benchWARC(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the river lock gate water keeper boat canal flood tide sluice bank bridge town mill stone " +
		"weir pump field peat marsh channel engine winter summer north south east west old new long short high low")
	var out bytes.Buffer
	w := NewWriter(&out, true)
	for i := 0; i < n; i++ {
		var page strings.Builder
		page.WriteString("<html><head><title>page</title></head><body><nav><a href=/>Home</a></nav><article>")
		for page.Len() < 60_000 {
			page.WriteString("<p>")
			for k := 0; k < 80; k++ {
				page.WriteString(words[rng.IntN(len(words))])
				page.WriteByte(' ')
			}
			fmt.Fprintf(&page, "%d.</p>\n", rng.IntN(1<<20))
		}
		page.WriteString("</article></body></html>")
		w.Write([]Field{{"WARC-Type", "response"}, {"WARC-Target-URI", fmt.Sprintf("https://example.com/%d", i)},
			{"WARC-Date", "2024-01-01T00:00:00Z"}, {"Content-Type", "application/http; msgtype=response"}},
			HTTPBlock(200, []Field{{"Content-Type", "text/html"}}, []byte(page.String())))
	}
	return out.Bytes()
}

// BenchmarkRead reports MB/s of gzipped input: records only, and records
// into Arrow batches.
func BenchmarkRead(b *testing.B) {
	data := benchWARC(100)
	b.Run("records", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			r, _ := NewReader(bytes.NewReader(data), Options{})
			for {
				if _, err := r.Next(); err == io.EOF {
					break
				}
			}
		}
	})
	b.Run("batches", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			r, _ := NewReader(bytes.NewReader(data), Options{})
			br := NewBatchReader(memory.DefaultAllocator, r, BatchOptions{})
			for {
				rec, _, err := br.Next()
				if err == io.EOF {
					break
				}
				if rec != nil {
					rec.Release()
				}
			}
			br.Release()
		}
	})
}
