// Command gen writes a synthetic decontamination benchmark: an evaluation
// set of multiple-choice questions and a corpus of web-like documents in
// which some documents quote one of the questions (re-cased and
// re-punctuated), plus the raw first 13 words of every question for a
// plain fixed-string search baseline. Words come from a dictionary file
// drawn with a Zipf law, so that n-grams repeat as in real text.
//
//	go run ./bench/contam/gen -dict /usr/share/dict/words -examples 100000 -bytes 1e9 -out DIR
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	dict := flag.String("dict", "/usr/share/dict/words", "word list, one a line")
	examples := flag.Int("examples", 100000, "evaluation examples")
	size := flag.Float64("bytes", 1e9, "corpus size in bytes")
	every := flag.Int("leak-every", 2000, "one document in this many quotes a question")
	seed := flag.Uint64("seed", 1, "random seed")
	out := flag.String("out", ".", "output directory")
	flag.Parse()
	if err := run(*dict, *examples, int64(*size), *every, *seed, *out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(dict string, examples int, size int64, every int, seed uint64, out string) error {
	data, err := os.ReadFile(dict)
	if err != nil {
		return err
	}
	var words []string
	for _, w := range strings.Fields(string(data)) {
		if !strings.ContainsAny(w, "'") {
			words = append(words, strings.ToLower(w))
		}
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	rng.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	zipf := rand.NewZipf(rand.New(rand.NewPCG(seed+1, seed)), 1.1, 1, uint64(len(words)-1))
	sentence := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[zipf.Uint64()])
		}
		return b.String()
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	ef, err := os.Create(filepath.Join(out, "eval.jsonl"))
	if err != nil {
		return err
	}
	pf, err := os.Create(filepath.Join(out, "patterns.txt"))
	if err != nil {
		return err
	}
	ew, pw := bufio.NewWriter(ef), bufio.NewWriter(pf)
	questions := make([]string, examples)
	for i := range questions {
		q := sentence(15+rng.IntN(30)) + "?"
		questions[i] = q
		choices := []string{sentence(3 + rng.IntN(6)), sentence(3 + rng.IntN(6)), sentence(3 + rng.IntN(6)), sentence(3 + rng.IntN(6))}
		line, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("q%06d", i), "question": q, "choices": choices})
		ew.Write(append(line, '\n'))
		pw.WriteString(strings.Join(strings.Fields(q)[:13], " ") + "\n")
	}
	cf, err := os.Create(filepath.Join(out, "corpus.jsonl"))
	if err != nil {
		return err
	}
	cw := bufio.NewWriterSize(cf, 1<<20)
	var written int64
	leaks := 0
	for doc := 0; written < size; doc++ {
		var b strings.Builder
		paras := 3 + rng.IntN(6)
		for p := 0; p < paras; p++ {
			if p > 0 {
				b.WriteString("\n\n")
			}
			for s := 0; s < 3+rng.IntN(4); s++ {
				st := sentence(8 + rng.IntN(20))
				b.WriteString(strings.ToUpper(st[:1]) + st[1:] + ". ")
			}
		}
		if doc%every == every/2 {
			q := questions[rng.IntN(len(questions))]
			b.WriteString("\n\nQuiz: " + strings.ToUpper(q[:1]) + strings.ReplaceAll(q[1:], " ", ", ") + " Answer below!")
			leaks++
		}
		line, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("d%08d", doc), "meta": map[string]string{"source": []string{"web", "books", "forum"}[doc%3]}, "text": b.String()})
		cw.Write(append(line, '\n'))
		written += int64(len(line) + 1)
	}
	for _, w := range []*bufio.Writer{ew, pw, cw} {
		if err := w.Flush(); err != nil {
			return err
		}
	}
	ef.Close()
	pf.Close()
	cf.Close()
	fmt.Fprintf(os.Stderr, "gen: %d examples, %d bytes of corpus, %d planted quotes\n", examples, written, leaks)
	return os.WriteFile(filepath.Join(out, "leaks.txt"), []byte(fmt.Sprintf("%d\n", leaks)), 0o644)
}
