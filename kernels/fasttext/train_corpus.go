package fasttext

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
)

// Corpus is labelled training text, held as fastText reads its input
// file: one line per example, each a sequence of tokens ending with </s>,
// the tokens stored as indices into the corpus's table of distinct
// tokens. An example added with labels L and text T is the line
// "__label__L1 __label__L2 T" of a fastText training file.
type Corpus struct {
	tokens []string         // distinct tokens, in order of first occurrence
	index  map[string]int32 // token -> index into tokens
	counts []int64          // occurrences of each token
	// The tokens of every line, </s> included, in chunks that a line
	// never spans, so that the corpus grows without copying itself.
	chunks  [][]int32
	lines   []lineRef
	pending []int32 // the tokens of the line being added
	ntokens int64
	bytes   int64 // bytes of the equivalent fastText file
	eos     int32
}

// lineRef locates a line: chunks[chunk][off:off+n].
type lineRef struct{ chunk, off, n int32 }

// chunkTokens is the size of a chunk of the token stream (16 MiB).
const chunkTokens = 1 << 22

func (c *Corpus) line(i int) []int32 {
	r := c.lines[i]
	return c.chunks[r.chunk][r.off : r.off+r.n]
}

// NewCorpus returns an empty corpus.
func NewCorpus() *Corpus {
	// </s> takes its place among the tokens where the first line ends,
	// as in fastText's dictionary.
	return &Corpus{index: map[string]int32{}, eos: -1}
}

func (c *Corpus) intern(tok []byte) int32 {
	if id, ok := c.index[string(tok)]; ok {
		return id
	}
	if len(c.tokens) == math.MaxInt32 {
		panic("fasttext: more than 2^31 distinct tokens")
	}
	id := int32(len(c.tokens))
	s := string(tok)
	c.tokens = append(c.tokens, s)
	c.counts = append(c.counts, 0)
	c.index[s] = id
	return id
}

func (c *Corpus) push(tok []byte) {
	id := c.intern(tok)
	c.counts[id]++
	c.pending = append(c.pending, id)
}

// flushLine stores the pending tokens as a line.
func (c *Corpus) flushLine() {
	n := len(c.pending)
	if n > math.MaxInt32 {
		panic("fasttext: a line of more than 2^31 tokens")
	}
	last := len(c.chunks) - 1
	if last < 0 || cap(c.chunks[last])-len(c.chunks[last]) < n {
		c.chunks = append(c.chunks, make([]int32, 0, max(chunkTokens, n)))
		last++
	}
	off := len(c.chunks[last])
	c.chunks[last] = append(c.chunks[last], c.pending...)
	c.lines = append(c.lines, lineRef{chunk: int32(last), off: int32(off), n: int32(n)})
	c.ntokens += int64(n)
	c.pending = c.pending[:0]
}

func (c *Corpus) endLine() {
	if c.eos < 0 {
		c.eos = c.intern([]byte(eos))
	}
	c.counts[c.eos]++
	c.pending = append(c.pending, c.eos)
	c.flushLine()
}

// ErrBadLabel is the cause of an error for a label fastText could not
// hold: empty, or with a white-space byte in it.
var ErrBadLabel = errors.New("a label must be non-empty and hold no white space (fastText splits tokens on it)")

// CheckLabel reports whether label (without __label__) can be a fastText
// label.
func CheckLabel(label string) error {
	if label == "" {
		return fmt.Errorf("empty label: %w", ErrBadLabel)
	}
	for i := 0; i < len(label); i++ {
		if isSpace(label[i]) {
			return fmt.Errorf("label %q: %w", label, ErrBadLabel)
		}
	}
	return nil
}

// Add adds one example: its labels (without the __label__ prefix) and its
// text. Newlines in the text separate tokens like spaces, so the text is
// one example, as at prediction time. Tokens of the text that start with
// __label__ are dropped: text is never read as a label.
func (c *Corpus) Add(labels []string, text []byte) error {
	for _, l := range labels {
		if err := CheckLabel(l); err != nil {
			return err
		}
	}
	var buf []byte
	for _, l := range labels {
		buf = append(append(buf[:0], labelPrefix...), l...)
		c.push(buf)
		c.bytes += int64(len(buf)) + 1
	}
	for i := 0; i < len(text); {
		if isSpace(text[i]) {
			i++
			continue
		}
		start := i
		for i < len(text) && !isSpace(text[i]) {
			i++
		}
		tok := text[start:i]
		if hasLabelPrefix(tok) {
			continue
		}
		c.push(tok)
		c.bytes += int64(len(tok)) + 1
	}
	c.endLine()
	return nil
}

// ReadFastText adds the lines of a fastText training file: each line one
// example, tokens starting with __label__ its labels, the rest its words,
// read exactly as `fasttext supervised` reads them. It returns the number
// of lines added.
func (c *Corpus) ReadFastText(r io.Reader) (int, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	n := 0
	var tok []byte
	inLine := false
	for {
		b, err := br.ReadByte()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		c.bytes++
		if isSpace(b) {
			if len(tok) > 0 {
				c.push(tok)
				tok = tok[:0]
			}
			if b == '\n' {
				c.endLine()
				inLine = false
				n++
			}
			continue
		}
		tok = append(tok, b)
		inLine = true
	}
	if len(tok) > 0 {
		c.push(tok)
	}
	if inLine {
		// fastText reads a last line without a newline with no </s>.
		c.flushLine()
		n++
	}
	return n, nil
}

// Examples returns the number of lines.
func (c *Corpus) Examples() int { return len(c.lines) }

// Tokens returns the number of tokens, </s> and labels included: the
// count fastText reports as words read.
func (c *Corpus) Tokens() int64 { return c.ntokens }

// Bytes returns the size of the equivalent fastText training file.
func (c *Corpus) Bytes() int64 { return c.bytes }

// LabelCounts returns each label (without __label__) and the number of
// times it occurs, in order of first occurrence.
func (c *Corpus) LabelCounts() (labels []string, counts []int64) {
	for i, t := range c.tokens {
		if hasLabelPrefix([]byte(t)) {
			labels = append(labels, t[len(labelPrefix):])
			counts = append(counts, c.counts[i])
		}
	}
	return labels, counts
}

// WriteFastText writes the corpus as a fastText training file, the one
// `fasttext supervised -input` reads to train the same model.
func (c *Corpus) WriteFastText(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	for i := range c.lines {
		line := c.line(i)
		for j, id := range line {
			if id == c.eos && j == len(line)-1 {
				break
			}
			if j > 0 {
				bw.WriteByte(' ')
			}
			bw.WriteString(c.tokens[id])
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// trainDict is the dictionary of training: the entries sorted and
// thresholded as fastText's Dictionary::threshold leaves them, and for
// every distinct token of the corpus its entry (or -1), hash and type.
type trainDict struct {
	words        []string // entries: words, then labels
	counts       []int64
	nwords       int32
	nlabels      int32
	ntokens      int64
	entryOf      []int32  // corpus token -> entry, -1 when thresholded away
	hashOf       []uint32 // corpus token -> fastText hash
	isLabel      []bool   // corpus token -> starts with __label__
	subwords     [][]int32
	oovSubwords  map[int32][]int32 // corpus tokens not in the dictionary
	bucket       int
	minn, maxn   int
	labelCounts  []int64
	labelNames   []string
	droppedWords int // distinct words under minCount
}

// buildDict sorts the corpus's tokens as fastText does (type, then count
// descending, ties as libstdc++'s std::sort leaves them) and drops words
// under minCount and labels under minCountLabel.
func buildDict(c *Corpus, a *TrainArgs) *trainDict {
	type entry struct {
		count int64
		label bool
		tok   int32
	}
	es := make([]entry, len(c.tokens))
	d := &trainDict{
		entryOf: make([]int32, len(c.tokens)),
		hashOf:  make([]uint32, len(c.tokens)),
		isLabel: make([]bool, len(c.tokens)),
		ntokens: c.ntokens,
		bucket:  a.Bucket, minn: a.MinN, maxn: a.MaxN,
	}
	for i, t := range c.tokens {
		b := []byte(t)
		d.isLabel[i] = hasLabelPrefix(b)
		d.hashOf[i] = hash(b)
		d.entryOf[i] = -1
		es[i] = entry{count: c.counts[i], label: d.isLabel[i], tok: int32(i)}
	}
	sortEntries(es, func(x, y *entry) bool {
		if x.label != y.label {
			return !x.label
		}
		return x.count > y.count
	})
	for _, e := range es {
		if (!e.label && e.count < int64(a.MinCount)) || (e.label && e.count < int64(a.MinCountLabel)) {
			if !e.label {
				d.droppedWords++
			}
			continue
		}
		d.entryOf[e.tok] = int32(len(d.words))
		d.words = append(d.words, c.tokens[e.tok])
		d.counts = append(d.counts, e.count)
		if e.label {
			d.nlabels++
			d.labelCounts = append(d.labelCounts, e.count)
			d.labelNames = append(d.labelNames, c.tokens[e.tok])
		} else {
			d.nwords++
		}
	}
	if a.MaxN > 0 {
		d.subwords = make([][]int32, d.nwords)
		for i := range d.nwords {
			sw := []int32{i}
			if d.words[i] != eos {
				sw = d.computeSubwords(d.words[i], sw)
			}
			d.subwords[i] = sw
		}
		d.oovSubwords = map[int32][]int32{}
		for i, t := range c.tokens {
			if d.entryOf[i] < 0 && !d.isLabel[i] && t != eos {
				d.oovSubwords[int32(i)] = d.computeSubwords(t, nil)
			}
		}
	}
	return d
}

// computeSubwords appends the rows of the character n-grams of
// "<" + word + ">" (Dictionary::computeSubwords).
func (d *trainDict) computeSubwords(word string, dst []int32) []int32 {
	if d.bucket == 0 {
		return dst
	}
	for _, h := range charNgramHashes(nil, []byte("<"+word+">"), d.minn, d.maxn) {
		dst = append(dst, d.nwords+int32(h%uint32(d.bucket)))
	}
	return dst
}

// line fills words and labels with the input rows and label indices of
// corpus line toks, as Dictionary::getLine does, and returns them with
// the number of tokens read.
func (d *trainDict) line(toks []int32, wordNgrams int, words, labels []int32, hashes []int32) ([]int32, []int32, []int32) {
	words, labels, hashes = words[:0], labels[:0], hashes[:0]
	for _, t := range toks {
		e := d.entryOf[t]
		if d.isLabel[t] {
			if e >= 0 {
				labels = append(labels, e-d.nwords)
			}
			continue
		}
		if e >= 0 {
			if d.maxn <= 0 {
				words = append(words, e)
			} else {
				words = append(words, d.subwords[e]...)
			}
		} else if d.maxn > 0 {
			words = append(words, d.oovSubwords[t]...)
		}
		hashes = append(hashes, int32(d.hashOf[t]))
	}
	if wordNgrams > 1 && d.bucket > 0 {
		bucket := uint64(d.bucket)
		for i := range hashes {
			h := uint64(int64(hashes[i]))
			for j := i + 1; j < len(hashes) && j < i+wordNgrams; j++ {
				h = h*116049371 + uint64(int64(hashes[j]))
				words = append(words, d.nwords+int32(h%bucket))
			}
		}
	}
	return words, labels, hashes
}

// vocabulary reports the words and labels for errors and statistics.
func (d *trainDict) String() string {
	var b bytes.Buffer
	fmt.Fprintf(&b, "%d words, %d labels, %d tokens", d.nwords, d.nlabels, d.ntokens)
	return b.String()
}
