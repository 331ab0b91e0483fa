package quality

import (
	"testing"
	"unicode/utf8"

	"github.com/sluice-data/sluice/internal/testcorpus"
	"github.com/sluice-data/sluice/kernels/words"
)

func TestRuneCount(t *testing.T) {
	for _, s := range []string{"", "a", "abcdefgh", "abcdefghé", "éabcdefghijklmnop", "日本語のテキスト and more ascii text", "bad \xff\xfe\xe2\x80 utf-8 bytes here", "\x80\x80\x80\x80\x80\x80\x80\x80\x80"} {
		if got, want := runeCount([]byte(s)), utf8.RuneCountInString(s); got != want {
			t.Errorf("runeCount(%q) = %d, want %d", s, got, want)
		}
		if got, want := chars([]byte(s), isASCII([]byte(s))), utf8.RuneCountInString(s); got != want {
			t.Errorf("chars(%q) = %d, want %d", s, got, want)
		}
	}
	long := []byte("é" + string(make([]byte, 100)))
	if n := testing.AllocsPerRun(10, func() { runeCount(long) }); n != 0 {
		t.Errorf("runeCount allocates %v times", n)
	}
}

func TestLowerASCII(t *testing.T) {
	in := "Hello WORLD @[`{ ÀÉ ÄÖÜ 123 AZaz JavaScript Lorem IPSUM"
	want := "hello world @[`{ ÀÉ ÄÖÜ 123 azaz javascript lorem ipsum"
	if got := string(lowerASCII([]byte("x"), []byte(in))); got != "x"+want {
		t.Errorf("lowerASCII = %q, want %q", got, "x"+want)
	}
	for c := range 256 {
		b := []byte{byte(c), byte(c), byte(c), byte(c), byte(c), byte(c), byte(c), byte(c), byte(c)}
		got := lowerASCII(nil, b)
		w := byte(c)
		if w >= 'A' && w <= 'Z' {
			w += 32
		}
		for _, g := range got {
			if g != w {
				t.Fatalf("lowerASCII(%#x) = %#x, want %#x", c, g, w)
			}
		}
	}
}

func TestPhrase(t *testing.T) {
	cases := []struct {
		phrase, text string
		want         bool
	}{
		{"javascript", "Please enable JavaScript.", true},
		{"javascript", "JAVASCRIPT", true},
		{"javascript", "java script", false},
		{"javascript", "javascrip", false},
		{"lorem ipsum", "xLoReM IpSuMx", true},
		{"terms of use", "our terms of us", false},
		{"terms of use", "terms of use", true},
		{"use cookies", "we use Cookies here", true},
		{"café crème", "CAFé crème brûlée", true},
		{"a", "", false},
		{"", "anything", true},
		{"k", "K", true},
		{"{", "x{", true},
	}
	for _, tc := range cases {
		p := newPhrase(tc.phrase)
		if got := p.in([]byte(tc.text)); got != tc.want {
			t.Errorf("%q in %q = %v, want %v (anchor %q at %d)", tc.phrase, tc.text, got, tc.want, p.lo, p.off)
		}
	}
	if p := newPhrase("uses cookies"); p.lo != 'k' {
		t.Errorf("anchor of %q is %q, want 'k'", "uses cookies", p.lo)
	}
}

func TestASCIICursor(t *testing.T) {
	text := []byte("plain words, café and naïve ones; more plain text here — and «quotes» end")
	for _, step := range []int{1, 3, 7} {
		c := newASCIICursor(text)
		for start := 0; start < len(text); start += step {
			end := min(start+step, len(text))
			if got, want := c.plain(start, end), isASCII(text[start:end]); got != want {
				t.Fatalf("step %d: plain(%d, %d) = %v, want %v", step, start, end, got, want)
			}
		}
		c = newASCIICursor(text)
		for start := 0; start < len(text); start += 2 * step {
			end := min(start+step, len(text))
			if got, want := c.chars(start, end), utf8.RuneCount(text[start:end]); got != want {
				t.Fatalf("step %d: chars(%d, %d) = %d, want %d", step, start, end, got, want)
			}
		}
	}
	for i := range 20 {
		b := make([]byte, 20)
		for j := range b {
			b[j] = 'a'
		}
		if i < len(b) {
			b[i] = 0xC3
		}
		if got := words.FirstNonASCII(b, 0); got != i {
			t.Errorf("firstHigh with a high byte at %d = %d", i, got)
		}
	}
}

func TestPhraseSet(t *testing.T) {
	texts := []string{"", "nothing here", "We USE Cookies. Lorem Ipsum!", "terms of us", "javascript:k", "a cookie policy", "lorem ipsu",
		"LOREM IPSUM", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxjavascript", "JavaScriptxxxxxxxx", "price $5 or 7% off: USE COOKIES now",
		"ünïcode téxt with javascript in it and cookie policy é", "kkkkkkkkkkkkkkkk", "pay 100%"}
	for _, c := range testcorpus.Texts()[:40] {
		texts = append(texts, c, c+" lorem ipsum")
	}
	for _, words := range [][]string{
		{"lorem ipsum", "javascript", "terms of use", "use cookies", "uses cookies", "cookie policy", "k"},
		{"lorem ipsum", "javascript", "100%", "cookie policy", "$5"},
	} {
		var ps []*phrase
		for _, w := range words {
			p := newPhrase(w)
			ps = append(ps, &p)
		}
		set := newPhraseSet(ps)
		found := make([]bool, len(ps))
		for _, text := range texts {
			set.find(lowerASCII(nil, []byte(text)), found)
			for id, p := range ps {
				if found[id] != p.in([]byte(text)) {
					t.Errorf("%q in %.60q: set says %v", words[id], text, found[id])
				}
			}
		}
	}
}

// TestWordHashLong checks that wordHashLong hashes every span of a text as
// wordHash does.
func TestWordHashLong(t *testing.T) {
	text := []byte("a bb ccc dddd eeeee ffffff ggggggg hhhhhhhh iiiiiiiii jjjjjjjjjjjjjjjj kkkkkkkkkkkkkkkkk end")
	for start := 0; start < len(text); start++ {
		for end := start + 1; end <= len(text); end++ {
			if got, want := wordHashLong(text, start, end), wordHash(text, start, end); got != want {
				t.Fatalf("wordHashLong(%q) = %x, want %x", text[start:end], got, want)
			}
		}
	}
}
