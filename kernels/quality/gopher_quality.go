package quality

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"slices"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/transform"

	"github.com/sluice-data/sluice/kernels/words"
)

var gopherQualitySignals = []signal{
	{"gopher_word_count", arrow.INT64},
	{"gopher_mean_word_length", arrow.FLOAT64},
	{"gopher_hash_word_ratio", arrow.FLOAT64},
	{"gopher_ellipsis_word_ratio", arrow.FLOAT64},
	{"gopher_bullet_lines_frac", arrow.FLOAT64},
	{"gopher_ellipsis_lines_frac", arrow.FLOAT64},
	{"gopher_alpha_words_frac", arrow.FLOAT64},
	{"gopher_stop_words", arrow.INT64},
}

// Indexes into gopherQualitySignals.
const (
	gqWordCount = iota
	gqMeanWordLength
	gqHashWordRatio
	gqEllipsisWordRatio
	gqBulletLinesFrac
	gqEllipsisLinesFrac
	gqAlphaWordsFrac
	gqStopWords
)

type gopherQuality struct {
	c         GopherQualityConfig
	bullets   [][]byte
	ellipses  [][]byte // lower case
	stop      stopTable
	arrays    *stopArrays  // stop, for up to 64 stop words
	stopByLen [][]stopWord // the stop words by length in bytes, when stop cannot hold them
	nStop     int          // distinct stop words
	// fold matches words in lower case; the stop words are then in lower
	// case, and stopASCII tells that they are all ASCII.
	fold, stopASCII bool
	lowerMask       uint64 // asciiLower with fold, else 0
}

type stopWord struct {
	word  string
	bytes []byte // word
	index int    // among the distinct stop words
}

// stopTable finds stop words of up to 8 bytes with one multiplication: a
// word's bytes, as a number, times mul select a slot, and the slot holds
// that number if the word is a stop word. New picks mul so that no two stop
// words share a slot.
type stopTable struct {
	keys  []uint64 // 0 for an empty slot: no word packs to 0
	index []int32
	mul   uint64
	shift uint
}

// stopArrays is a stopTable of up to 256 slots (as many as it has for 64
// stop words) in arrays, which the word loop indexes without bounds
// checks.
type stopArrays struct {
	keys  [256]uint64
	index [256]int32
	mul   uint64
	shift uint
}

// maxTableWords bounds the stop words newStopTable searches a multiplier
// for: beyond a few hundred a collision-free one is rarely found, and each
// try costs a pass over the words; longer lists go to the general lookup.
const maxTableWords = 1024

// newStopTable returns the table for words, or false if there are more
// than maxTableWords, a word is longer than 8 bytes or no multiplier in a
// fixed search separates them.
func newStopTable(words []string) (stopTable, bool) {
	if len(words) > maxTableWords {
		return stopTable{}, false
	}
	bits := uint(6)
	for 1<<bits < 4*len(words) {
		bits++
	}
	t := stopTable{keys: make([]uint64, 1<<bits), index: make([]int32, 1<<bits), shift: 64 - bits}
	for _, w := range words {
		if len(w) > 8 {
			return t, false
		}
	}
	mul := uint64(0x9E3779B97F4A7C15)
search:
	for range 10000 {
		mul = mul*6364136223846793005 + 1442695040888963407 | 1
		clear(t.keys)
		for i, w := range words {
			key := packShort([]byte(w))
			slot := key * mul >> t.shift
			if t.keys[slot] != 0 {
				continue search
			}
			t.keys[slot], t.index[slot] = key, int32(i)
		}
		t.mul = mul
		return t, true
	}
	return t, false
}

type gopherQualityScratch struct {
	odd   []int32               // words that do not start with a letter or have more than 16 bytes
	seen  []uint8               // 1 for each distinct stop word found
	lower []byte                // a non-ASCII word in lower case
	caser transform.Transformer // lower case as Python's str.lower()
}

// asciiLower, shifted right by 8*(8-n) bits, turns the n ASCII bytes of a
// word packed by loadShort into lower case when ORed in: the ASCII bytes
// words hold (letters, digits, apostrophe, hyphen, period, comma) all have
// the 0x20 bit set but upper-case letters.
const asciiLower = 0x2020202020202020

// lowerCaser returns a transformer that maps text to lower case as Python's
// str.lower() does: full case mapping ("İ" becomes "i̇") and a final sigma.
func lowerCaser() transform.Transformer { return cases.Lower(language.Und) }

// lowerWord returns b in lower case, in s.lower.
func (s *gopherQualityScratch) lowerWord(b []byte) []byte {
	if need := 3*len(b) + utf8.UTFMax; cap(s.lower) < need {
		s.lower = make([]byte, need)
	}
	for {
		s.caser.Reset()
		n, _, err := s.caser.Transform(s.lower[:cap(s.lower)], b, true)
		if err != transform.ErrShortDst {
			return s.lower[:n]
		}
		s.lower = make([]byte, 2*cap(s.lower))
	}
}

func newGopherQuality(c GopherQualityConfig) *gopherQuality {
	f := &gopherQuality{c: c, bullets: byteSlices(c.Bullets)}
	for _, e := range c.EllipsisLineEndings {
		f.ellipses = append(f.ellipses, lowerASCII(nil, []byte(e)))
	}
	f.fold = !c.CaseSensitiveStopWords
	if f.fold {
		f.lowerMask = asciiLower
	}
	f.stopASCII = true
	lc := lowerCaser()
	seen := map[string]bool{}
	var distinct []string
	for _, w := range c.StopWords {
		if f.fold {
			w, _, _ = transform.String(lc, w)
			f.stopASCII = f.stopASCII && isASCII([]byte(w))
		}
		if !seen[w] {
			seen[w] = true
			distinct = append(distinct, w)
		}
	}
	f.nStop = len(distinct)
	var ok bool
	if f.stop, ok = newStopTable(distinct); ok && f.nStop <= 64 {
		f.arrays = &stopArrays{mul: f.stop.mul, shift: f.stop.shift}
		copy(f.arrays.keys[:], f.stop.keys)
		copy(f.arrays.index[:], f.stop.index)
	}
	if !ok {
		f.stop = stopTable{}
		for i, w := range distinct {
			for len(f.stopByLen) <= len(w) {
				f.stopByLen = append(f.stopByLen, nil)
			}
			f.stopByLen[len(w)] = append(f.stopByLen[len(w)], stopWord{word: w, bytes: []byte(w), index: i})
		}
	}
	return f
}

func (f *gopherQuality) Name() string      { return "gopher_quality" }
func (f *gopherQuality) Signals() []string { return signalNames(gopherQualitySignals) }

func (f *gopherQuality) Apply(mem memory.Allocator, text *array.String) (Result, error) {
	return applyOne(mem, text, f)
}

type gopherQualityRun struct {
	signalRunner
	f *gopherQuality
}

func (f *gopherQuality) start(mem memory.Allocator, col *column, _ *view) runner {
	return &gopherQualityRun{signalRunner{newOutputs(mem, gopherQualitySignals, col.n)}, f}
}

// row computes the signals of one text into row i of the outputs and
// returns the first rule it fails.
func (r *gopherQualityRun) row(v *view, sc *scratch, i int) string {
	f, out, s := r.f, r.out, &sc.gq
	c := &f.c
	text := v.text
	ws := v.Words()
	nw := len(ws)

	totalChars, alpha, stop, ok := 0, 0, 0, false
	if f.arrays != nil {
		totalChars, alpha, stop, ok = f.tableWords(v, sc)
	}
	if !ok {
		totalChars, alpha, stop = f.anyWords(v, s)
	}
	tokens := nw + symbolTokens(text, ws)

	hashes := bytes.Count(text, hashMark)
	ellipses := bytes.Count(text, dots)
	if !v.ascii { // "…" is not ASCII
		ellipses += bytes.Count(text, ellipsisRune)
	}

	nl, bullets, ellLines := 0, 0, 0
	for _, l := range v.Lines() {
		if l.a == l.b {
			continue
		}
		b := text[l.a:l.b]
		nl++
		if hasAnyPrefix(b, f.bullets) {
			bullets++
		}
		if hasAnySuffixFold(b, f.ellipses) {
			ellLines++
		}
	}

	perWord := max(nw, 1)
	wordCount := int64(nw)
	mean := ratio(totalChars, nw)
	hashRatio := float64(hashes) / float64(perWord)
	ellRatio := float64(ellipses) / float64(perWord)
	bulletFrac := ratio(bullets, nl)
	ellFrac := ratio(ellLines, nl)
	alphaFrac := ratio(alpha, tokens)
	stopWords := int64(stop)

	out.i[gqWordCount][i] = wordCount
	out.f[gqMeanWordLength][i] = mean
	out.f[gqHashWordRatio][i] = hashRatio
	out.f[gqEllipsisWordRatio][i] = ellRatio
	out.f[gqBulletLinesFrac][i] = bulletFrac
	out.f[gqEllipsisLinesFrac][i] = ellFrac
	out.f[gqAlphaWordsFrac][i] = alphaFrac
	out.i[gqStopWords][i] = stopWords

	switch {
	case wordCount < c.MinWordCount || wordCount > c.MaxWordCount:
		return "word_count"
	case mean < c.MinMeanWordLength || mean > c.MaxMeanWordLength:
		return "mean_word_length"
	case hashRatio > c.MaxHashWordRatio:
		return "hash_word_ratio"
	case ellRatio > c.MaxEllipsisWordRatio:
		return "ellipsis_word_ratio"
	case bulletFrac > c.MaxBulletLinesFrac:
		return "bullet_lines_frac"
	case ellFrac > c.MaxEllipsisLinesFrac:
		return "ellipsis_lines_frac"
	case alphaFrac < c.MinAlphaWordsFrac:
		return "alpha_words_frac"
	case stopWords < c.MinStopWords:
		return "stop_words"
	}
	return ""
}

// tableWords is the word loop of row when the stop words fit the arrays,
// through asciiWords: the characters of the words, the words that hold a
// letter and the stop words found. Without branches on what a word is:
// found has a bit for each distinct stop word found. With
// gopher_repetition after it, the words are hashed for it here, from the
// bytes read for the stop words. It reports false, having measured
// nothing, for a text it leaves to anyWords: one shorter than 8 bytes, or
// a non-ASCII one whose words it cannot correct (see fixNonASCII).
func (f *gopherQuality) tableWords(v *view, sc *scratch) (totalChars, alpha, stop int, ok bool) {
	s, text := &sc.gq, v.text
	if len(text) < 8 {
		return 0, 0, 0, false
	}
	ws := v.Words()
	nw := len(ws)
	var wh []uint64
	if sc.hashWords {
		g := &sc.gr
		g.wh = slices.Grow(g.wh[:0], nw)[:nw]
		wh = g.wh[:nw]
	}
	s.odd = slices.Grow(s.odd[:0], nw)[:nw]
	totalChars, hits, found, odd := f.asciiWords(text, ws, s.odd[:nw], wh)
	if !v.ascii {
		if totalChars, hits, found, ok = f.fixNonASCII(text, ws, totalChars, hits, found, s); !ok {
			return 0, 0, 0, false
		}
	}
	v.wordHashes = wh != nil
	// The words that do not start with an ASCII letter (most hold none),
	// and those too long for wordHashFrom.
	alpha = nw
	for _, i := range s.odd[:odd] {
		w := ws[i]
		if (text[w.Start]|0x20)-'a' >= 26 && !hasLetter(text[w.Start:w.End]) {
			alpha--
		}
		if wh != nil && w.Len() > 16 {
			wh[i] = wordHashLong(text, int(w.Start), int(w.End))
		}
	}
	stop = hits
	if f.c.DistinctStopWords {
		stop = bits.OnesCount64(found)
	}
	return totalChars, alpha, stop, true
}

// fixNonASCII corrects what asciiWords measured over a text that is not all
// ASCII for its words that are not: their characters, and with fold the
// stop words they are in lower case. It reports false if asciiWords took
// such a word for a stop word it is not, which it cannot take back from
// found.
func (f *gopherQuality) fixNonASCII(text []byte, ws []words.Span, totalChars, hits int, found uint64, s *gopherQualityScratch) (int, int, uint64, bool) {
	j := 0
	for p := words.FirstNonASCII(text, 0); p < len(text); p = words.FirstNonASCII(text, p) {
		for j < len(ws) && int(ws[j].End) <= p {
			j++
		}
		if j == len(ws) {
			break
		}
		w := ws[j]
		start, end := int(w.Start), int(w.End)
		if start > p { // a non-ASCII byte between words
			p++
			continue
		}
		b := text[start:end]
		totalChars += runeCount(b) - len(b)
		if f.fold {
			was := -1
			if n := end - start; n <= 8 {
				was = f.stop.find(packShort(b) | f.lowerMask>>(64-8*uint(n)))
			}
			k := f.foldedStopIndex(b, s)
			switch {
			case k == was:
			case was >= 0:
				return 0, 0, 0, false
			default:
				hits++
				found |= 1 << (uint(k) & 63)
			}
		}
		p = end
	}
	return totalChars, hits, found, true
}

// anyWords is the word loop of row for any text and stop word list.
func (f *gopherQuality) anyWords(v *view, s *gopherQualityScratch) (totalChars, alpha, stop int) {
	text, ws := v.text, v.Words()
	distinct := f.c.DistinctStopWords
	s.seen = slices.Grow(s.seen[:0], f.nStop)[:f.nStop]
	clear(s.seen)
	cur := newASCIICursor(text)
	for _, w := range ws {
		start, end := int(w.Start), int(w.End)
		n, c0 := end-start, text[start]
		plain := cur.plain(start, end)
		if plain {
			totalChars += n
			if (c0|0x20)-'a' < 26 || hasLetter(text[start:end]) {
				alpha++
			}
		} else {
			chars, letter := wordStats(text[start:end])
			totalChars += chars
			if letter {
				alpha++
			}
		}
		k := -1
		switch {
		case !plain && f.fold:
			k = f.foldedStopIndex(text[start:end], s)
		case f.stop.keys == nil:
			k = f.stopIndex(text[start:end])
		case n <= 8:
			k = f.stop.find(loadShort(text, start, end) | f.lowerMask>>(64-8*uint(n)))
		}
		if k >= 0 {
			if !distinct {
				stop++
			} else if s.seen[k] == 0 {
				s.seen[k] = 1
				stop++
			}
		}
	}
	return totalChars, alpha, stop
}

// asciiWords is the word loop of tableWords for a text of 8 bytes or more
// whose stop words fit the arrays, without a call or a branch on what a
// word is; it reads every word as ASCII (fixNonASCII corrects the others). It returns the characters of the words, the stop words
// found (hits, and a bit for each distinct one in found), and the number
// of words listed in odd: those that do not start with a letter or have
// more than 16 bytes. With wh, it sets wh[i] to the hash of word i as
// wordHashLong computes it, but for the words of more than 16 bytes.
func (f *gopherQuality) asciiWords(text []byte, ws []words.Span, odd []int32, wh []uint64) (totalChars, hits int, found uint64, nOdd int) {
	tab, lowerMask := f.arrays, f.lowerMask
	last := len(text) - 8
	for i, w := range ws {
		start, end := int(w.Start), int(w.End)
		n := end - start
		totalChars += n
		odd[nOdd] = int32(i)
		nOdd += b2i((text[start]|0x20)-'a' >= 26 || n > 16)
		// The first bytes of the word, at most 8, as loadShort reads
		// them: from 8 bytes that end the text when the word is close to
		// its end. (Shift counts are masked to 63, which they never
		// exceed, so that the compiler does not check them.)
		at := min(start, last)
		mask := ^uint64(0) >> ((64 - 8*uint(min(n, 8))) & 63)
		a := binary.LittleEndian.Uint64(text[at:]) >> ((8 * uint(start-at)) & 63) & mask
		key := a | lowerMask&mask
		slot := key * tab.mul >> tab.shift & 255
		hit := b2i(tab.keys[slot] == key) & b2i(n <= 8)
		hits += hit
		found |= uint64(hit) << (uint(tab.index[slot]) & 63)
		if wh != nil {
			wh[i] = wordHashFrom(text, start, end, a)
		}
	}
	return totalChars, hits, found, nOdd
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// find returns the index of the stop word that packs to key, or -1.
func (t *stopTable) find(key uint64) int {
	if slot := key * t.mul >> t.shift; t.keys[slot] == key {
		return int(t.index[slot])
	}
	return -1
}

// stopIndex returns the index of stop word b, or -1, for stop word lists
// that do not fit a stopTable; with fold, b is ASCII and matches in lower
// case.
func (f *gopherQuality) stopIndex(b []byte) int {
	if len(b) < len(f.stopByLen) {
		for _, sw := range f.stopByLen[len(b)] {
			if f.fold && equalFoldASCII(b, sw.bytes) || !f.fold && string(b) == sw.word {
				return sw.index
			}
		}
	}
	return -1
}

// foldedStopIndex returns the index of the stop word that the non-ASCII
// word b is in lower case, or -1.
func (f *gopherQuality) foldedStopIndex(b []byte, s *gopherQualityScratch) int {
	if f.stopASCII {
		// A rune whose lower case is not ASCII keeps the word from being
		// an ASCII stop word: most non-ASCII words stop at their first
		// such rune. (Full case mapping differs from unicode.ToLower only
		// for runes whose full lower case is not ASCII either.)
		for i := 0; i < len(b); {
			r, size := utf8.DecodeRune(b[i:])
			if r >= utf8.RuneSelf && unicode.ToLower(r) >= utf8.RuneSelf {
				return -1
			}
			i += size
		}
	}
	lw := s.lowerWord(b)
	if f.stop.keys == nil {
		if len(lw) < len(f.stopByLen) {
			for _, sw := range f.stopByLen[len(lw)] {
				if string(lw) == sw.word {
					return sw.index
				}
			}
		}
		return -1
	}
	if len(lw) > 8 {
		return -1
	}
	return f.stop.find(packShort(lw))
}

// wordStats returns the characters of a word and whether one is a letter.
// Words hold no invalid UTF-8: invalid bytes separate words.
func wordStats(b []byte) (chars int, letter bool) {
	for i := 0; i < len(b); chars++ {
		c := b[i]
		if c < utf8.RuneSelf {
			letter = letter || (c|0x20)-'a' < 26
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		letter = letter || unicode.IsLetter(r)
		i += size
	}
	return chars, letter
}

var (
	hashMark     = []byte("#")
	dots         = []byte("...")
	ellipsisRune = []byte("…")
)

// symbolTokens counts the white-space-delimited tokens of text that hold no
// word, such as "-", "|" or "&&" standing alone. ws are the words of text.
// Such a token lies inside a gap between two words, away from both: a run
// of symbols that touches a word ("end.", "(see") belongs to that word's
// token.
func symbolTokens(text []byte, ws []words.Span) int {
	if len(ws) == 0 {
		return runs(text, true, true)
	}
	count := 0
	prev := 0
	for k, w := range ws {
		// Between two words a standalone token needs white space on both
		// sides: three bytes at least, which most gaps (" ", ", ") lack.
		if start := int(w.Start); start-prev >= 3 || k == 0 && start > 0 {
			count += runs(text[prev:start], k == 0, false)
		}
		prev = int(w.End)
	}
	if prev < len(text) {
		count += runs(text[prev:], false, true)
	}
	return count
}

// runs counts the runs of non-space bytes in gap, a stretch of text between
// words, that touch no word: a run at the start of gap touches the word
// before it unless first, a run at its end the word after it unless last.
func runs(gap []byte, first, last bool) int {
	count := 0
	in := false         // inside a run of non-space bytes
	standalone := false // the current run started after white space
	for i := 0; i < len(gap); {
		sp, size := isSpaceAt(gap, i)
		if sp {
			if in && standalone {
				count++
			}
			in = false
		} else if !in {
			in = true
			standalone = i > 0 || first
		}
		i += size
	}
	if in && standalone && last {
		count++
	}
	return count
}
