package words

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/sluice-data/sluice/internal/cputime"
	"github.com/sluice-data/sluice/internal/testcorpus"
)

func texts(text string, spans []Span) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = text[s.Start:s.End]
	}
	return out
}

func TestSplit(t *testing.T) {
	cases := []struct {
		name, text string
		want       []string
	}{
		{"empty", "", nil},
		{"spaces", " \t\n ", nil},
		{"simple", "The quick brown fox.", []string{"The", "quick", "brown", "fox"}},
		{"punctuation separates", "a,b;c:d!e?f(g)h[i]j{k}l/m\\n_o", []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o"}},
		{"apostrophe", "don't 'quoted' rock 'n' roll", []string{"don't", "quoted", "rock", "n", "roll"}},
		{"curly apostrophe", "l’homme don’t ’tis", []string{"l’homme", "don’t", "tis"}},
		{"hyphen", "state-of-the-art well--known -x y- a-", []string{"state-of-the-art", "well", "known", "x", "y", "a"}},
		{"unicode hyphens", "e‐mail non‑breaking", []string{"e‐mail", "non‑breaking"}},
		{"joiner before a CJK rune separates", "a-漢", []string{"a", "漢"}},
		{"numbers", "pi is 3.14, about 1,000.5 or 1.2.3 but 1..2 and 3. and .5", []string{"pi", "is", "3.14", "about", "1,000.5", "or", "1.2.3", "but", "1", "2", "and", "3", "and", "5"}},
		{"letters and dots", "U.S. e.g. v1.2 a.1", []string{"U", "S", "e", "g", "v1.2", "a", "1"}},
		{"hash and symbols", "#tag $5 100% a+b=c ©2024", []string{"tag", "5", "100", "a", "b", "c", "2024"}},
		{"accents", "naïve café Übermaß", []string{"naïve", "café", "Übermaß"}},
		{"combining marks", "cafe\u0301 e\u0301te\u0301", []string{"cafe\u0301", "e\u0301te\u0301"}},
		{"leading mark", "\u0301a", []string{"\u0301a"}},
		{"cyrillic greek", "Привет, мир! Καλημέρα κόσμε", []string{"Привет", "мир", "Καλημέρα", "κόσμε"}},
		{"arabic digits", "٣٤٥ ١٢", []string{"٣٤٥", "١٢"}},
		{"chinese", "我们爱中文。", []string{"我", "们", "爱", "中", "文"}},
		{"japanese", "カタカナとひらがな、コーヒー", []string{"カ", "タ", "カ", "ナ", "と", "ひ", "ら", "が", "な", "コ", "ー", "ヒ", "ー"}},
		{"cjk touching latin", "AI技术2024年", []string{"AI", "技", "术", "2024", "年"}},
		{"cjk with combining mark", "か\u3099き", []string{"か\u3099", "き"}},
		{"hangul", "안녕하세요 세계", []string{"안녕하세요", "세계"}},
		{"thai is not segmented", "ภาษาไทย ง่าย", []string{"ภาษาไทย", "ง่าย"}},
		{"invalid utf-8", "ab\xffcd \xe2\x80 ef", []string{"ab", "cd", "ef"}},
		{"replacement char", "a\uFFFDb", []string{"a", "b"}},
		{"emoji", "hi🙂there 👍🏽", []string{"hi", "there"}},
		{"fullwidth", "ＡＢＣ１２３", []string{"ＡＢＣ１２３"}},
		{"underscore", "snake_case", []string{"snake", "case"}},
		{"nbsp", "a\u00a0b", []string{"a", "b"}},
		{"supplementary letter", "𝐀𝐁 𠀀𠀁", []string{"𝐀𝐁", "𠀀", "𠀁"}},
		{"trailing joiner at end", "end-", []string{"end"}},
		{"digit joiner at end", "12.", []string{"12"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := texts(tc.text, Split([]byte(tc.text), nil))
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
				t.Errorf("Split(%q)\n got %q\nwant %q", tc.text, got, tc.want)
			}
			if ref := refSplit(tc.text); fmt.Sprintf("%q", ref) != fmt.Sprintf("%q", tc.want) {
				t.Errorf("reference split(%q)\n got %q\nwant %q", tc.text, ref, tc.want)
			}
			if n := Count([]byte(tc.text)); n != len(tc.want) {
				t.Errorf("Count(%q) = %d, want %d", tc.text, n, len(tc.want))
			}
			for k := 0; k <= len(tc.want)+1; k++ {
				if got := AtLeast([]byte(tc.text), k); got != (len(tc.want) >= k) {
					t.Errorf("AtLeast(%q, %d) = %v", tc.text, k, got)
				}
			}
		})
	}
}

func TestSplitAppends(t *testing.T) {
	dst := []Span{{1, 2}}
	dst = Split([]byte("a b"), dst)
	if len(dst) != 3 || dst[0] != (Span{1, 2}) || dst[1] != (Span{0, 1}) || dst[2] != (Span{2, 3}) {
		t.Fatalf("got %v", dst)
	}
}

func TestLines(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"\n", []string{""}},
		{"\n\n", []string{"", ""}},
		{"a\nb", []string{"a", "b"}},
		{"a\n\nb\n", []string{"a", "", "b"}},
		{"a\r\nb\r\n", []string{"a", "b"}},
		{"a\r\r\nb\r", []string{"a\r", "b"}},
		{" x \n\ty", []string{" x ", "\ty"}},
	}
	for _, tc := range cases {
		got := texts(tc.text, Lines([]byte(tc.text), nil))
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
			t.Errorf("Lines(%q) = %q, want %q", tc.text, got, tc.want)
		}
		if ref := refLines(tc.text); fmt.Sprintf("%q", ref) != fmt.Sprintf("%q", tc.want) {
			t.Errorf("reference lines(%q) = %q, want %q", tc.text, ref, tc.want)
		}
	}
}

func TestParagraphs(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"", nil},
		{"\n\n  \n", nil},
		{"a", []string{"a"}},
		{"a\nb", []string{"a\nb"}},
		{"a\n\nb", []string{"a", "b"}},
		{"a\n\n\n\nb\n", []string{"a", "b"}},
		{"\n\na\nb\n\n", []string{"a\nb"}},
		{"a\n \t\nb", []string{"a", "b"}},
		{"a\r\n\r\nb\r\nc\r\n", []string{"a", "b\r\nc"}},
		{"  indented\nmore\n\u3000\nnext", []string{"  indented\nmore", "next"}},
	}
	for _, tc := range cases {
		got := texts(tc.text, Paragraphs([]byte(tc.text), nil))
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) {
			t.Errorf("Paragraphs(%q) = %q, want %q", tc.text, got, tc.want)
		}
		if ref := refParagraphs(tc.text); fmt.Sprintf("%q", ref) != fmt.Sprintf("%q", tc.want) {
			t.Errorf("reference paragraphs(%q) = %q, want %q", tc.text, ref, tc.want)
		}
	}
}

func TestIsBlank(t *testing.T) {
	for s, want := range map[string]bool{"": true, " \t\r": true, "\u00a0\u3000": true, " a ": false, "\xff": false} {
		if got := IsBlank([]byte(s)); got != want {
			t.Errorf("IsBlank(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestZeroAllocs(t *testing.T) {
	text := []byte(strings.Repeat("Ünïcode words, CJK 漢字 and don't-stop 3.14 text.\n\n", 50))
	dst := make([]Span, 0, 1024)
	if n := testing.AllocsPerRun(100, func() {
		dst = Split(text, dst[:0])
		dst = Lines(text, dst[:0])
		dst = Paragraphs(text, dst[:0])
		_ = Count(text)
		_ = AtLeast(text, 10)
	}); n != 0 {
		t.Fatalf("%v allocations per run, want 0", n)
	}
}

// The reference implementation follows the package documentation rune by
// rune with the unicode package, without tables or fast paths.

type refRune struct {
	r          rune
	start, end int
	invalid    bool
}

func refRunes(s string) []refRune {
	var out []refRune
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		out = append(out, refRune{r, i, i + size, r == utf8.RuneError && size == 1})
		i += size
	}
	return out
}

func refCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) || r == 0x30FC || r == 0xFF70 || r == 0x3005 || r == 0x3007 || r == 0x303B
}

func refWordRune(x refRune) bool {
	return !x.invalid && !refCJK(x.r) && unicode.In(x.r, unicode.L, unicode.M, unicode.N)
}

func refMark(x refRune) bool { return !x.invalid && unicode.Is(unicode.M, x.r) }

func refJoiner(r rune) bool {
	return r == '\'' || r == '\u2019' || r == '-' || r == '\u2010' || r == '\u2011'
}

func refASCIIDigit(x refRune) bool { return x.r >= '0' && x.r <= '9' }

func refSplit(s string) []string {
	rs := refRunes(s)
	var out []string
	for i := 0; i < len(rs); {
		x := rs[i]
		switch {
		case !x.invalid && refCJK(x.r):
			j := i + 1
			for j < len(rs) && refMark(rs[j]) {
				j++
			}
			out = append(out, s[x.start:rs[j-1].end])
			i = j
		case refWordRune(x):
			j := i + 1
			for j < len(rs) {
				switch {
				case refWordRune(rs[j]):
					j++
					continue
				case refJoiner(rs[j].r) && j+1 < len(rs) && refWordRune(rs[j+1]):
					j += 2
					continue
				case (rs[j].r == '.' || rs[j].r == ',') && refASCIIDigit(rs[j-1]) && j+1 < len(rs) && refASCIIDigit(rs[j+1]):
					j += 2
					continue
				}
				break
			}
			out = append(out, s[x.start:rs[j-1].end])
			i = j
		default:
			i++
		}
	}
	return out
}

func refLines(s string) []string {
	if s == "" {
		return nil
	}
	s = strings.TrimSuffix(s, "\n")
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = strings.TrimSuffix(p, "\r")
	}
	return parts
}

func refParagraphs(s string) []string {
	var out, cur []string
	flush := func() {
		if cur != nil {
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
		}
	}
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for i, l := range lines {
		blank := strings.TrimSpace(l) == ""
		if s == "" {
			break
		}
		if blank {
			flush()
			continue
		}
		// Keep the '\r' of inner lines; only the last line of a paragraph loses it.
		if i+1 < len(lines) {
			l += "\n"
		}
		cur = append(cur, strings.TrimSuffix(l, "\n"))
	}
	flush()
	for i, p := range out {
		out[i] = strings.TrimSuffix(p, "\r")
	}
	return out
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"", "don't stop", "3.14, 1,000", "AI技术", "か\u3099", "a-\u0301b", "\xff\xfe-'", "x\u2019y", "a\n\n b\r\n\r\nc"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		spans := Split(b, nil)
		got := texts(s, spans)
		want := refSplit(s)
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("Split(%q)\n got %q\nwant %q", s, got, want)
		}
		if Count(b) != len(spans) {
			t.Fatalf("Count(%q) = %d, want %d", s, Count(b), len(spans))
		}
		if !AtLeast(b, len(spans)) || AtLeast(b, len(spans)+1) {
			t.Fatalf("AtLeast(%q) disagrees with %d words", s, len(spans))
		}
		for i := 1; i < len(spans); i++ {
			if spans[i].Start < spans[i-1].End {
				t.Fatalf("overlapping spans %v", spans)
			}
		}
		if got, want := texts(s, Lines(b, nil)), refLines(s); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("Lines(%q) = %q, want %q", s, got, want)
		}
		if got, want := texts(s, Paragraphs(b, nil)), refParagraphs(s); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("Paragraphs(%q) = %q, want %q", s, got, want)
		}
	})
}

const prose = `The old mill stood at the bend of the river, where the water slowed before the weir and spread into a wide, brown pool. For almost two hundred years the miller's family had ground wheat there, and the stones they used still lie in the yard. A sluice gate beside the wheel let the keeper raise or lower the level of the pool by a few inches at a time. In dry summers the gate stayed closed for weeks, and the village children waded across the shallows to the far bank.
When the autumn rains came, the keeper opened it at night so that the fields downstream would not flood. Nobody remembers exactly when the last sack of flour left the mill, but the ledger ends in the spring of 1931. The building was then used as a store for timber, and later as a workshop where two brothers repaired bicycles.

`

func BenchmarkSplit(b *testing.B) {
	for _, tc := range []struct {
		name string
		text string
	}{
		{"english", strings.Repeat(prose, 6)},
		{"latin", strings.Repeat("Größere Übungen für Anfänger und Fortgeschrittene, naïve café crème brûlée. ", 40)},
		{"cyrillic", strings.Repeat("Быстрая коричневая лиса перепрыгивает через ленивую собаку. ", 50)},
		{"cjk", strings.Repeat("日本語のテキストを単語に分ける。中文文本也一样。", 60)},
	} {
		text := []byte(tc.text)
		dst := make([]Span, 0, len(text))
		b.Run("Split/"+tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				dst = Split(text, dst[:0])
			}
		})
		b.Run("Lines/"+tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				dst = Lines(text, dst[:0])
			}
		})
		b.Run("Paragraphs/"+tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				dst = Paragraphs(text, dst[:0])
			}
		})
	}
}

// TestCountPieces checks Count, which takes eight ASCII bytes at a time,
// against Split on texts built from the pieces where the rules turn.
func TestCountPieces(t *testing.T) {
	pieces := []string{"a", "Z", "1", "9", "'", "-", ".", ",", " ", "\n", "é", "技", "’", "‐", "\u0301", "\xff", "ab", "12", "x-y", "3.4", "_"}
	seed := uint64(42)
	for trial := range 20000 {
		var b strings.Builder
		for range trial % 60 {
			seed = seed*6364136223846793005 + 1442695040888963407
			b.WriteString(pieces[(seed>>33)%uint64(len(pieces))])
		}
		s := b.String()
		if got, want := Count([]byte(s)), len(Split([]byte(s), nil)); got != want {
			t.Fatalf("Count(%q) = %d, want %d", s, got, want)
		}
	}
}

func BenchmarkCount(b *testing.B) {
	text := []byte(strings.Repeat(prose, 6))
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		Count(text)
	}
}

// BenchmarkCorpus splits the generated test corpus, a text at a time.
func BenchmarkCorpus(b *testing.B) {
	var texts [][]byte
	size := 0
	for _, t := range testcorpus.Texts() {
		texts = append(texts, []byte(t))
		size += len(t)
	}
	dst := make([]Span, 0, 1<<16)
	b.Run("Split", func(b *testing.B) {
		b.SetBytes(int64(size))
		defer cputime.Start(b, int64(size))()
		for b.Loop() {
			for _, t := range texts {
				dst = Split(t, dst[:0])
			}
		}
	})
	b.Run("Count", func(b *testing.B) {
		b.SetBytes(int64(size))
		defer cputime.Start(b, int64(size))()
		for b.Loop() {
			for _, t := range texts {
				Count(t)
			}
		}
	})
	b.Run("Lines", func(b *testing.B) {
		b.SetBytes(int64(size))
		defer cputime.Start(b, int64(size))()
		for b.Loop() {
			for _, t := range texts {
				dst = Lines(t, dst[:0])
			}
		}
	})
}

// TestSplitStretches checks Split and Count against the reference on long
// texts where ASCII stretches of every length, split 64 bytes at a time,
// meet non-ASCII runes, joiners and separators at every offset.
func TestSplitStretches(t *testing.T) {
	pieces := []string{"a", "Z", "1", "9", "'", "-", ".", ",", " ", " ", "\n", "é", "技", "’", "‐", "\u0301", "\xff",
		"word", "12", "x-y", "3.4", "_", "(", strings.Repeat("abc ", 20), strings.Repeat("q", 70), "don't", "1,000.5"}
	seed := uint64(7)
	for trial := range 3000 {
		var b strings.Builder
		for range trial % 400 {
			seed = seed*6364136223846793005 + 1442695040888963407
			b.WriteString(pieces[(seed>>33)%uint64(len(pieces))])
		}
		s := b.String()
		got := texts(s, Split([]byte(s), nil))
		if want := refSplit(s); fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) {
			t.Fatalf("Split(%q)\n got %q\nwant %q", s, got, want)
		}
		if n := Count([]byte(s)); n != len(got) {
			t.Fatalf("Count(%q) = %d, want %d", s, n, len(got))
		}
	}
}
