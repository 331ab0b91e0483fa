package quality

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cespare/xxhash/v2"

	"github.com/sluice-data/sluice/kernels/words"
)

var c4Signals = []signal{
	{"c4_lines_kept", arrow.INT64},
	{"c4_lines_removed", arrow.INT64},
	{"c4_sentences", arrow.INT64},
}

const (
	c4LinesKept = iota
	c4LinesRemoved
	c4Sentences
)

type c4 struct {
	c          C4Config
	endMarks   [][]byte
	lorem      phrase
	javascript phrase
	policy     []*phrase // nil unless c.DropPolicyLines
	phrases    phraseSet // the phrases of the enabled rules
	loremID    int       // index of lorem in phrases, -1 if not there
	jsID       int       // index of javascript in phrases, -1 if not there
	policyID   int       // index of the first policy phrase in phrases
}

type c4Scratch struct {
	words  []words.Span
	lower  []byte    // the text with ASCII letters in lower case, for phrases.scan
	found  []bool    // which of f.phrases occur in the text
	clean  []byte    // a line without citation markers
	policy []*phrase // the policy phrases that occur in the text
}

func newC4(c C4Config) *c4 {
	f := &c4{c: c, endMarks: byteSlices(c.EndMarks), lorem: newPhrase("lorem ipsum"), javascript: newPhrase("javascript")}
	if c.DropPolicyLines {
		for _, p := range c.PolicyPhrases {
			ph := newPhrase(p)
			f.policy = append(f.policy, &ph)
		}
	}
	var ps []*phrase
	f.loremID, f.jsID = -1, -1
	if c.DropLoremIpsum {
		f.loremID = len(ps)
		ps = append(ps, &f.lorem)
	}
	if c.DropJavascriptLines {
		f.jsID = len(ps)
		ps = append(ps, &f.javascript)
	}
	f.policyID = len(ps)
	f.phrases = newPhraseSet(append(ps, f.policy...))
	return f
}

func (f *c4) Name() string      { return "c4" }
func (f *c4) Signals() []string { return signalNames(c4Signals) }

func (f *c4) Apply(mem memory.Allocator, text *array.String) (Result, error) {
	return applyOne(mem, text, f)
}

// c4Run writes the rewritten texts of a column as it goes.
type c4Run struct {
	signalRunner
	f       *c4
	offBuf  *memory.Buffer
	offsets []int32
	dataBuf *memory.Buffer
	data    []byte
	pos     int   // where the next text goes in data
	next    int   // the first row whose offset is not set yet
	view    *view // the view of the last rewritten text
}

func (f *c4) start(mem memory.Allocator, col *column, after *view) runner {
	r := &c4Run{signalRunner: signalRunner{newOutputs(mem, c4Signals, col.n)}, f: f, view: after}
	// The rewritten texts are never longer than the originals: kept lines
	// are trimmed parts of lines, joined by one newline.
	r.offBuf = memory.NewResizableBuffer(mem)
	r.offBuf.Resize((col.n + 1) * arrow.Int32SizeBytes)
	r.offsets = arrow.Int32Traits.CastFromBytes(r.offBuf.Bytes())
	r.dataBuf = memory.NewResizableBuffer(mem)
	r.dataBuf.Resize(len(col.data))
	r.data = r.dataBuf.Bytes()
	return r
}

func (r *c4Run) after() *view { return r.view }

// setOffsets sets the offsets of the rows before end that have none, null
// rows included: they start at the current position.
func (r *c4Run) setOffsets(end int) {
	for ; r.next < end; r.next++ {
		r.offsets[r.next] = int32(r.pos)
	}
}

func (r *c4Run) row(v *view, sc *scratch, i int) string {
	r.setOffsets(i + 1)
	var fail string
	r.pos, fail = r.f.row(v, sc, r.out, i, r.data, r.pos, r.view)
	return fail
}

func (r *c4Run) result(col *column, fail []string) Result {
	r.setOffsets(col.n + 1)
	if r.pos < len(r.data)/2 {
		r.dataBuf.Resize(r.pos)
	} else {
		r.dataBuf.ResizeNoShrink(r.pos)
	}
	d := array.NewData(arrow.BinaryTypes.String, col.n, []*memory.Buffer{col.valid, r.offBuf, r.dataBuf}, nil, col.nulls, 0)
	rewritten := array.NewStringData(d)
	d.Release()
	r.offBuf.Release()
	r.dataBuf.Release()
	return Result{Signals: r.out.arrays(col), Fail: fail, Rewritten: rewritten}
}

// row filters the lines of the text of v, writes the kept lines to dst
// from pos on, records the signals in row i of out, and returns the new
// write position and the first rule the text fails. after becomes the
// view of the rewritten text: its lines are the kept lines, and when v
// has its words and line hashes, so has after.
func (f *c4) row(v *view, sc *scratch, out *outputs, i int, dst []byte, pos int, after *view) (int, string) {
	c, s := &f.c, &sc.c4
	text := v.text
	// Find once which phrases occur anywhere, so that lines are searched
	// only for those.
	s.found = slices.Grow(s.found[:0], f.phrases.n)[:f.phrases.n]
	s.lower = f.phrases.scan(text, s.found, s.lower)
	anyLorem := f.loremID >= 0 && s.found[f.loremID]
	anyJS := f.jsID >= 0 && s.found[f.jsID]
	anyBrace := c.DropCurlyBrace && bytes.IndexByte(text, '{') >= 0
	// The terminal marks the text holds: lines are searched only for those.
	marks := newMarks([3]bool{bytes.IndexByte(text, '.') >= 0, bytes.IndexByte(text, '!') >= 0, bytes.IndexByte(text, '?') >= 0})
	s.policy = s.policy[:0]
	for k, p := range f.policy {
		if s.found[f.policyID+k] {
			s.policy = append(s.policy, p)
		}
	}
	minWords := int(min(c.MinWordsPerLine, math.MaxInt32))

	// With the words of the text at hand, a line's words are counted and
	// measured without splitting it again.
	haveWords, hashed := v.haveWords, v.hashed
	var ls []line
	var ws []words.Span
	if haveWords {
		ls, ws = v.LineWords()
	} else {
		ls = v.Lines()
	}
	rowStart := pos
	after.lines = after.lines[:0]
	afterWords, blank := 0, false

	kept, removed, sentences := 0, 0, 0
	lorem, brace := false, false
	for k, l := range ls {
		if l.a == l.b {
			continue // blank lines are not lines
		}
		line := text[l.a:l.b]
		lorem1, js1, brace1, policy1 := anyLorem, anyJS, anyBrace, s.policy
		cleaned := false
		if c.RemoveCitations && bytes.IndexByte(line, '[') >= 0 {
			var changed bool
			s.clean, changed = removeCitations(s.clean[:0], line)
			if changed {
				// Removing a marker can join text into a phrase the whole
				// text did not show: check this line for everything.
				line = bytes.TrimSpace(s.clean)
				lorem1, js1, brace1, policy1 = c.DropLoremIpsum, c.DropJavascriptLines, c.DropCurlyBrace, f.policy
				cleaned = true
			}
		}
		var lw []words.Span
		var tooLong, enough bool
		if haveWords && !cleaned {
			lw = wordsOfLine(ls, ws, k)
			tooLong = f.tooLongIn(line, text, lw)
			enough = len(lw) >= minWords
		} else {
			tooLong = f.tooLongWord(line, s)
			enough = words.AtLeast(line, minWords)
		}
		if tooLong ||
			c.RequireEndMark && (!hasAnySuffix(line, f.endMarks) || bytes.HasSuffix(line, dots)) ||
			!enough {
			removed++
			continue
		}
		if lorem1 && f.lorem.in(line) {
			lorem = true
		}
		if js1 && f.javascript.in(line) {
			removed++
			continue
		}
		if brace1 && bytes.IndexByte(line, '{') >= 0 {
			brace = true
		}
		if inAny(line, policy1) {
			removed++
			continue
		}
		kept++
		switch {
		case sc.decideOnly && int64(sentences) >= c.MinSentences:
			// Enough sentences for the rule: the count is not wanted.
		case v.ascii:
			sentences += marks.count(line)
		default:
			sentences += countSentences(line)
		}
		if kept > 1 {
			dst[pos] = '\n'
			pos++
		}
		at := int32(pos - rowStart)
		pos += copy(dst[pos:], line)
		al := keptLine(at, at+int32(len(line)))
		switch {
		case len(line) == 0:
			blank = true
		case !hashed:
		case cleaned:
			al.hash = xxhash.Sum64(line)
		default:
			al.hash = l.hash
		}
		after.lines = append(after.lines, al)
		switch {
		case !haveWords:
		case cleaned:
			afterWords += words.Count(line)
		default:
			afterWords += len(lw)
		}
	}
	rewritten := dst[rowStart:pos]
	if blank {
		// An empty kept line (a line of citation markers alone, kept by
		// rules that allow lines without words) does not make a line of
		// its own at the end of the text: read the text afresh.
		after.reset(rewritten)
	} else {
		after.derive(rewritten, v.ascii, hashed, haveWords, afterWords)
	}

	out.i[c4LinesKept][i] = int64(kept)
	out.i[c4LinesRemoved][i] = int64(removed)
	out.i[c4Sentences][i] = int64(sentences)
	switch {
	case lorem:
		return pos, "lorem_ipsum"
	case brace:
		return pos, "curly_brace"
	case kept == 0:
		return pos, "no_lines"
	case int64(sentences) < c.MinSentences:
		return pos, "sentences"
	}
	return pos, ""
}

// tooLongIn is tooLongWord for a line of text whose words are ws.
func (f *c4) tooLongIn(line, text []byte, ws []words.Span) bool {
	limit := f.c.MaxWordLength
	if int64(len(line)) <= limit {
		return false
	}
	for _, w := range ws {
		if int64(w.Len()) > limit && int64(runeCount(text[w.Start:w.End])) > limit {
			return true
		}
	}
	return false
}

func inAny(b []byte, ps []*phrase) bool {
	for _, p := range ps {
		if p.in(b) {
			return true
		}
	}
	return false
}

// tooLongWord reports whether a word of line is longer than the maximum
// word length in characters.
func (f *c4) tooLongWord(line []byte, s *c4Scratch) bool {
	limit := f.c.MaxWordLength
	// A word has at most as many characters as bytes.
	if int64(len(line)) <= limit {
		return false
	}
	s.words = words.Split(line, s.words[:0])
	for _, w := range s.words {
		if int64(w.Len()) > limit && int64(runeCount(line[w.Start:w.End])) > limit {
			return true
		}
	}
	return false
}

// trimSpan returns the bounds of text[start:end] without surrounding white
// space.
func trimSpan(text []byte, start, end int) (int, int) {
	for start < end {
		c := text[start]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				break
			}
			start++
			continue
		}
		r, size := utf8.DecodeRune(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		start += size
	}
	for end > start {
		c := text[end-1]
		if c < utf8.RuneSelf {
			if !asciiSpace[c] {
				break
			}
			end--
			continue
		}
		r, size := utf8.DecodeLastRune(text[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= size
	}
	return start, end
}

// removeCitations appends line without the citation markers "[" digits "]"
// (digits possibly none), "[edit]" and "[citation needed]" to dst, and
// reports whether it removed any.
func removeCitations(dst, line []byte) ([]byte, bool) {
	changed := false
	for {
		j := bytes.IndexByte(line, '[')
		if j < 0 {
			return append(dst, line...), changed
		}
		dst = append(dst, line[:j]...)
		line = line[j:]
		if n := citationLen(line); n > 0 {
			line = line[n:]
			changed = true
			continue
		}
		dst = append(dst, '[')
		line = line[1:]
	}
}

// citationLen returns the length of the citation marker at the start of b,
// which starts with '[', or 0.
func citationLen(b []byte) int {
	k := 1
	for k < len(b) && b[k]-'0' < 10 {
		k++
	}
	if k < len(b) && b[k] == ']' {
		return k + 1
	}
	for _, m := range [...]string{"[edit]", "[citation needed]"} {
		if len(b) >= len(m) && string(b[:len(m)]) == m {
			return len(m)
		}
	}
	return 0
}

// countSentences approximates the number of sentences in a line, as the C4
// reference implementation counts them with NLTK's Punkt tokenizer: a
// sentence ends at a run of '.', '!' or '?' (with any closing quotes or
// brackets) that is followed by white space or ends the line, or at a CJK
// full stop, question or exclamation mark, and holds a letter or digit. A
// single '.' does not end a sentence before a lower-case letter ("e.g. the"),
// after a single capital ("J. Smith") or after a title ("Dr. Smith"). Text
// after the last end counts as a sentence.
func countSentences(b []byte) int {
	if isASCII(b) {
		return countSentencesASCII(b, allMarks)
	}
	n := 0
	last := 0 // start of the current sentence
	for i := 0; i < len(b); {
		for i < len(b) && sentenceByte[b[i]] == 0 {
			i++
		}
		if i == len(b) {
			break
		}
		if b[i] >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(b[i:])
			if (r == '。' || r == '！' || r == '？') && hasContent(b[last:i]) {
				n++
				last = i + size
			}
			i += size
			continue
		}
		j := i + 1
		for j < len(b) && (b[j] == '.' || b[j] == '!' || b[j] == '?') {
			j++
		}
		j = skipClosers(b, j)
		if endsSentence(b, i, j) && hasContent(b[last:i]) {
			n++
			last = j
		}
		i = j
	}
	if hasContent(b[last:]) {
		n++
	}
	return n
}

// allMarks says that a text may hold any terminal punctuation.
var allMarks = [3]bool{true, true, true}

// countSentencesASCII is countSentences for ASCII text: it finds the
// '.', '!' and '?' eight bytes at a time, looking only for those that may
// occur (may[0] for '.', may[1] for '!', may[2] for '?').
func countSentencesASCII(b []byte, may [3]bool) int {
	ms := newMarks(may)
	return ms.count(b)
}

// marksOf finds the terminal marks that countSentencesASCII looks for.
type marksOf struct {
	pat [3]uint64 // each mark looked for in every byte (one repeated for the others)
	on  uint64    // bit c for each mark c looked for (all are below 64)
}

// newMarks returns the marksOf the marks that may occur.
func newMarks(may [3]bool) marksOf {
	marks := [3]byte{'.', '!', '?'}
	var ms marksOf
	any := -1
	for k, m := range marks {
		if may[k] {
			ms.on |= 1 << m
			any = k
		}
	}
	for k := range ms.pat {
		m := marks[max(any, 0)]
		if may[k] {
			m = marks[k]
		}
		ms.pat[k] = uint64(m) * 0x0101010101010101
	}
	return ms
}

// is reports whether c is a mark looked for.
func (ms *marksOf) is(c byte) bool { return c < 64 && ms.on>>c&1 != 0 }

// count is countSentencesASCII with the marks of ms.
func (ms *marksOf) count(b []byte) int {
	if ms.on == 0 {
		return b2i(hasContent(b))
	}
	n, last := 0, 0
	for i := ms.next(b, 0); i < len(b); i = ms.next(b, i) {
		j := i + 1
		for j < len(b) && (b[j] == '.' || b[j] == '!' || b[j] == '?') {
			j++
		}
		j = skipClosers(b, j)
		if endsSentence(b, i, j) && hasContent(b[last:i]) {
			n++
			last = j
		}
		i = j
	}
	if hasContent(b[last:]) {
		n++
	}
	return n
}

// next returns the index of the first mark looked for in b at or after i,
// or len(b). It tests eight bytes at a time for the three patterns at
// once; zeroBytes may flag other bytes too, which is tells apart.
func (ms *marksOf) next(b []byte, i int) int {
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		m := (zeroBytes(x^ms.pat[0]) | zeroBytes(x^ms.pat[1]) | zeroBytes(x^ms.pat[2])) & 0x8080808080808080
		for m != 0 {
			k := i + bits.TrailingZeros64(m)/8
			if ms.is(b[k]) {
				return k
			}
			m &= m - 1
		}
	}
	for ; i < len(b); i++ {
		if ms.is(b[i]) {
			return i
		}
	}
	return len(b)
}

// zeroBytes has the high bit set in each zero byte of v, and perhaps in
// bytes above a zero byte; in none when v has no zero byte. Only its high
// bits count.
func zeroBytes(v uint64) uint64 { return (v - 0x0101010101010101) &^ v }

// sentenceByte marks the bytes countSentences stops at: terminal
// punctuation and the lead bytes of multi-byte runes.
var sentenceByte = func() (t [256]uint8) {
	t['.'], t['!'], t['?'] = 1, 1, 1
	for c := 0xC0; c < 256; c++ {
		t[c] = 1
	}
	return t
}()

// hasContent reports whether b holds a letter or digit.
func hasContent(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if (c|0x20)-'a' < 26 || c-'0' < 10 {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return true
		}
		i += size
	}
	return false
}

// skipClosers returns the index after the closing quotes and brackets at
// b[j:].
func skipClosers(b []byte, j int) int {
	for j < len(b) {
		switch b[j] {
		case '"', '\'', ')', ']':
			j++
			continue
		}
		if b[j] < utf8.RuneSelf {
			break // the other closers are not ASCII
		}
		if n := closerLen(b[j:]); n > 0 {
			j += n
			continue
		}
		break
	}
	return j
}

func closerLen(b []byte) int {
	for _, q := range [...]string{"”", "’", "»"} {
		if len(b) >= len(q) && string(b[:len(q)]) == q {
			return len(q)
		}
	}
	return 0
}

// endsSentence reports whether the terminal punctuation b[i:j] ends a
// sentence.
func endsSentence(b []byte, i, j int) bool {
	if j == len(b) {
		return true
	}
	if sp, _ := isSpaceAt(b, j); !sp {
		return false
	}
	if j != i+1 || b[i] != '.' {
		return true
	}
	// A lone full stop: rule out abbreviations.
	k := j
	for k < len(b) {
		sp, size := isSpaceAt(b, k)
		if !sp {
			break
		}
		k += size
	}
	if k < len(b) && b[k]-'a' < 26 {
		return false
	}
	w := i
	for w > 0 && (b[w-1]|0x20)-'a' < 26 {
		w--
	}
	prev := b[w:i]
	if len(prev) == 1 && prev[0]-'A' < 26 {
		return false
	}
	switch string(prev) {
	case "Mr", "Mrs", "Ms", "Dr", "Prof", "St", "Jr", "Sr", "vs":
		return false
	}
	return true
}
