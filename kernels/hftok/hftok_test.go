package hftok

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// The test tokenizer is a byte-level BPE whose 256 byte tokens have the
// byte's value as id, and whose merged tokens get 256, 257, ... in merge
// order, so expected ids can be worked out by hand. Merges are written here
// in plain text; tokenizer.json spells them in byte-level characters
// (" t" is "Ġt").
var testMerges = [][2]string{
	{" ", "t"},     // 0 -> 256 " t"
	{"h", "e"},     // 1 -> 257 "he"
	{"i", "n"},     // 2 -> 258 "in"
	{" t", "he"},   // 3 -> 259 " the"
	{"t", "h"},     // 4 -> 260 "th"
	{"in", "g"},    // 5 -> 261 "ing"
	{"th", "ing"},  // 6 -> 262 "thing"
	{" t", "h"},    // 7 -> 263 " th"
	{" th", "ing"}, // 8 -> 264 " thing"
	{" ", " "},     // 9 -> 265 "  "
	{"  ", "  "},   // 10 -> 266 "    "
	{"1", "2"},     // 11 -> 267 "12"
	{"12", "3"},    // 12 -> 268 "123"
	{"'", "s"},     // 13 -> 269 "'s"
	{" ", "a"},     // 14 -> 270 " a"
	{"\n", "\n"},   // 15 -> 271 "\n\n"
}

// bl spells s in byte-level characters.
func bl(s string) string { return string(appendByteLevel(nil, []byte(s))) }

// config describes a test tokenizer.json.
type config struct {
	pairMerges   bool           // merges as ["a", "b"] rather than "a b"
	ignoreMerges bool           // model.ignore_merges
	extraVocab   map[string]int // more tokens, plain text -> id
	dropBytes    []byte         // byte tokens left out of the vocab
	model        map[string]any // more model fields
	normalizer   any
	preTokenizer any
	added        []map[string]any
}

// gpt2Pre is GPT-2's pre_tokenizer.
var gpt2Pre = map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}

// splitPre is Llama 3's: a Split with the cl100k pattern, then ByteLevel
// without its own regex.
func splitPre(pattern string) map[string]any {
	return map[string]any{"type": "Sequence", "pretokenizers": []any{
		map[string]any{"type": "Split", "pattern": map[string]any{"Regex": pattern}, "behavior": "Isolated", "invert": false},
		map[string]any{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": false},
	}}
}

func (c config) json(t testing.TB) []byte {
	t.Helper()
	vocab := map[string]int{}
	for b := range 256 {
		if !slices.Contains(c.dropBytes, byte(b)) {
			vocab[bl(string([]byte{byte(b)}))] = b
		}
	}
	var merges []any
	for i, m := range testMerges {
		vocab[bl(m[0]+m[1])] = 256 + i
		if c.pairMerges {
			merges = append(merges, []string{bl(m[0]), bl(m[1])})
		} else {
			merges = append(merges, bl(m[0])+" "+bl(m[1]))
		}
	}
	for tok, id := range c.extraVocab {
		vocab[bl(tok)] = id
	}
	model := map[string]any{
		"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": nil,
		"end_of_word_suffix": nil, "fuse_unk": false, "byte_fallback": false,
		"ignore_merges": c.ignoreMerges, "vocab": vocab, "merges": merges,
	}
	for k, v := range c.model {
		model[k] = v
	}
	pre := c.preTokenizer
	if pre == nil {
		pre = gpt2Pre
	}
	added := c.added
	if added == nil {
		added = []map[string]any{}
	}
	doc := map[string]any{
		"version": "1.0", "truncation": nil, "padding": nil, "added_tokens": added,
		"normalizer": c.normalizer, "pre_tokenizer": pre,
		"post_processor": map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true},
		"decoder":        map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
		"model":          model,
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func (c config) tokenizer(t testing.TB) *Tokenizer {
	t.Helper()
	tok, err := Parse(c.json(t))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func added(id int, content string, special bool, opts ...string) map[string]any {
	a := map[string]any{"id": id, "content": content, "single_word": false, "lstrip": false,
		"rstrip": false, "normalized": false, "special": special}
	for _, o := range opts {
		a[o] = true
	}
	return a
}

type idCase struct {
	text string
	want []int
	why  string
}

func checkIDs(t *testing.T, tok *Tokenizer, cases []idCase) {
	t.Helper()
	c := tok.NewCounter()
	for _, tc := range cases {
		got := c.AppendTokens(nil, []byte(tc.text))
		if !slices.Equal(got, tc.want) {
			t.Errorf("%q (%s): got %v, want %v", tc.text, tc.why, got, tc.want)
		}
		if n := c.Count([]byte(tc.text)); n != len(tc.want) {
			t.Errorf("Count(%q) = %d, want %d", tc.text, n, len(tc.want))
		}
	}
}

// gpt2Cases hold for GPT-2's pre-tokenizer, with merges in either format.
var gpt2Cases = []idCase{
	{"", nil, "nothing"},
	{"the thing", []int{116, 257, 264},
		`"the": t h e; "h e" (rank 1) beats "t h" (rank 4), and "t he" is no merge, so t|he; ` +
			`" thing": " t", "in", "ing", " th", " thing" in rank order`},
	{" the", []int{259}, `" t" (0), "he" (1), " the" (3)`},
	{"thing", []int{262}, `"in" (2), then "t h" (4) before "in g" (5), "ing", "thing" (6)`},
	{"a   b", []int{97, 265, 32, 98}, `three spaces before a letter: "  " is a piece (merged, 265) and the last space joins " b"`},
	{"a    b", []int{97, 265, 32, 32, 98}, `"   " merges leftmost first: "  "+" ", no merge of "  " and " "`},
	{"x     ", []int{120, 266, 32}, `trailing spaces keep all five; "  "|"  "|" " then "    " (10)`},
	{"it's", []int{105, 116, 269}, `"it" and the contraction "'s"`},
	{"IT'S", []int{73, 84, 39, 83}, `GPT-2's contractions are case-sensitive: "'" and "S" are pieces`},
	{"123", []int{268}, `" ?\p{N}+": "12" (11) then "123" (12)`},
	{"the\n\nthing", []int{116, 257, 10, 10, 262}, `"\n\n" before a letter gives its last "\n" back, which is then a piece of its own`},
	{"é", []int{195, 169}, "two bytes, no merge"},
	{"\xff", []int{255}, "an invalid byte is its own token"},
}

func TestGPT2Style(t *testing.T) {
	for _, pairs := range []bool{false, true} {
		name := "string merges"
		if pairs {
			name = "pair merges"
		}
		t.Run(name, func(t *testing.T) {
			checkIDs(t, config{pairMerges: pairs}.tokenizer(t), gpt2Cases)
		})
	}
}

func TestMergeFormatsAgree(t *testing.T) {
	a := config{}.tokenizer(t).NewCounter()
	b := config{pairMerges: true}.tokenizer(t).NewCounter()
	for _, text := range []string{"the thing the thing", "  in   ing\n\n\n123 'sa' ", strings.Repeat("thing ", 50)} {
		x, y := a.AppendTokens(nil, []byte(text)), b.AppendTokens(nil, []byte(text))
		if !slices.Equal(x, y) {
			t.Errorf("%q: string merges give %v, pair merges %v", text, x, y)
		}
	}
}

func TestSplitByteLevel(t *testing.T) {
	checkIDs(t, config{preTokenizer: splitPre(cl100kPattern)}.tokenizer(t), []idCase{
		{"the thing", []int{116, 257, 264}, "as with GPT-2"},
		{"the\n\nthing", []int{116, 257, 271, 262}, `"\s*[\r\n]+" keeps "\n\n" whole (15)`},
		{"IT'S", []int{73, 84, 39, 83}, `"(?i:'s)" makes "'S" a piece; no merge for "' S"`},
		{"'sthe", []int{269, 116, 257}, `the contraction ends the piece: "'s" then "the"`},
		{"12345", []int{268, 52, 53}, `"\p{N}{1,3}": "123" then "45", which has no merge`},
		{" 12", []int{32, 267}, `a space before digits is a piece of its own`},
		{"a  the", []int{97, 32, 259}, `"  " before a letter gives one space to " the"`},
	})
	// Qwen's variant splits every digit.
	checkIDs(t, config{preTokenizer: splitPre(qwen2Pattern)}.tokenizer(t), []idCase{
		{"123", []int{49, 50, 51}, `"\p{N}": one digit a piece`},
	})
	// The same pattern written as "Removed, invert" keeps the matches.
	inverted := splitPre(cl100kPattern)
	inverted["pretokenizers"].([]any)[0].(map[string]any)["behavior"] = "Removed"
	inverted["pretokenizers"].([]any)[0].(map[string]any)["invert"] = true
	checkIDs(t, config{preTokenizer: inverted}.tokenizer(t), []idCase{
		{"the\n\nthing", []int{116, 257, 271, 262}, "same pieces as Isolated"},
	})
}

func TestDigits(t *testing.T) {
	pre := func(individual bool) any {
		return map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Digits", "individual_digits": individual},
			gpt2Pre,
		}}
	}
	checkIDs(t, config{preTokenizer: pre(true)}.tokenizer(t), []idCase{
		{"a123", []int{97, 49, 50, 51}, "every digit is a piece"},
	})
	checkIDs(t, config{preTokenizer: pre(false)}.tokenizer(t), []idCase{
		{"a123", []int{97, 268}, `the digits stay together: "123"`},
	})
}

func TestPrefixSpace(t *testing.T) {
	pre := map[string]any{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}
	tok := config{preTokenizer: pre, added: []map[string]any{added(400, "<x>", false)}}.tokenizer(t)
	checkIDs(t, tok, []idCase{
		{"the", []int{259}, `a space is added: " the"`},
		{" the", []int{259}, "no second space"},
		{"the<x>the", []int{259, 400, 259}, "the text on each side of an added token gets its own space"},
		{"", nil, "an empty text stays empty"},
	})
}

func TestIgnoreMerges(t *testing.T) {
	// "the" is in the vocab (300) but no merge makes it: merges give t|he.
	extra := map[string]int{"the": 300}
	checkIDs(t, config{extraVocab: extra}.tokenizer(t), []idCase{
		{"the thing", []int{116, 257, 264}, "merges only"},
	})
	checkIDs(t, config{extraVocab: extra, ignoreMerges: true}.tokenizer(t), []idCase{
		{"the thing", []int{300, 264}, `"the" is a token, so it is one; " thing" is one either way`},
		{"thethe", []int{116, 257, 116, 257}, "only a whole piece is looked up"},
	})
}

func TestAddedTokens(t *testing.T) {
	tok := config{added: []map[string]any{
		added(400, "<x>", false),
		added(401, "<|s|>", true),
		added(402, "<m>", false, "lstrip", "rstrip"),
		added(403, "<w>", false, "single_word"),
		added(404, "th", false, "normalized"),
	}}.tokenizer(t)
	checkIDs(t, tok, []idCase{
		{"a<x>b", []int{97, 400, 98}, "an added token that is not special is matched"},
		{"a<|s|>b", []int{97, 60, 124, 115, 124, 62, 98}, `a special token is text: "a", "<|", "s", "|>", "b"`},
		{"a <m>  b", []int{97, 402, 98}, "lstrip and rstrip take the spaces around"},
		{"x<w> <w>", []int{120, 60, 119, 62, 32, 403}, "single_word: the first <w> follows a letter"},
		{"the", []int{404, 101}, `"th" (normalized) is found after normalization, then "e"`},
	})
}

func TestNormalizer(t *testing.T) {
	text := "cafe\u0301"
	checkIDs(t, config{}.tokenizer(t), []idCase{
		{text, []int{99, 97, 102, 101, 204, 129}, "no normalizer: e and the combining accent's two bytes"},
	})
	for _, n := range []any{
		map[string]any{"type": "NFC"},
		map[string]any{"type": "Sequence", "normalizers": []any{map[string]any{"type": "NFC"}}},
	} {
		checkIDs(t, config{normalizer: n}.tokenizer(t), []idCase{
			{text, []int{99, 97, 102, 195, 169}, "NFC: é is two bytes"},
		})
	}
	// The second NFC has nothing to do; NFD then decomposes again.
	seq := map[string]any{"type": "Sequence", "normalizers": []any{
		map[string]any{"type": "NFC"}, map[string]any{"type": "NFC"}, map[string]any{"type": "NFD"}}}
	checkIDs(t, config{normalizer: seq}.tokenizer(t), []idCase{
		{text + " " + text, []int{99, 97, 102, 101, 204, 129, 32, 99, 97, 102, 101, 204, 129}, "NFC, NFC, NFD: decomposed"},
	})
}

func TestUnknownBytes(t *testing.T) {
	// Without a token for "x", and no unk_token, the byte is dropped, as the
	// tokenizers library does.
	checkIDs(t, config{dropBytes: []byte("x")}.tokenizer(t), []idCase{
		{"axb", []int{97, 98}, "x dropped"},
	})
	unk := config{dropBytes: []byte("x"), extraVocab: map[string]int{"<unk>": 500}, model: map[string]any{"unk_token": bl("<unk>")}}
	checkIDs(t, unk.tokenizer(t), []idCase{
		{"axxb", []int{97, 500, 500, 98}, "one <unk> per unknown byte"},
	})
	unk.model["fuse_unk"] = true
	checkIDs(t, unk.tokenizer(t), []idCase{
		{"axxb", []int{97, 500, 98}, "fuse_unk joins them"},
	})
	// With byte_fallback a missing byte token is spelled with <0xXX> tokens
	// of its byte-level character: byte A0 is "ł", U+0142, bytes C5 82.
	fb := config{dropBytes: []byte{0xA0}, extraVocab: map[string]int{"<0xC5>": 600, "<0x82>": 601},
		model: map[string]any{"byte_fallback": true}}
	checkIDs(t, fb.tokenizer(t), []idCase{
		{"a\u00a0b", []int{97, 194, 600, 601, 98}, "a no-break space (C2 A0) is a piece; its A0 falls back to two byte tokens"},
	})
}

func TestErrors(t *testing.T) {
	good := func() map[string]any {
		var m map[string]any
		if err := json.Unmarshal(config{}.json(t), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	with := func(path string, v any) []byte {
		m := good()
		parts := strings.Split(path, ".")
		obj := m
		for _, p := range parts[:len(parts)-1] {
			obj = obj[p].(map[string]any)
		}
		obj[parts[len(parts)-1]] = v
		data, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	cases := []struct {
		name        string
		data        []byte
		unsupported bool
		mention     string
	}{
		{"bad JSON", []byte(`{"model": {"type": "BPE", `), false, "invalid tokenizer.json"},
		{"not an object", []byte(`[1, 2]`), false, "invalid tokenizer.json"},
		{"no model", []byte(`{"added_tokens": []}`), false, "no model"},
		{"WordPiece", with("model", map[string]any{"type": "WordPiece", "vocab": map[string]int{"a": 0}}), true, `"WordPiece"`},
		{"Unigram", with("model", map[string]any{"type": "Unigram", "vocab": [][]any{{"a", -1.0}}}), true, `"Unigram"`},
		{"merge out of vocab", with("model.merges", []string{"q z", "x y"}), false, `"qz"`},
		{"bad merge", with("model.merges", []string{"abc"}), false, `"abc"`},
		{"word suffix", with("model.end_of_word_suffix", "</w>"), true, "end_of_word_suffix"},
		{"unknown unk", with("model.unk_token", "<unk>"), false, "<unk>"},
		{"normalizer", with("normalizer", map[string]any{"type": "Lowercase"}), true, `"Lowercase"`},
		{"no pre_tokenizer", with("pre_tokenizer", nil), true, "ByteLevel"},
		{"Metaspace", with("pre_tokenizer", map[string]any{"type": "Metaspace", "replacement": "▁"}), true, `"Metaspace"`},
		{"no ByteLevel", with("pre_tokenizer", map[string]any{"type": "Digits", "individual_digits": true}), true, "without ByteLevel"},
		{"lookahead", with("pre_tokenizer", splitPre(`\w+(?=x)|\s+`)), true, `\w+(?=x)|\s+`},
		{"lone whitespace lookahead", with("pre_tokenizer", splitPre(`\w+|\s+(?!\S)`)), true, `\s+(?!\S)`},
		{"bad behavior", with("pre_tokenizer", map[string]any{"type": "Sequence", "pretokenizers": []any{
			map[string]any{"type": "Split", "pattern": map[string]any{"String": " "}, "behavior": "Sideways"}, gpt2Pre}}), true, `"Sideways"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.data)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), "hftok: ") {
				t.Errorf("error %q lacks the package prefix", err)
			}
			if !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error %q does not mention %q", err, tc.mention)
			}
			if got := errors.Is(err, ErrUnsupported); got != tc.unsupported {
				t.Errorf("errors.Is(%q, ErrUnsupported) = %v, want %v", err, got, tc.unsupported)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tokenizer.json")
	if err := os.WriteFile(path, config{}.json(t), 0o644); err != nil {
		t.Fatal(err)
	}
	tok, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := tok.NewCounter().Count([]byte("the thing")); n != 3 {
		t.Errorf("Count = %d, want 3", n)
	}
	if n := tok.VocabSize(); n != 256+len(testMerges) {
		t.Errorf("VocabSize = %d, want %d", n, 256+len(testMerges))
	}

	missing := filepath.Join(dir, "missing", "tokenizer.json")
	_, err = Load(missing)
	if err == nil || !strings.Contains(err.Error(), missing) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want a not-exist error naming %s", err, missing)
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("Load(bad) = %v, want an error naming %s", err, bad)
	}
}

// TestCache checks that ids served from the cache equal fresh ones, also
// across the cache being emptied.
func TestCache(t *testing.T) {
	tok := config{}.tokenizer(t)
	text := []byte(strings.Repeat("the thing  in  ing 123 it's ", 20))
	want := tok.NewCounter().AppendTokens(nil, text)
	c := tok.NewCounter()
	for range 3 {
		if got := c.AppendTokens(nil, text); !slices.Equal(got, want) {
			t.Fatalf("cached ids differ:\n got %v\nwant %v", got, want)
		}
	}
	// Fill the cache past its bound with distinct pieces.
	var b strings.Builder
	for i := range maxCacheEntries + 10 {
		b.WriteString(" t")
		for j := i; j > 0; j /= 26 {
			b.WriteByte(byte('a' + j%26))
		}
	}
	c.Count([]byte(b.String()))
	if len(c.cache) > maxCacheEntries {
		t.Errorf("cache holds %d pieces, bound %d", len(c.cache), maxCacheEntries)
	}
	if got := c.AppendTokens(nil, text); !slices.Equal(got, want) {
		t.Fatalf("ids after the cache was emptied differ")
	}
}

// TestAppendTokens checks that ids are appended after what dst holds.
func TestAppendTokens(t *testing.T) {
	c := config{}.tokenizer(t).NewCounter()
	got := c.AppendTokens([]int{-1}, []byte("the thing"))
	if want := []int{-1, 116, 257, 264}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestLongPiece runs the merge queue over a piece far past the cached
// length: 5000 spaces merge pairwise, then the pairs pairwise.
func TestLongPiece(t *testing.T) {
	c := config{}.tokenizer(t).NewCounter()
	got := c.AppendTokens(nil, []byte(strings.Repeat(" ", 5000)))
	if len(got) != 1250 || slices.ContainsFunc(got, func(id int) bool { return id != 266 }) {
		t.Errorf("got %d ids (%v...), want 1250 x 266", len(got), got[:min(len(got), 5)])
	}
}

// TestConcurrentCounters shares one Tokenizer between goroutines, each with
// its own Counter; run with -race.
func TestConcurrentCounters(t *testing.T) {
	tok := config{added: []map[string]any{added(400, "<x>", false)}}.tokenizer(t)
	text := []byte(strings.Repeat("the thing<x> it's  123\n\n", 30))
	want := tok.NewCounter().Count(text)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			c := tok.NewCounter()
			for range 50 {
				if n := c.Count(text); n != want {
					t.Errorf("Count = %d, want %d", n, want)
					return
				}
			}
		})
	}
	wg.Wait()
}
