// Package testcorpus holds the generated documents that tests and
// benchmarks of the text kernels and stages share: the 300 documents of
// `go run ./bench/gen --n 300 --seed 17` (English-like prose with a
// little non-ASCII, footers and planted copies), gzipped.
package testcorpus

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/json"
	"sync"
)

//go:embed generated.jsonl.gz
var generated []byte

// Texts returns the text of every generated document, in file order. The
// slice is shared: callers must not change it.
var Texts = sync.OnceValue(func() []string {
	zr, err := gzip.NewReader(bytes.NewReader(generated))
	if err != nil {
		panic("testcorpus: " + err.Error())
	}
	var out []string
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var d struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			panic("testcorpus: " + err.Error())
		}
		out = append(out, d.Text)
	}
	if err := sc.Err(); err != nil {
		panic("testcorpus: " + err.Error())
	}
	return out
})

// Bytes returns the total size of Texts in bytes.
func Bytes() int {
	n := 0
	for _, t := range Texts() {
		n += len(t)
	}
	return n
}
