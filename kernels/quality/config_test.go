package quality

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultConfigValid(t *testing.T) {
	for _, p := range Profiles {
		c, err := ProfileConfig(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	c, err := ProfileConfig("")
	if err != nil || !reflect.DeepEqual(c, DefaultConfig()) {
		t.Errorf(`ProfileConfig("") = %v, %v; want DefaultConfig()`, c, err)
	}
	if _, err := ProfileConfig("ccnet"); err == nil || !strings.Contains(err.Error(), `unknown profile "ccnet"`) {
		t.Errorf("ProfileConfig(ccnet) error = %v", err)
	}
}

// TestProfileDifferences pins the keys where each profile differs from the
// paper, as the package documentation tabulates them.
func TestProfileDifferences(t *testing.T) {
	want := map[string][]string{
		"datatrove": {"gopher_quality.case_sensitive_stop_words", "gopher_quality.bullets", "c4.min_words_per_line", "c4.min_sentences", "c4.end_marks", "fineweb.end_marks"},
		"dolma":     {"gopher_quality.distinct_stop_words", "gopher_quality.case_sensitive_stop_words", "gopher_quality.bullets", "gopher_quality.ellipsis_line_endings", "c4.min_words_per_line", "c4.min_sentences", "c4.end_marks", "c4.remove_citations", "c4.drop_policy_lines"},
		"nemo":      {"gopher_quality.distinct_stop_words", "gopher_quality.case_sensitive_stop_words", "gopher_quality.bullets", "gopher_quality.ellipsis_line_endings"},
	}
	paper := flatten(t, DefaultConfig())
	for profile, keys := range want {
		c, _ := ProfileConfig(Profile(profile))
		var diff []string
		for k, v := range flatten(t, c) {
			if !reflect.DeepEqual(v, paper[k]) {
				diff = append(diff, k)
			}
		}
		if !sameSet(diff, keys) {
			t.Errorf("%s differs from paper in %v, want %v", profile, diff, keys)
		}
	}
}

// flatten maps "section.key" to its value through the JSON tags.
func flatten(t *testing.T, c Config) map[string]any {
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var sections map[string]map[string]any
	if err := json.Unmarshal(b, &sections); err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	for s, kv := range sections {
		for k, v := range kv {
			out[s+"."+k] = v
		}
	}
	return out
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

// TestConfigTags checks that every field has matching snake_case yaml and
// json tags.
func TestConfigTags(t *testing.T) {
	var walk func(reflect.Type)
	walk = func(typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			y, j := f.Tag.Get("yaml"), f.Tag.Get("json")
			if y == "" || y != j || strings.ToLower(y) != y || strings.ContainsAny(y, "- ,") {
				t.Errorf("%s.%s: yaml %q json %q", typ.Name(), f.Name, y, j)
			}
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type)
			}
		}
	}
	walk(reflect.TypeFor[Config]())
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name   string
		modify func(*Config)
		want   []string // substrings, one an error line
	}{
		{"fraction above 1", func(c *Config) { c.GopherRepetition.MaxDupLineFrac = 1.5 },
			[]string{"gopher_repetition.max_dup_line_frac is 1.5, want a fraction in [0, 1]"}},
		{"negative fraction", func(c *Config) { c.FineWeb.MinLinePunctFrac = -0.1 },
			[]string{"fineweb.min_line_punct_frac is -0.1"}},
		{"NaN", func(c *Config) { c.GopherQuality.MaxHashWordRatio = math.NaN() },
			[]string{"gopher_quality.max_hash_word_ratio is NaN"}},
		{"min above max", func(c *Config) { c.GopherQuality.MinMeanWordLength = 11 },
			[]string{"gopher_quality.max_mean_word_length (10) is less than gopher_quality.min_mean_word_length (11)"}},
		{"word count order", func(c *Config) { c.GopherQuality.MaxWordCount = 10 },
			[]string{"gopher_quality.max_word_count (10) is less than gopher_quality.min_word_count (50)"}},
		{"negative count", func(c *Config) { c.C4.MinSentences = -1 },
			[]string{"c4.min_sentences is -1, want an integer >= 0"}},
		{"zero word length", func(c *Config) { c.C4.MaxWordLength = 0 },
			[]string{"c4.max_word_length is 0, want an integer >= 1"}},
		{"too many distinct stop words", func(c *Config) { c.GopherQuality.MinStopWords = 9 },
			[]string{"gopher_quality.min_stop_words (9) exceeds the 8 distinct stop_words"}},
		{"no stop words", func(c *Config) { c.GopherQuality.StopWords = nil },
			[]string{"gopher_quality.stop_words is empty", "gopher_quality.min_stop_words (2) exceeds the 0"}},
		{"empty list entry", func(c *Config) { c.C4.EndMarks = []string{".", ""} },
			[]string{"c4.end_marks[1] is an empty string"}},
		{"no end marks", func(c *Config) { c.FineWeb.EndMarks = nil },
			[]string{"fineweb.end_marks is empty"}},
		{"no policy phrases", func(c *Config) { c.C4.PolicyPhrases = nil },
			[]string{"c4.policy_phrases is empty"}},
		{"negative ratio", func(c *Config) { c.FineWeb.MaxNewlineWordRatio = -1 },
			[]string{"fineweb.max_newline_word_ratio is -1, want a finite number >= 0"}},
		{"every problem at once", func(c *Config) {
			c.GopherQuality.MinAlphaWordsFrac = 2
			c.GopherRepetition.MaxDup10GramCharFrac = -1
			c.C4.MinWordsPerLine = -3
			c.FineWeb.MaxShortLineFrac = 1.01
		}, []string{"gopher_quality.min_alpha_words_frac", "gopher_repetition.max_dup_10gram_char_frac", "c4.min_words_per_line", "fineweb.max_short_line_frac"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.modify(&c)
			err := c.Validate()
			if err == nil {
				t.Fatal("no error")
			}
			lines := strings.Split(err.Error(), "\n")
			if len(lines) != len(tc.want) {
				t.Errorf("%d problems, want %d:\n%v", len(lines), len(tc.want), err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			for _, l := range lines {
				if !strings.HasPrefix(l, "quality: ") {
					t.Errorf("line %q lacks the package prefix", l)
				}
			}
		})
	}
}

func TestDisabledRulesPassEverything(t *testing.T) {
	// The widest thresholds accept any text.
	c := DefaultConfig()
	c.GopherQuality = GopherQualityConfig{MaxWordCount: math.MaxInt64, MaxMeanWordLength: 1e6, MaxHashWordRatio: 1e6, MaxEllipsisWordRatio: 1e6, MaxBulletLinesFrac: 1, MaxEllipsisLinesFrac: 1}
	c.GopherRepetition = GopherRepetitionConfig{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	c.FineWeb = FineWebConfig{MaxShortLineFrac: 1, MaxDupLineCharFrac: 1, MaxNewlineWordRatio: 1e6}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{"", "\n\n\n", "# ... …", "a a a a a a a a a a a a", "- x\n- x\n- x"} {
		for _, name := range []string{"gopher_quality", "gopher_repetition", "fineweb"} {
			if o := apply(t, name, c, text); o.fail != "" {
				t.Errorf("%s: %q fails %q", name, text, o.fail)
			}
		}
	}
}

func TestTestHelpers(t *testing.T) {
	seen := map[string]bool{}
	for _, w := range uniqueWords(26 * 26 * 26) {
		if seen[w] || len(w) != 4 {
			t.Fatalf("uniqueWords repeats or misshapes %q", w)
		}
		seen[w] = true
	}
	for _, n := range []int{1, 2, 5, 30, 31, 298, 980} {
		if l := lineOf(7, n); len(l) != n {
			t.Errorf("lineOf(7, %d) has %d characters: %q", n, len(l), l)
		}
		if f := filler(3, n); len(strings.Join(f, "")) != n {
			t.Errorf("filler(3, %d) = %v", n, f)
		}
	}
}
