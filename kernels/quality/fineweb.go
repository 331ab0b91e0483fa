package quality

import (
	"bytes"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cespare/xxhash/v2"

	"github.com/sluice-data/sluice/kernels/words"
)

var fineWebSignals = []signal{
	{"fineweb_line_punct_frac", arrow.FLOAT64},
	{"fineweb_short_line_frac", arrow.FLOAT64},
	{"fineweb_dup_line_char_frac", arrow.FLOAT64},
	{"fineweb_newline_word_ratio", arrow.FLOAT64},
}

const (
	fwLinePunctFrac = iota
	fwShortLineFrac
	fwDupLineCharFrac
	fwNewlineWordRatio
)

type fineWeb struct {
	c        FineWebConfig
	endMarks [][]byte          // the end marks of more than one rune
	endRunes map[rune]struct{} // the end marks of one rune
	pool     sync.Pool
}

type fineWebScratch struct {
	lines []words.Span
	tab   hashTable
}

func newFineWeb(c FineWebConfig) *fineWeb {
	f := &fineWeb{c: c, endRunes: map[rune]struct{}{}}
	for _, m := range c.EndMarks {
		if utf8.RuneCountInString(m) == 1 {
			r, _ := utf8.DecodeRuneInString(m)
			f.endRunes[r] = struct{}{}
		} else {
			f.endMarks = append(f.endMarks, []byte(m))
		}
	}
	f.pool.New = func() any { return new(fineWebScratch) }
	return f
}

// endsWithMark reports whether line b ends with an end mark.
func (f *fineWeb) endsWithMark(b []byte) bool {
	r, size := utf8.DecodeLastRune(b)
	if _, ok := f.endRunes[r]; ok && (r != utf8.RuneError || size > 1) {
		return true
	}
	return hasAnySuffix(b, f.endMarks)
}

func (f *fineWeb) Name() string      { return "fineweb" }
func (f *fineWeb) Signals() []string { return signalNames(fineWebSignals) }

func (f *fineWeb) Apply(mem memory.Allocator, text *array.String) (Result, error) {
	return applyRows(mem, text, fineWebSignals, &f.pool, f.row), nil
}

func (f *fineWeb) row(text []byte, s *fineWebScratch, out *outputs, i int) string {
	c := &f.c
	textChars := runeCount(text)
	ascii := textChars == len(text)
	s.lines = words.Lines(text, s.lines[:0])
	s.tab.reset(len(s.lines))
	lines, punct, short, dupChars := 0, 0, 0, 0
	for _, l := range s.lines {
		b := bytes.TrimSpace(text[l.Start:l.End])
		if len(b) == 0 {
			if c.CountBlankLines {
				lines++
				short++
			}
			continue
		}
		lines++
		if f.endsWithMark(b) {
			punct++
		}
		n := chars(b, ascii)
		if int64(n) <= c.ShortLineLength {
			short++
		}
		if c, _ := s.tab.add(xxhash.Sum64(b), 0); c > 1 {
			dupChars += n
		}
	}
	// Every line but a last one without a line break ends with '\n'.
	newlines := len(s.lines)
	if len(text) > 0 && text[len(text)-1] != '\n' {
		newlines--
	}
	nw := words.Count(text)

	punctFrac := ratio(punct, lines)
	shortFrac := ratio(short, lines)
	dupFrac := ratio(dupChars, textChars-newlines)
	nlRatio := float64(newlines) / float64(max(nw, 1))
	out.f[fwLinePunctFrac][i] = punctFrac
	out.f[fwShortLineFrac][i] = shortFrac
	out.f[fwDupLineCharFrac][i] = dupFrac
	out.f[fwNewlineWordRatio][i] = nlRatio
	switch {
	case punctFrac < c.MinLinePunctFrac:
		return "line_punct_frac"
	case shortFrac > c.MaxShortLineFrac:
		return "short_line_frac"
	case dupFrac > c.MaxDupLineCharFrac:
		return "dup_line_char_frac"
	case nlRatio > c.MaxNewlineWordRatio:
		return "newline_word_ratio"
	}
	return ""
}
