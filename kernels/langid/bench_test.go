package langid_test

import (
	"bytes"
	"testing"

	"github.com/sluice-data/sluice/kernels/fasttext"
	"github.com/sluice-data/sluice/kernels/langid"
)

// docs1KB cuts the multilingual samples, joined and repeated, into n
// documents of about 1 kB, each ending at a space so that no UTF-8
// sequence is split.
func docs1KB(t testing.TB, n int) [][]byte {
	var all []byte
	for len(all) < n*1100 {
		for _, s := range readSamples(t) {
			all = append(all, bytes.ReplaceAll([]byte(s.Text), []byte("\n"), []byte(" "))...)
			all = append(all, ' ')
		}
	}
	var docs [][]byte
	for len(docs) < n {
		cut := 1024 + bytes.IndexByte(all[1024:], ' ')
		docs = append(docs, all[:cut])
		all = all[cut+1:]
	}
	return docs
}

func BenchmarkPredict1KB(b *testing.B) {
	m, err := langid.LID176()
	if err != nil {
		b.Fatal(err)
	}
	docs := docs1KB(b, 1000)
	var size int64
	for _, d := range docs {
		size += int64(len(d))
	}
	p := m.NewPredictor()
	var out []fasttext.Prediction
	b.SetBytes(size / int64(len(docs)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out = p.Predict(docs[i%len(docs)], 1, 0, out)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}
