// Command tokens counts the tokens of the "text" field of a JSONL corpus
// with one of sluice's tokenizers on one core, and prints one JSON line
// with the throughput of the counting alone (the corpus is read and parsed
// before the clock starts). bench/tokens/run.sh runs it next to the
// reference tokenizer.
//
// Usage: go run ./bench/tokens -corpus CORPUS.jsonl [-n DOCS] [-encoding cl100k_base]
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/sluice-data/sluice/kernels/tokenize"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "tokens:", err)
		os.Exit(1)
	}
}

func run() error {
	corpus := flag.String("corpus", "", "JSONL corpus with a \"text\" field")
	limit := flag.Int("n", 0, "count the first n documents (0: all)")
	name := flag.String("encoding", "cl100k_base", "tokenizer: "+fmt.Sprint(tokenize.Names()))
	flag.Parse()
	if *corpus == "" {
		flag.Usage()
		os.Exit(2)
	}
	runtime.GOMAXPROCS(1)

	texts, err := readTexts(*corpus, *limit)
	if err != nil {
		return err
	}
	t0 := time.Now()
	enc, err := tokenize.Get(*name)
	if err != nil {
		return err
	}
	load := time.Since(t0)

	c := enc.NewCounter()
	var bytes, tokens int
	t1 := time.Now()
	for _, t := range texts {
		bytes += len(t)
		tokens += c.Count(t)
	}
	secs := time.Since(t1).Seconds()
	out, err := json.Marshal(map[string]any{
		"peer":          "sluice",
		"encoding":      enc.Name(),
		"docs":          len(texts),
		"tokens":        tokens,
		"text_mb":       float64(bytes) / 1e6,
		"load_s":        load.Seconds(),
		"encode_s":      secs,
		"MB_per_s":      float64(bytes) / 1e6 / secs,
		"tokens_per_s":  float64(tokens) / secs,
		"bytes_per_tok": float64(bytes) / float64(tokens),
	})
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}

// readTexts reads the "text" field of the first limit lines of path (all
// when limit is 0).
func readTexts(path string, limit int) ([][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<28)
	var texts [][]byte
	for line := 1; sc.Scan() && (limit == 0 || len(texts) < limit); line++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var doc struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &doc); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		texts = append(texts, []byte(doc.Text))
	}
	return texts, sc.Err()
}
