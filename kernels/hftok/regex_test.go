package hftok

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// o200kPattern is tiktoken's o200k_base split (GPT-4o), which has no
// hand-written matcher and runs on the compiled regex.
const o200kPattern = `[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`

// deepSeekPre is DeepSeek V3's pre_tokenizer: three Splits, the second with
// literal CJK ranges, the third with other classes than cl100k's.
var deepSeekPre = map[string]any{"type": "Sequence", "pretokenizers": []any{
	map[string]any{"type": "Split", "pattern": map[string]any{"Regex": `\p{N}{1,3}`}, "behavior": "Isolated", "invert": false},
	map[string]any{"type": "Split", "pattern": map[string]any{"Regex": "[\u4e00-\u9fa5\u3040-\u309f\u30a0-\u30ff]+"}, "behavior": "Isolated", "invert": false},
	map[string]any{"type": "Split", "pattern": map[string]any{"Regex": "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"}, "behavior": "Isolated", "invert": false},
	map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false},
}}

// pieces returns the pre-tokens of text.
func pieces(c *Counter, text string) []string {
	var got []string
	c.pieces = &got
	c.Count([]byte(text))
	c.pieces = nil
	return got
}

// withoutFast returns a copy of tok that splits with the compiled regexes
// only.
func withoutFast(tok *Tokenizer) *Tokenizer {
	cp := *tok
	cp.steps = slices.Clone(tok.steps)
	for i := range cp.steps {
		if re := cp.steps[i].re; re != nil {
			slow := *re
			slow.fast = nil
			cp.steps[i].re = &slow
		}
	}
	return &cp
}

// TestPieces checks pre-tokenization; the expected pieces are what the
// tokenizers library's pre-tokenizers give.
func TestPieces(t *testing.T) {
	cases := []struct {
		name string
		pre  any
		text string
		want []string
	}{
		{"gpt2", gpt2Pre, "Hello   world", []string{"Hello", "  ", " world"}},
		{"gpt2", gpt2Pre, "it's 'S", []string{"it", "'s", " '", "S"}},
		{"gpt2", gpt2Pre, "a\u00a0\u00a0b", []string{"a", "\u00a0", "\u00a0", "b"}}, // no-break space is \s
		{"gpt2", gpt2Pre, " 123abc", []string{" 123", "abc"}},
		{"gpt2", gpt2Pre, "x\n\n y", []string{"x", "\n\n", " y"}},
		{"gpt2", gpt2Pre, "end  ", []string{"end", "  "}},
		{"gpt2", gpt2Pre, "x\t\ty", []string{"x", "\t", "\t", "y"}},
		{"cl100k", splitPre(cl100kPattern), "I'M here", []string{"I", "'M", " here"}},
		{"cl100k", splitPre(cl100kPattern), "'\u017fx", []string{"'\u017f", "x"}}, // (?i) folds long s to s
		{"cl100k", splitPre(cl100kPattern), "12345 6", []string{"123", "45", " ", "6"}},
		{"cl100k", splitPre(cl100kPattern), "(hello) !!x", []string{"(hello", ")", " !!", "x"}},
		{"cl100k", splitPre(cl100kPattern), "a\n\n  b", []string{"a", "\n\n", " ", " b"}},
		{"cl100k", splitPre(cl100kPattern), "x\t\ty", []string{"x", "\t", "\ty"}},
		{"cl100k", splitPre(cl100kPattern), "foo!\n\nbar", []string{"foo", "!\n\n", "bar"}},
		{"cl100k", splitPre(cl100kPattern), "  \n  x", []string{"  \n", " ", " x"}},
		{"cl100k", splitPre(cl100kPattern), "don't!", []string{"don", "'t", "!"}},
		{"cl100k", splitPre(cl100kPattern), "a\u3000b", []string{"a", "\u3000b"}},
		{"cl100k", splitPre(cl100kPattern), "\xffab\xfe", []string{"\xffab", "\xfe"}}, // invalid bytes are symbols
		{"qwen2", splitPre(qwen2Pattern), "abc123", []string{"abc", "1", "2", "3"}},
		{"o200k", splitPre(o200kPattern), "HelloWorld's camelCase", []string{"Hello", "World's", " camel", "Case"}},
		{"o200k", splitPre(o200kPattern), "x  //y", []string{"x", " ", " //", "y"}},
		{"deepseek", deepSeekPre, "abc12345日本語です", []string{"abc", "123", "45", "日本語です"}},
		{"deepseek", deepSeekPre, "!foo bar", []string{"!foo", " bar"}},
	}
	for _, tc := range cases {
		tok := config{preTokenizer: tc.pre}.tokenizer(t)
		for _, tk := range []*Tokenizer{tok, withoutFast(tok)} {
			if got := pieces(tk.NewCounter(), tc.text); !slices.Equal(got, tc.want) {
				t.Errorf("%s %q: got %q, want %q", tc.name, tc.text, got, tc.want)
			}
		}
	}
}

func TestSplitBehaviors(t *testing.T) {
	// "-" splitting "the-final--countdown", the tokenizers library's own
	// example.
	want := map[string][]string{
		"Removed":            {"the", "final", "countdown"},
		"Isolated":           {"the", "-", "final", "-", "-", "countdown"},
		"MergedWithPrevious": {"the-", "final-", "-", "countdown"},
		"MergedWithNext":     {"the", "-final", "-", "-countdown"},
		"Contiguous":         {"the", "-", "final", "--", "countdown"},
	}
	for b, w := range want {
		for _, pattern := range []map[string]any{{"String": "-"}, {"Regex": "-"}} {
			pre := map[string]any{"type": "Sequence", "pretokenizers": []any{
				map[string]any{"type": "Split", "pattern": pattern, "behavior": b, "invert": false},
				map[string]any{"type": "ByteLevel", "add_prefix_space": false, "use_regex": false},
			}}
			got := pieces(config{preTokenizer: pre}.tokenizer(t).NewCounter(), "the-final--countdown")
			if !slices.Equal(got, w) {
				t.Errorf("%s %v: got %q, want %q", b, pattern, got, w)
			}
		}
	}
}

// randomText draws a text from pieces that exercise the split patterns.
func randomText(r *rand.Rand) []byte {
	palette := []string{
		" ", " ", "  ", "\n", "\r\n", "\t", "\v", "\u00a0", "\u2028", "\u3000", "\u0085", "\u200b",
		"a", "Z", "the", "ing", "\u017f", "é", "e\u0301", "ж", "日本", "한", "\u0301",
		"0", "42", "12345", "٣", "²", "Ⅻ",
		"'", "'s", "'S", "'ll", "'Re", "'ve", "'t", "'M", "'d", "’",
		".", "!", "?", "(", ")", "/", "-", "_", "\"", "😀", "\xff", "\xe2\x82", "\ufffd",
	}
	var b []byte
	for range r.IntN(30) {
		b = append(b, palette[r.IntN(len(palette))]...)
	}
	return b
}

// TestFastMatchersAgree checks the hand-written matchers against the
// regexes they stand for.
func TestFastMatchersAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var texts [][]byte
	for range 20000 {
		texts = append(texts, randomText(r))
	}
	for src := range fastMatchers {
		p, err := compilePattern(src)
		if err != nil {
			t.Fatal(err)
		}
		if p.fast == nil {
			t.Fatalf("%s has no fast matcher", src)
		}
		for _, text := range texts {
			if !fastAgrees(p, text) {
				t.Errorf("%s %q: fast %v, regex %v", src, text,
					p.find(nil, text, new(bytes.Reader)), p.findRegex(nil, text, new(bytes.Reader)))
			}
		}
	}
}

func fastAgrees(p *pattern, text []byte) bool {
	return slices.Equal(p.find(nil, text, new(bytes.Reader)), p.findRegex(nil, text, new(bytes.Reader)))
}

func FuzzFastMatchers(f *testing.F) {
	for _, s := range []string{"Hello   world", "it's 'S", "a\n\n  b", "12345 6", "'\u017fx", "x\t\ty", "\xff\xfe "} {
		f.Add(s)
	}
	var ps []*pattern
	for src := range fastMatchers {
		p, err := compilePattern(src)
		if err != nil {
			f.Fatal(err)
		}
		ps = append(ps, p)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range ps {
			if !fastAgrees(p, []byte(s)) {
				t.Errorf("%s %q: fast and regex pieces differ", p.src, s)
			}
		}
	})
}

func TestTranslate(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`\s+`, `[\t-\r\x{85}\p{Z}]+`},
		{`[^\s\p{L}]`, `[^\t-\r\x{85}\p{Z}\p{L}]`},
		{`\S\d\w`, `[^\t-\r\x{85}\p{Z}]\p{Nd}[\p{L}\p{M}\p{Nd}\p{Pc}]`},
		{`[]a]|[^]b]`, `[]a]|[^]b]`},
		{`(?i:'s)[[:alpha:]]`, `(?i:'s)[[:alpha:]]`},
		{`\[\]`, `\[\]`},
	} {
		got, err := translate(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("translate(%s) = %s, %v; want %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`(?<=a)b`, `(?<!a)b`, `(?>ab)`, `a(?=b)`, `^a`, `a$`, `\bword\b`, `[a[b]]`, `[\S]`, `a++`} {
		_, err := compilePattern(bad)
		if err == nil || !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), bad) {
			t.Errorf("compilePattern(%s) = %v, want an unsupported error quoting it", bad, err)
		}
	}
}
