package quality

import (
	"bytes"

	"github.com/cespare/xxhash/v2"

	"github.com/sluice-data/sluice/kernels/words"
)

// view is what the rule sets read of one text: its words, its lines with
// and without surrounding white space, the hashes of the lines, its
// characters. Each part is computed on first use and then shared by every
// rule set that runs on the text, so that a text is split into words and
// lines once however many rule sets read it. A view is scratch state: reset
// reuses its slices, so that a view that has seen a text of n words and
// lines reads smaller texts without allocating.
type view struct {
	text []byte

	ascii bool // text is all ASCII
	chars int  // characters (code points) of text; -1 until counted

	words     []words.Span
	haveWords bool

	nWords    int // words of text, when haveCount
	haveCount bool

	lines     []line // every line, blank ones included
	haveLines bool
	hashed    bool // lines[k].hash is set for the non-blank lines
	lineWords bool // lines[k].w0 is set

	// wordHashes marks that the scratch state's gopher_repetition word
	// hashes (gopherRepetitionScratch.wh) are those of this text's words:
	// gopher_quality computed them on its way through the words.
	wordHashes bool

	// derived marks a view that a rewriting rule set (C4) made of the
	// lines it kept, with the lines (and their hashes, when hashed) and the
	// word count given.
	derived bool
}

// line is one line of a view's text.
type line struct {
	start, end int32  // the line, without its '\n' and a '\r' before it
	a, b       int32  // the line without surrounding white space; a == b for a blank line
	w0         int32  // the first word at or after start (lineWords)
	hash       uint64 // xxhash of text[a:b] (hashed)
}

// reset makes v the view of text.
func (v *view) reset(text []byte) {
	v.text = text
	v.ascii = isASCII(text)
	v.chars = -1
	if v.ascii {
		v.chars = len(text)
	}
	v.words = v.words[:0]
	v.haveWords, v.haveCount, v.haveLines, v.hashed, v.lineWords, v.derived = false, false, false, false, false, false
	v.wordHashes = false
	v.lines = v.lines[:0]
}

// Chars returns the characters of the text.
func (v *view) Chars() int {
	if v.chars < 0 {
		v.chars = runeCount(v.text)
	}
	return v.chars
}

// charsOf returns the characters of text[a:b].
func (v *view) charsOf(a, b int32) int {
	if v.ascii {
		return int(b - a)
	}
	return runeCount(v.text[a:b])
}

// Words returns the words of the text.
func (v *view) Words() []words.Span {
	if !v.haveWords {
		if v.ascii {
			v.words = words.SplitASCII(v.text, v.words[:0])
		} else {
			v.words = words.Split(v.text, v.words[:0])
		}
		v.haveWords = true
		v.nWords, v.haveCount = len(v.words), true
	}
	return v.words
}

// WordCount returns the number of words of the text.
func (v *view) WordCount() int {
	if !v.haveCount {
		v.nWords, v.haveCount = words.Count(v.text), true
	}
	return v.nWords
}

// Lines returns the lines of the text.
func (v *view) Lines() []line {
	if !v.haveLines {
		text := v.text
		for start := 0; start < len(text); {
			end, next := len(text), len(text)
			if j := bytes.IndexByte(text[start:], '\n'); j >= 0 {
				end = start + j
				next = end + 1
			}
			if end > start && text[end-1] == '\r' {
				end--
			}
			a, b := trimSpan(text, start, end)
			v.lines = append(v.lines, line{start: int32(start), end: int32(end), a: int32(a), b: int32(b)})
			start = next
		}
		v.haveLines = true
	}
	return v.lines
}

// HashedLines returns the lines of the text with their hashes.
func (v *view) HashedLines() []line {
	ls := v.Lines()
	if !v.hashed {
		for k := range ls {
			if l := &ls[k]; l.a < l.b {
				l.hash = xxhash.Sum64(v.text[l.a:l.b])
			}
		}
		v.hashed = true
	}
	return ls
}

// LineWords returns the lines of the text with the index of their first
// word: line k holds words[lines[k].w0 : lines[k+1].w0], the last line the
// words from its w0 on. A line's words are those of its text alone:
// words never cross a line break.
func (v *view) LineWords() ([]line, []words.Span) {
	ls, ws := v.Lines(), v.Words()
	if !v.lineWords {
		j := 0
		for k := range ls {
			for j < len(ws) && ws[j].Start < ls[k].start {
				j++
			}
			ls[k].w0 = int32(j)
		}
		v.lineWords = true
	}
	return ls, ws
}

// wordsOfLine returns the words of line k of LineWords.
func wordsOfLine(ls []line, ws []words.Span, k int) []words.Span {
	end := len(ws)
	if k+1 < len(ls) {
		end = int(ls[k+1].w0)
	}
	return ws[ls[k].w0:end]
}

// keptLine is the line of a derived view at text[start:end], which has no
// surrounding white space.
func keptLine(start, end int32) line { return line{start: start, end: end, a: start, b: end} }

// derive makes v the view of text, the lines that a rewriting rule set
// kept, joined by '\n', whose lines it set (none of them empty): text is
// ASCII when the text it was made of was (ascii), the lines carry their
// hashes when hashed, and the text has nWords words when counted.
func (v *view) derive(text []byte, ascii, hashed, counted bool, nWords int) {
	v.text = text
	v.ascii = ascii || isASCII(text)
	v.chars = -1
	if v.ascii {
		v.chars = len(text)
	}
	v.words = v.words[:0]
	v.haveWords, v.lineWords, v.wordHashes = false, false, false
	v.haveLines, v.hashed, v.derived = true, hashed, true
	v.nWords, v.haveCount = nWords, counted
}
