package quality

import (
	"math"
	"strings"
	"testing"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/sluice-data/sluice/kernels/words"
)

// onlyGopherQuality returns a configuration in which every gopher_quality
// rule but rule passes any text, and rule keeps its paper threshold.
func onlyGopherQuality(rule string) Config {
	c := DefaultConfig()
	d := c.GopherQuality
	g := &c.GopherQuality
	g.MinWordCount, g.MaxWordCount = 0, math.MaxInt64
	g.MinMeanWordLength, g.MaxMeanWordLength = 0, math.MaxFloat64
	g.MaxHashWordRatio, g.MaxEllipsisWordRatio = math.MaxFloat64, math.MaxFloat64
	g.MaxBulletLinesFrac, g.MaxEllipsisLinesFrac = 1, 1
	g.MinAlphaWordsFrac, g.MinStopWords = 0, 0
	switch rule {
	case "word_count":
		g.MinWordCount, g.MaxWordCount = d.MinWordCount, d.MaxWordCount
	case "mean_word_length":
		g.MinMeanWordLength, g.MaxMeanWordLength = d.MinMeanWordLength, d.MaxMeanWordLength
	case "hash_word_ratio":
		g.MaxHashWordRatio = d.MaxHashWordRatio
	case "ellipsis_word_ratio":
		g.MaxEllipsisWordRatio = d.MaxEllipsisWordRatio
	case "bullet_lines_frac":
		g.MaxBulletLinesFrac = d.MaxBulletLinesFrac
	case "ellipsis_lines_frac":
		g.MaxEllipsisLinesFrac = d.MaxEllipsisLinesFrac
	case "alpha_words_frac":
		g.MinAlphaWordsFrac = d.MinAlphaWordsFrac
	case "stop_words":
		g.MinStopWords = d.MinStopWords
	default:
		panic(rule)
	}
	return c
}

// rep repeats s n times, joined by sep.
func rep(s string, n int, sep string) string {
	return strings.TrimSuffix(strings.Repeat(s+sep, n), sep)
}

// lines builds a text of n lines, of which the first k are made by yes and
// the others by no (each given the line number).
func lines(n, k int, yes, no func(i int) string) string {
	out := make([]string, n)
	for i := range n {
		if i < k {
			out[i] = yes(i)
		} else {
			out[i] = no(i)
		}
	}
	return strings.Join(out, "\n")
}

// ruleCase is a text just inside a rule's threshold and one just outside it,
// with the signal each should give.
type ruleCase struct {
	rule            string
	signal          string
	inside, outside string
	in, out         float64
}

func checkRule(t *testing.T, filter string, c Config, tc ruleCase) {
	t.Helper()
	in := apply(t, filter, c, tc.inside)
	if in.fail != "" || !near(in.signals[tc.signal], tc.in) {
		t.Errorf("%s inside: fail %q, %s = %v, want pass with %v", tc.rule, in.fail, tc.signal, in.signals[tc.signal], tc.in)
	}
	out := apply(t, filter, c, tc.outside)
	if out.fail != tc.rule || !near(out.signals[tc.signal], tc.out) {
		t.Errorf("%s outside: fail %q, %s = %v, want fail %q with %v", tc.rule, out.fail, tc.signal, out.signals[tc.signal], tc.rule, tc.out)
	}
}

func TestGopherQualityRules(t *testing.T) {
	item := func(i int) string { return "plain words of line " + uniqueWords(i + 1)[i] }
	bullet := func(i int) string { return []string{"- ", "* ", "  • ", "\t◦ "}[i%4] + item(i) }
	ellipsis := func(i int) string { return item(i) + []string{"...", " …", "... ", "…\t"}[i%4] }
	cases := []ruleCase{
		{"word_count", "gopher_word_count", rep("word", 50, " "), rep("word", 49, " "), 50, 49},
		{"word_count", "gopher_word_count", rep("a", 100_000, " "), rep("a", 100_001, " "), 100_000, 100_001},
		{"mean_word_length", "gopher_mean_word_length", rep("abc", 50, " "), rep("abc", 49, " ") + " ab", 3, 2.98},
		{"mean_word_length", "gopher_mean_word_length", rep("abcdefghij", 50, ", "), rep("abcdefghij", 49, ", ") + ", abcdefghijk", 10, 10.02},
		{"hash_word_ratio", "gopher_hash_word_ratio", rep("#tag", 5, " ") + " " + rep("word", 45, " "), rep("#tag", 6, " ") + " " + rep("word", 44, " "), 0.1, 0.12},
		{"ellipsis_word_ratio", "gopher_ellipsis_word_ratio", rep("so...", 3, " ") + " " + rep("so…", 2, " ") + " " + rep("word", 45, " "), rep("so...", 3, " ") + " " + rep("so…", 3, " ") + " " + rep("word", 44, " "), 0.1, 0.12},
		{"bullet_lines_frac", "gopher_bullet_lines_frac", lines(10, 9, bullet, item), lines(100, 91, bullet, item), 0.9, 0.91},
		{"ellipsis_lines_frac", "gopher_ellipsis_lines_frac", lines(10, 3, ellipsis, item), lines(100, 31, ellipsis, item), 0.3, 0.31},
		{"alpha_words_frac", "gopher_alpha_words_frac", rep("word", 40, " ") + " " + rep("1984", 10, " "), rep("word", 39, " ") + " " + rep("1984", 11, " "), 0.8, 0.78},
		// Symbol-only tokens count; punctuation attached to a word does not.
		{"alpha_words_frac", "gopher_alpha_words_frac", rep("word, (word)", 24, " ") + " 1 2 " + rep("|", 10, " "), rep("word, (word)", 24, " ") + " 1 2 " + rep("|", 11, " "), 0.8, 48.0 / 61},
		{"stop_words", "gopher_stop_words", "The cat AND the dog", "the cat, The dog, THE bird", 2, 1},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			checkRule(t, "gopher_quality", onlyGopherQuality(tc.rule), tc)
		})
	}
}

func TestGopherQualityRuleOrder(t *testing.T) {
	// Fails every rule: the first in signal order is reported.
	o := apply(t, "gopher_quality", DefaultConfig(), "# ...")
	if o.fail != "word_count" {
		t.Errorf("fail %q, want word_count", o.fail)
	}
	c := onlyGopherQuality("hash_word_ratio")
	c.GopherQuality.MaxEllipsisWordRatio = 0.1
	if o := apply(t, "gopher_quality", c, "a # b ... c"); o.fail != "hash_word_ratio" {
		t.Errorf("fail %q, want hash_word_ratio", o.fail)
	}
}

func TestGopherQualitySignals(t *testing.T) {
	cases := []struct {
		text   string
		signal string
		want   float64
	}{
		{"", "gopher_word_count", 0},
		{"", "gopher_mean_word_length", 0},
		{"", "gopher_alpha_words_frac", 0},
		{"café naïve", "gopher_mean_word_length", 4.5},
		{"don't state-of-the-art", "gopher_word_count", 2},
		{"a.... b...... c… d", "gopher_ellipsis_word_ratio", 4.0 / 4},
		{"## a #b", "gopher_hash_word_ratio", 3.0 / 2},
		{"  - a\n\n\n* b\nc\n  ", "gopher_bullet_lines_frac", 2.0 / 3},
		{"a...\nb… \nc. \n\n", "gopher_ellipsis_lines_frac", 2.0 / 3},
		{"the the the of", "gopher_stop_words", 2},
		{"漢字 and 2024", "gopher_alpha_words_frac", 3.0 / 4},
	}
	for _, tc := range cases {
		o := apply(t, "gopher_quality", DefaultConfig(), tc.text)
		if !near(o.signals[tc.signal], tc.want) {
			t.Errorf("%q: %s = %v, want %v", tc.text, tc.signal, o.signals[tc.signal], tc.want)
		}
	}
}

func TestSymbolTokens(t *testing.T) {
	cases := []struct {
		text string
		want int
	}{
		{"", 0},
		{"word", 0},
		{"|", 1},
		{" | ", 1},
		{"| word |", 2},
		{"word, word. (word)", 0},
		{"word - word -- word", 2},
		{"word -x", 0},
		{"→ » ©\u00a0word", 3},
		{"-- ---\n***", 3},
		{"a.\n- b", 1},
	}
	for _, tc := range cases {
		b := []byte(tc.text)
		if got := symbolTokens(b, words.Split(b, nil)); got != tc.want {
			t.Errorf("symbolTokens(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestGopherQualityProfiles(t *testing.T) {
	cases := []struct {
		name, text, signal string
		want               map[string]float64 // by profile
	}{
		{"stop words counted once or each time", "the cat and the dog and the bird", "gopher_stop_words",
			map[string]float64{"paper": 2, "datatrove": 2, "dolma": 5, "nemo": 5}},
		{"bullet characters", "* a\n• b\n- c\n‣ d\n▪ e", "gopher_bullet_lines_frac",
			map[string]float64{"paper": 1, "datatrove": 0.4, "dolma": 0.4, "nemo": 0.4}},
		{"ellipsis endings", "a...\nb…\nc [...]\nRead More\nd.", "gopher_ellipsis_lines_frac",
			map[string]float64{"paper": 0.4, "datatrove": 0.4, "dolma": 0.2, "nemo": 0.8}},
	}
	for _, tc := range cases {
		for profile, want := range tc.want {
			c, err := ProfileConfig(Profile(profile))
			if err != nil {
				t.Fatal(err)
			}
			o := apply(t, "gopher_quality", c, tc.text)
			if !near(o.signals[tc.signal], want) {
				t.Errorf("%s (%s): %s = %v, want %v", tc.name, profile, tc.signal, o.signals[tc.signal], want)
			}
		}
	}
	// Two occurrences of one stop word: enough for Dolma and NeMo, not for
	// the paper or datatrove (set(words) since datatrove 0.5.0).
	text := "the cat sat on the mat"
	for profile, want := range map[string]string{"paper": "stop_words", "datatrove": "stop_words", "dolma": "", "nemo": ""} {
		c, _ := ProfileConfig(Profile(profile))
		c.GopherQuality.MinWordCount = 0
		c.GopherQuality.MinMeanWordLength = 0
		if o := apply(t, "gopher_quality", c, text); o.fail != want {
			t.Errorf("%s: %q fails %q, want %q", profile, text, o.fail, want)
		}
	}
}

func TestStopWordLookup(t *testing.T) {
	text := "the thee th e The THE tHE theory of OF off to too and AND an a A that That's that's have having " +
		"with WITH without nevertheless NEVERTHELESS über Über ÜBER uber 12345678 123456789 be Be been " +
		"\u212Anow know KNOW İt it ΟΔΟΣ οδος Straße STRASSE"
	lists := [][]string{
		DefaultConfig().GopherQuality.StopWords,
		{"nevertheless", "the"},                // a word longer than 8 bytes
		{"über", "12345678", "123456789", "a"}, // non-ASCII, 8 and 9 bytes
		{"Know", "it", "οδος", "straße"},       // upper case; what non-ASCII letters lower to
		strings.Fields("a an and are as at be been but by for from had has have he her his i in is it its of on or " +
			"that the their there they this to was were which will with would you your"), // many
	}
	lower := cases.Lower(language.Und)
	for _, list := range lists {
		for _, caseSensitive := range []bool{true, false} {
			for _, distinct := range []bool{true, false} {
				c := DefaultConfig()
				c.GopherQuality.StopWords = list
				c.GopherQuality.DistinctStopWords = distinct
				c.GopherQuality.CaseSensitiveStopWords = caseSensitive
				c.GopherQuality.MinStopWords = 0
				key := func(s string) string {
					if caseSensitive {
						return s
					}
					return lower.String(s)
				}
				want := 0
				seen := map[string]bool{}
				in := map[string]bool{}
				for _, w := range list {
					in[key(w)] = true
				}
				for _, w := range words.Split([]byte(text), nil) {
					s := key(text[w.Start:w.End])
					if in[s] && (!distinct || !seen[s]) {
						want++
						seen[s] = true
					}
				}
				o := apply(t, "gopher_quality", c, text)
				if got := o.signals["gopher_stop_words"]; got != float64(want) {
					t.Errorf("list %v case-sensitive %v distinct %v: %v stop words, want %d", list[:2], caseSensitive, distinct, got, want)
				}
			}
		}
	}
}

// TestStopWordsCase checks that stop words match in any case in the paper
// profile, with Python's str.lower(), and as written in the profiles of
// tools that match them so.
func TestStopWordsCase(t *testing.T) {
	// Ordinary prose whose only stop words open a sentence.
	prose := "The harbour froze early this winter. And boats stayed ashore until March."
	want := map[string]struct {
		stop float64
		fail string
	}{
		"paper":     {2, ""},
		"datatrove": {0, "stop_words"},
		"dolma":     {0, "stop_words"},
		"nemo":      {0, "stop_words"},
	}
	for profile, w := range want {
		c, _ := ProfileConfig(Profile(profile))
		c.GopherQuality.MinWordCount = 0
		o := apply(t, "gopher_quality", c, prose)
		if o.signals["gopher_stop_words"] != w.stop || o.fail != w.fail {
			t.Errorf("%s: %v stop words, fail %q; want %v, %q", profile, o.signals["gopher_stop_words"], o.fail, w.stop, w.fail)
		}
	}
	// Python's str.lower(): the Kelvin sign lowers to "k", "İ" to "i" and a
	// combining dot, a final capital sigma to "ς".
	cases := []struct {
		stop, word string
		match      bool
	}{
		{"know", "\u212Anow", true},
		{"it", "İT", false},
		{"i̇t", "İT", true},
		{"οδος", "ΟΔΟΣ", true},
		{"οδοσ", "ΟΔΟΣ", false},
		{"über", "ÜBER", true},
		{"straße", "STRASSE", false},
		{"THE", "the", true},
	}
	for _, tc := range cases {
		c := onlyGopherQuality("stop_words")
		c.GopherQuality.StopWords = []string{tc.stop}
		c.GopherQuality.MinStopWords = 1
		for _, long := range []bool{false, true} {
			if long { // a list that does not fit the stop table
				c.GopherQuality.StopWords = append(c.GopherQuality.StopWords, "nevertheless")
			}
			o := apply(t, "gopher_quality", c, "a "+tc.word+" b")
			if got := o.signals["gopher_stop_words"] == 1; got != tc.match {
				t.Errorf("stop word %q, word %q (long list %v): match %v, want %v", tc.stop, tc.word, long, got, tc.match)
			}
		}
	}
}
