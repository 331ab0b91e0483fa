package tokenize

import (
	"os"
	"testing"
)

// BenchmarkCount counts the tokens of about 3 KB of English prose with a
// warm counter, as a worker does after its first documents.
func BenchmarkCount(b *testing.B) {
	prose, err := os.ReadFile("testdata/prose.txt")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range encodingNames {
		b.Run(name, func(b *testing.B) {
			enc, err := Get(name)
			if err != nil {
				b.Fatal(err)
			}
			c := enc.NewCounter()
			c.Count(prose)
			b.SetBytes(int64(len(prose)))
			b.ReportAllocs()
			for b.Loop() {
				c.Count(prose)
			}
		})
	}
}

// BenchmarkCountCold is BenchmarkCount with a new counter, and so an empty
// cache, for every text.
func BenchmarkCountCold(b *testing.B) {
	prose, err := os.ReadFile("testdata/prose.txt")
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range encodingNames {
		b.Run(name, func(b *testing.B) {
			enc, err := Get(name)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(prose)))
			b.ReportAllocs()
			for b.Loop() {
				enc.NewCounter().Count(prose)
			}
		})
	}
}
