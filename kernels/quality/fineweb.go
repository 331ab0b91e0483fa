package quality

import (
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
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
	c         FineWebConfig
	endMarks  [][]byte          // the end marks of more than one rune
	endRunes  map[rune]struct{} // the end marks of one rune
	endASCII  [utf8.RuneSelf]bool
	endNonASC bool // an end mark of one rune is not ASCII
}

type fineWebScratch struct {
	tab hashTable
}

func newFineWeb(c FineWebConfig) *fineWeb {
	f := &fineWeb{c: c, endRunes: map[rune]struct{}{}}
	for _, m := range c.EndMarks {
		if utf8.RuneCountInString(m) == 1 {
			r, _ := utf8.DecodeRuneInString(m)
			f.endRunes[r] = struct{}{}
			if r < utf8.RuneSelf {
				f.endASCII[r] = true
			} else {
				f.endNonASC = true
			}
		} else {
			f.endMarks = append(f.endMarks, []byte(m))
		}
	}
	return f
}

// endsWithMark reports whether line b ends with an end mark.
func (f *fineWeb) endsWithMark(b []byte) bool {
	if c := b[len(b)-1]; c < utf8.RuneSelf {
		if f.endASCII[c] {
			return true
		}
		return hasAnySuffix(b, f.endMarks)
	}
	if !f.endNonASC {
		return hasAnySuffix(b, f.endMarks)
	}
	r, size := utf8.DecodeLastRune(b)
	if _, ok := f.endRunes[r]; ok && (r != utf8.RuneError || size > 1) {
		return true
	}
	return hasAnySuffix(b, f.endMarks)
}

func (f *fineWeb) Name() string      { return "fineweb" }
func (f *fineWeb) Signals() []string { return signalNames(fineWebSignals) }

func (f *fineWeb) Apply(mem memory.Allocator, text *array.String) (Result, error) {
	return applyOne(mem, text, f)
}

type fineWebRun struct {
	signalRunner
	f *fineWeb
}

func (f *fineWeb) start(mem memory.Allocator, col *column, _ *view) runner {
	return &fineWebRun{signalRunner{newOutputs(mem, fineWebSignals, col.n)}, f}
}

func (r *fineWebRun) row(v *view, sc *scratch, i int) string {
	f, out, s := r.f, r.out, &sc.fw
	c := &f.c
	text := v.text
	textChars := v.Chars()
	ls := v.HashedLines()
	s.tab.reset(len(ls))
	lines, punct, short, dupChars := 0, 0, 0, 0
	for _, l := range ls {
		if l.a == l.b {
			if c.CountBlankLines {
				lines++
				short++
			}
			continue
		}
		b := text[l.a:l.b]
		lines++
		if f.endsWithMark(b) {
			punct++
		}
		n := v.charsOf(l.a, l.b)
		if int64(n) <= c.ShortLineLength {
			short++
		}
		if c, _ := s.tab.add(l.hash, 0); c > 1 {
			dupChars += n
		}
	}
	// Every line but a last one without a line break ends with '\n'.
	newlines := len(ls)
	if len(text) > 0 && text[len(text)-1] != '\n' {
		newlines--
	}
	nw := v.WordCount()

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
