// Command lang makes a file of 1 kB multilingual documents and identifies
// their language with sluice's built-in lid.176 predictor on one core,
// printing what `fasttext predict-prob MODEL FILE` prints so that
// bench/lang/run.sh can time both processes on the same file. It also
// reports the resident memory the embedded model adds.
//
// Usage:
//
//	go run ./bench/lang -make-docs 20000 -seed 1 -out docs.txt
//	go run ./bench/lang -predict docs.txt > predictions.txt
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/sluice-data/sluice/kernels/fasttext"
	"github.com/sluice-data/sluice/kernels/langid"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "lang:", err)
		os.Exit(1)
	}
}

func run() error {
	makeDocs := flag.Int("make-docs", 0, "write this many 1 kB documents, one a line, to -out")
	seed := flag.Uint64("seed", 1, "seed of the document generator")
	out := flag.String("out", "", "file the documents go to")
	samples := flag.String("samples", "kernels/langid/testdata/multilingual.jsonl", "JSONL texts the documents are made of")
	predict := flag.String("predict", "", "identify the language of every line of this file")
	flag.Parse()
	switch {
	case *makeDocs > 0 && *out != "":
		return writeDocs(*samples, *out, *makeDocs, *seed)
	case *predict != "":
		return predictFile(*predict)
	}
	flag.Usage()
	os.Exit(2)
	return nil
}

// writeDocs writes n documents of about 1 kB, each made of sentences of one
// language drawn from the samples (a few mix two), newlines as spaces.
func writeDocs(samples, out string, n int, seed uint64) error {
	data, err := os.ReadFile(samples)
	if err != nil {
		return err
	}
	var texts []string
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var s struct{ Text string }
		if err := json.Unmarshal(line, &s); err != nil {
			return fmt.Errorf("%s: %w", samples, err)
		}
		if len(s.Text) > 20 {
			texts = append(texts, strings.ReplaceAll(s.Text, "\n", " "))
		}
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	var buf bytes.Buffer
	for range n {
		first := texts[rng.IntN(len(texts))]
		var doc strings.Builder
		for doc.Len() < 1024 {
			t := first
			if rng.IntN(8) == 0 {
				t = texts[rng.IntN(len(texts))]
			}
			words := strings.Fields(t)
			start := rng.IntN(len(words))
			for _, w := range words[start:] {
				if doc.Len() >= 1024 {
					break
				}
				if doc.Len() > 0 {
					doc.WriteByte(' ')
				}
				doc.WriteString(w)
			}
		}
		buf.WriteString(doc.String())
		buf.WriteByte('\n')
	}
	return os.WriteFile(out, buf.Bytes(), 0o644)
}

func predictFile(path string) error {
	runtime.GOMAXPROCS(1)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	runtime.GC()
	before := rssKB()
	m, err := langid.LID176()
	if err != nil {
		return err
	}
	runtime.GC()
	afterLoad := rssKB()
	w := bufio.NewWriterSize(os.Stdout, 1<<16)
	p := m.NewPredictor()
	var preds []fasttext.Prediction
	var line []byte
	start := time.Now()
	for _, l := range lines {
		preds = p.Predict(l, 1, 0, preds)
		line = line[:0]
		for i, pr := range preds {
			if i > 0 {
				line = append(line, ' ')
			}
			line = append(line, m.Label(pr.Label)...)
			line = append(line, ' ')
			line = strconv.AppendFloat(line, float64(pr.Prob), 'g', 6, 32)
		}
		line = append(line, '\n')
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	secs := time.Since(start).Seconds()
	res := map[string]any{
		"docs": len(lines), "bytes": len(data), "predict_seconds": secs,
		"docs_per_s": float64(len(lines)) / secs, "mb_per_s": float64(len(data)) / secs / 1e6,
		"rss_kb_before_model": before, "rss_kb_after_model": afterLoad, "rss_kb_model": afterLoad - before,
		"rss_kb_after_predict": rssKB(),
	}
	enc, _ := json.Marshal(res)
	fmt.Fprintln(os.Stderr, string(enc))
	return nil
}

// rssKB reads the resident set size from /proc/self/status (0 elsewhere).
func rssKB() int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			v, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return v
		}
	}
	return 0
}
