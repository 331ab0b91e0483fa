// Command gen writes the synthetic corpora the benchmarks run on. It needs
// nothing outside this repository: the words are made by the program.
//
// Corpus (the default):
//
//	go run ./bench/gen --n 100000 --seed 42 --out corpus.jsonl
//
// writes N JSONL documents {"id","url","text","meta":{"source","ts"}} of
// English-like prose (Zipf-weighted words, lognormal lengths with a mean of
// about 3 KB, a little non-ASCII, a boilerplate footer on some pages), with
// planted duplicates:
//   - exact copies (--exact-frac, 5%): the text of an earlier document byte
//     for byte, under a new id, url and source; one to three copies each;
//   - near copies (--near-frac, 5%) at word-5-gram Jaccard levels 1.0
//     (whitespace and case edits only, so the bytes differ), 0.95, 0.9,
//     0.85, 0.7 and 0.5, made by replacing, deleting, inserting and swapping
//     words and sometimes appending a boilerplate paragraph; a quarter of
//     them share their original with the near copy before them.
//
// The true clusters go to OUT.dups.jsonl, one a line: {"cluster",
// "original", "members": [{"id","kind","level","jaccard"}], "pairs":
// [[id, id, jaccard, same_text], ...]} with every pair of a cluster and its
// measured Jaccard, where a document's shingles are the sets of 5
// consecutive tokens of strings.Fields(strings.ToLower(text)) (the whole
// token list when it has fewer than 5). OUT.meta.json sums up the run.
//
// Chat file (--chat):
//
//	go run ./bench/gen --chat --n 120000 --seed 7 --out chat.jsonl --text text.jsonl
//
// writes N chat examples {"messages": [{"role","content"}, ...]} and, line for
// line, the same texts as {"text": ...}, the contents of an example joined by
// a blank line. A system prompt from a pool of 40 opens 70% of the examples;
// 15% have 2-3 rounds of user and assistant turns; 0.5% repeat an earlier
// example exactly. Every example is valid for `sluice tasks validate`.
//
// The output depends only on the flags: the same --n and --seed give the
// same bytes.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

var levels = []float64{1.0, 0.95, 0.9, 0.85, 0.7, 0.5}

var nonASCII = []string{"crème", "déjà", "piñata", "Straße", "smörgåsbord", "Łódź", "Reykjavík",
	"Καλημέρα", "Привет", "город", "東京", "文本", "서울", "שלום", "नमस्ते", "🚀 launch", "½ cup",
	"→ next", "£20", "20 °C", "Ærø", "Mötley"}

var boilerplate = []string{
	"Sign up for our weekly digest and never miss a story from the team again.",
	"Copyright the authors. Reuse of this page is allowed with a link back to the original source.",
	"Share this post on your favourite network and leave a comment below to tell us what you think.",
	"This page uses cookies to remember your settings. Read our privacy policy to learn more about them.",
	"Related posts and reader comments are shown below. Thanks for reading and see you next time.",
}

var sources = []string{"web", "forum", "news", "wiki", "books", "code-comments"}

func main() {
	n := flag.Int("n", 100000, "documents (or chat examples) to write")
	seed := flag.Uint64("seed", 42, "seed: the same seed gives the same output")
	out := flag.String("out", "", "output JSONL file (required)")
	exactFrac := flag.Float64("exact-frac", 0.05, "share of documents that are exact copies")
	nearFrac := flag.Float64("near-frac", 0.05, "share of documents that are near copies")
	chat := flag.Bool("chat", false, "write a chat fine-tuning file instead of a corpus")
	text := flag.String("text", "", "with --chat: the plain-text twin of the chat file (required)")
	flag.Parse()
	if *out == "" || *n < 1 || (*chat && *text == "") || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: gen --n N --seed S --out FILE.jsonl  |  gen --chat --n N --seed S --out CHAT.jsonl --text TEXT.jsonl")
		os.Exit(2)
	}
	var err error
	if *chat {
		err = writeChat(*n, *seed, *out, *text)
	} else {
		err = writeCorpus(*n, *seed, *exactFrac, *nearFrac, *out)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func newRand(a, b uint64) *rand.Rand { return rand.New(rand.NewPCG(a, b)) }

// prose writes English-like text.
type prose struct{ z *zipf }

func (p prose) sentence(r *rand.Rand, k int, odd bool, end string) string {
	ws := p.z.fill(r, make([]string, k))
	if odd && r.IntN(4) == 0 {
		ws[r.IntN(k)] = nonASCII[r.IntN(len(nonASCII))]
	}
	ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
	if k > 8 && r.IntN(5) < 2 {
		ws[2+r.IntN(k-4)] += ","
	}
	return strings.Join(ws, " ") + end
}

// doc is one unique document: paragraphs of 3-8 sentences up to a lognormal
// target length (median about 2 KB, mean about 3 KB).
func (p prose) doc(r *rand.Rand) string {
	const sigma = 0.8
	target := math.Exp(math.Log(2750) - sigma*sigma/2 + sigma*r.NormFloat64())
	target = min(max(target, 200), 120000)
	odd := r.IntN(100) < 8
	var paras []string
	size := 0
	for float64(size) < target {
		ss := make([]string, 3+r.IntN(6))
		for i := range ss {
			ss[i] = p.sentence(r, 5+r.IntN(18), odd, [...]string{".", ".", ".", "?", "!"}[r.IntN(5)])
		}
		para := strings.Join(ss, " ")
		paras = append(paras, para)
		size += len(para) + 2
	}
	if r.IntN(100) < 4 { // a site footer, the same lines on many pages
		paras = append(paras, boilerplate[r.IntN(len(boilerplate))])
	}
	return strings.Join(paras, "\n\n")
}

// shingles returns the hashes of the 5-token shingles of text.
func shingles(text string) map[uint64]struct{} {
	toks := strings.Fields(strings.ToLower(text))
	hash := func(ts []string) uint64 {
		h := uint64(14695981039346656037)
		for _, t := range ts {
			for i := 0; i < len(t); i++ {
				h = (h ^ uint64(t[i])) * 1099511628211
			}
			h = (h ^ 0xff) * 1099511628211 // token separator: no UTF-8 byte is 0xff
		}
		return h
	}
	set := map[uint64]struct{}{}
	if len(toks) < 5 {
		set[hash(toks)] = struct{}{}
		return set
	}
	for i := 0; i+5 <= len(toks); i++ {
		set[hash(toks[i:i+5])] = struct{}{}
	}
	return set
}

func jaccard(a, b map[uint64]struct{}) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	inter := 0
	for h := range a {
		if _, ok := b[h]; ok {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// respace changes whitespace and case only, so the text's tokens in lower
// case stay the same while its bytes differ.
func respace(r *rand.Rand, text string) string {
	parts := strings.Split(text, " ")
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteByte(' ')
			if r.IntN(100) < 3 {
				b.WriteByte(' ')
			}
		}
		b.WriteString(p)
	}
	t := b.String()
	if r.IntN(2) == 0 {
		t = strings.Replace(t, "\n\n", "\n\t\n", 1+r.IntN(4))
	}
	if r.IntN(2) == 0 {
		t = " " + t + "\n"
	}
	if r.IntN(10) < 3 {
		if r.IntN(10) == 0 {
			t = strings.ToUpper(t)
		} else {
			t = strings.ToLower(t[:1]) + t[1:]
		}
	}
	return t + " "
}

type edit struct {
	kind int     // 0 replace, 1 delete, 2 insert, 3 swap with the next word
	at   float64 // position as a share of the current length
	word string
}

func applyEdits(toks []string, es []edit) []string {
	t := append([]string(nil), toks...)
	for _, e := range es {
		i := int(e.at * float64(len(t)))
		switch e.kind {
		case 0:
			t[i] = e.word
		case 1:
			if len(t) > 6 {
				t = append(t[:i], t[i+1:]...)
			}
		case 2:
			t = append(t[:i], append([]string{e.word}, t[i:]...)...)
		case 3:
			if i+1 < len(t) {
				t[i], t[i+1] = t[i+1], t[i]
			}
		}
	}
	return t
}

// nearCopy edits orig until its Jaccard similarity to orig is as close to
// level as a whole number of edits allows; it returns the text and the
// similarity measured.
func nearCopy(r *rand.Rand, p prose, orig string, level float64) (string, float64) {
	a := shingles(orig)
	if level >= 1 {
		t := respace(r, orig)
		return t, jaccard(a, shingles(t))
	}
	toks := strings.Split(orig, " ")
	if r.IntN(10) < 3 {
		withFooter := orig + "\n\n" + boilerplate[r.IntN(len(boilerplate))]
		if jaccard(a, shingles(withFooter)) > level {
			toks = strings.Split(withFooter, " ")
		}
	}
	// Each edit costs at most 5 shingles; the search below needs a script
	// long enough to go past the level.
	s := float64(max(len(a), 1))
	most := int(4*s*(1-level)/(5*(1+level))) + 8
	script := make([]edit, most)
	for i := range script {
		k := r.IntN(20)
		kind := 0
		switch {
		case k >= 17:
			kind = 3
		case k >= 13:
			kind = 2
		case k >= 8:
			kind = 1
		}
		script[i] = edit{kind, r.Float64(), p.z.word(r)}
	}
	sim := func(m int) float64 { return jaccard(a, shingles(strings.Join(applyEdits(toks, script[:m]), " "))) }
	m := sort.Search(most+1, func(m int) bool { return sim(m) <= level })
	m = min(m, most)
	if m > 0 && math.Abs(sim(m-1)-level) < math.Abs(sim(m)-level) {
		m--
	}
	t := strings.Join(applyEdits(toks, script[:m]), " ")
	if r.IntN(10) < 3 {
		t = respace(r, t)
	}
	return t, jaccard(a, shingles(t))
}

type meta struct {
	Source string `json:"source"`
	TS     int64  `json:"ts"`
}

type record struct {
	ID   string `json:"id"`
	URL  string `json:"url"`
	Text string `json:"text"`
	Meta meta   `json:"meta"`
}

type member struct {
	ID      string  `json:"id"`
	Kind    string  `json:"kind"`
	Level   float64 `json:"level"`
	Jaccard float64 `json:"jaccard"`
	text    string
}

// slot is one line of the corpus: a unique document (kind 'u'), an exact
// copy ('e') or a near copy ('n') of unique document orig.
type slot struct {
	kind  byte
	orig  int
	level float64
	seed  uint64
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

func writeCorpus(n int, seed uint64, exactFrac, nearFrac float64, out string) error {
	t0 := time.Now()
	r := newRand(seed, 1)
	p := prose{newZipf(makeVocab(seed), 1.07)}
	nExact := int(math.Round(float64(n) * exactFrac))
	nNear := int(math.Round(float64(n) * nearFrac))
	nUniq := n - nExact - nNear
	if nUniq < 1 {
		return fmt.Errorf("--exact-frac and --near-frac leave no unique documents")
	}
	slots := make([]slot, 0, n)
	for i := 0; i < nUniq; i++ {
		slots = append(slots, slot{kind: 'u', orig: i})
	}
	for left := nExact; left > 0; {
		o := r.IntN(nUniq)
		c := 1
		if k := r.IntN(10); k >= 9 {
			c = 3
		} else if k >= 7 {
			c = 2
		}
		for ; c > 0 && left > 0; c-- {
			slots = append(slots, slot{kind: 'e', orig: o, level: 1})
			left--
		}
	}
	prev := -1
	for j := 0; j < nNear; j++ {
		o := r.IntN(nUniq)
		if j%4 == 3 && prev >= 0 {
			o = prev
		}
		prev = o
		slots = append(slots, slot{kind: 'n', orig: o, level: levels[j%len(levels)], seed: r.Uint64()})
	}
	r.Shuffle(len(slots), func(i, j int) { slots[i], slots[j] = slots[j], slots[i] })

	uniqText := func(i int) string { return p.doc(newRand(seed, 0x10000000+uint64(i))) }
	posOf := make([]int, nUniq)
	for pos, s := range slots {
		if s.kind == 'u' {
			posOf[s.orig] = pos
		}
	}
	id := func(pos int) string { return fmt.Sprintf("doc-%07d", pos) }

	f, err := os.Create(out)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	clusters := map[int][]member{}
	var nbytes int64
	for pos, s := range slots {
		dr := newRand(seed, 0x20000000+uint64(pos))
		src := sources[dr.IntN(len(sources))]
		ts := int64(1577836800 + dr.IntN(5*365*86400))
		var text string
		switch s.kind {
		case 'u':
			text = uniqText(s.orig)
		case 'e':
			text = uniqText(s.orig)
			clusters[s.orig] = append(clusters[s.orig], member{id(pos), "exact", 1, 1, text})
		case 'n':
			var j float64
			text, j = nearCopy(newRand(s.seed, 3), p, uniqText(s.orig), s.level)
			clusters[s.orig] = append(clusters[s.orig], member{id(pos), "near", s.level, round4(j), text})
		}
		buf.Reset()
		if err := enc.Encode(record{id(pos), fmt.Sprintf("https://%s.example.org/%s/%d", src, id(pos)[8:], pos),
			text, meta{src, ts}}); err != nil {
			return err
		}
		nbytes += int64(buf.Len())
		if _, err := w.Write(buf.Bytes()); err != nil {
			return err
		}
		if pos%20000 == 0 {
			fmt.Fprintf(os.Stderr, "  %d docs, %.0f MB, %.1fs\n", pos, float64(nbytes)/1e6, time.Since(t0).Seconds())
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}

	base := strings.TrimSuffix(out, filepath.Ext(out))
	origs := make([]int, 0, len(clusters))
	for o := range clusters {
		origs = append(origs, o)
	}
	sort.Slice(origs, func(i, j int) bool { return posOf[origs[i]] < posOf[origs[j]] })
	g, err := os.Create(base + ".dups.jsonl")
	if err != nil {
		return err
	}
	defer g.Close()
	gw := bufio.NewWriter(g)
	genc := json.NewEncoder(gw)
	pairs := 0
	byLevel := map[string]int{}
	for ci, o := range origs {
		ms := append([]member{{id(posOf[o]), "original", 1, 1, uniqText(o)}}, clusters[o]...)
		sh := make([]map[uint64]struct{}, len(ms))
		for i, m := range ms {
			sh[i] = shingles(m.text)
		}
		var ps [][]any
		for i := range ms {
			for j := i + 1; j < len(ms); j++ {
				ps = append(ps, []any{ms[i].ID, ms[j].ID, round4(jaccard(sh[i], sh[j])), ms[i].text == ms[j].text})
			}
		}
		pairs += len(ps)
		for _, m := range ms[1:] {
			byLevel[fmt.Sprintf("%s@%g", m.Kind, m.Level)]++
		}
		if err := genc.Encode(map[string]any{"cluster": ci, "original": ms[0].ID, "members": ms, "pairs": ps}); err != nil {
			return err
		}
	}
	if err := gw.Flush(); err != nil {
		return err
	}
	if err := g.Close(); err != nil {
		return err
	}
	sum := map[string]any{"generator": "bench/gen", "n": n, "seed": seed, "bytes": nbytes,
		"n_exact_copies": nExact, "n_near_copies": nNear, "clusters": len(origs), "pairs": pairs,
		"copies_by_kind_level": byLevel, "shingle": 5,
		"jaccard_def": "set of 5-token runs of strings.Fields(strings.ToLower(text))",
		"seconds":     math.Round(time.Since(t0).Seconds()*10) / 10}
	js, _ := json.MarshalIndent(sum, "", " ")
	if err := os.WriteFile(base+".meta.json", js, 0o644); err != nil {
		return err
	}
	js, _ = json.Marshal(sum)
	fmt.Fprintln(os.Stderr, string(js))
	return nil
}

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

func writeChat(n int, seed uint64, out, textOut string) error {
	r := newRand(seed, 2)
	p := prose{newZipf(makeVocab(seed), 1.07)}
	sentence := func() string { return p.sentence(r, 5+r.IntN(16), true, ".") }
	turn := func(meanWords float64, question bool) string {
		target := max(4, int(math.Exp(math.Log(meanWords)-0.18+0.6*r.NormFloat64())))
		var ss []string
		words := 0
		for words < target {
			k := 5 + r.IntN(16)
			ss = append(ss, p.sentence(r, k, r.IntN(20) == 0, "."))
			words += k
		}
		if question {
			last := ss[len(ss)-1]
			ss[len(ss)-1] = last[:len(last)-1] + "?"
		}
		if !question && words > 50 && r.IntN(2) == 0 { // two paragraphs in longer answers
			h := len(ss) / 2
			return strings.Join(ss[:h], " ") + "\n\n" + strings.Join(ss[h:], " ")
		}
		return strings.Join(ss, " ")
	}
	systems := make([]string, 40)
	for i := range systems {
		systems[i] = "You are a helpful assistant. " + sentence()
	}
	cf, err := os.Create(out)
	if err != nil {
		return err
	}
	defer cf.Close()
	tf, err := os.Create(textOut)
	if err != nil {
		return err
	}
	defer tf.Close()
	cw, tw := bufio.NewWriterSize(cf, 1<<20), bufio.NewWriterSize(tf, 1<<20)
	cenc, tenc := json.NewEncoder(cw), json.NewEncoder(tw)
	cenc.SetEscapeHTML(false)
	tenc.SetEscapeHTML(false)
	var kept [][]message
	for i := 0; i < n; i++ {
		var msgs []message
		if len(kept) > 0 && r.IntN(200) == 0 {
			msgs = kept[r.IntN(len(kept))]
		} else {
			if r.IntN(10) < 7 {
				msgs = append(msgs, message{"system", systems[r.IntN(len(systems))]})
			}
			rounds := 1
			if r.IntN(100) < 15 {
				rounds = 2 + r.IntN(2)
			}
			for ; rounds > 0; rounds-- {
				msgs = append(msgs, message{"user", turn(18, true)}, message{"assistant", turn(55, false)})
			}
			if len(kept) < 1000 {
				kept = append(kept, msgs)
			} else if r.IntN(100) == 0 {
				kept[r.IntN(len(kept))] = msgs
			}
		}
		contents := make([]string, len(msgs))
		for j, m := range msgs {
			contents[j] = m.Content
		}
		if err := cenc.Encode(map[string]any{"messages": msgs}); err != nil {
			return err
		}
		if err := tenc.Encode(map[string]string{"text": strings.Join(contents, "\n\n")}); err != nil {
			return err
		}
	}
	if err := cw.Flush(); err != nil {
		return err
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if err := cf.Close(); err != nil {
		return err
	}
	return tf.Close()
}
