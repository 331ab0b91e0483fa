package quality

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode"
)

// Config holds the thresholds of every filter, one section a filter. A rule
// keeps a text when its signal is at least the rule's min_ and at most its
// max_ threshold, both inclusive. To switch a rule off, widen its range to
// the whole range of its signal (a max_ fraction of 1, a min_ of 0).
type Config struct {
	GopherQuality    GopherQualityConfig    `yaml:"gopher_quality" json:"gopher_quality"`
	GopherRepetition GopherRepetitionConfig `yaml:"gopher_repetition" json:"gopher_repetition"`
	C4               C4Config               `yaml:"c4" json:"c4"`
	FineWeb          FineWebConfig          `yaml:"fineweb" json:"fineweb"`
}

// GopherQualityConfig holds the Gopher quality rules (Rae et al. 2021,
// appendix A).
type GopherQualityConfig struct {
	// Words in the text, by the rule of package words.
	MinWordCount int64 `yaml:"min_word_count" json:"min_word_count" limit:"[0,1e12]"`
	MaxWordCount int64 `yaml:"max_word_count" json:"max_word_count" limit:"[0,1e12]"`
	// Mean characters a word.
	MinMeanWordLength float64 `yaml:"min_mean_word_length" json:"min_mean_word_length" limit:"[0,1e12]"`
	MaxMeanWordLength float64 `yaml:"max_mean_word_length" json:"max_mean_word_length" limit:"[0,1e12]"`
	// '#' characters a word.
	MaxHashWordRatio float64 `yaml:"max_hash_word_ratio" json:"max_hash_word_ratio" limit:"[0,1e12]"`
	// Ellipses ("..." or "…") a word.
	MaxEllipsisWordRatio float64 `yaml:"max_ellipsis_word_ratio" json:"max_ellipsis_word_ratio" limit:"[0,1e12]"`
	// Fraction of non-blank lines that start with one of Bullets.
	MaxBulletLinesFrac float64 `yaml:"max_bullet_lines_frac" json:"max_bullet_lines_frac" limit:"[0,1]"`
	// Fraction of non-blank lines that end with one of EllipsisLineEndings.
	MaxEllipsisLinesFrac float64 `yaml:"max_ellipsis_lines_frac" json:"max_ellipsis_lines_frac" limit:"[0,1]"`
	// Fraction of tokens that are words with a letter, where tokens are the
	// words plus the white-space-delimited runs of symbols that hold no word.
	MinAlphaWordsFrac float64 `yaml:"min_alpha_words_frac" json:"min_alpha_words_frac" limit:"[0,1]"`
	// Stop words found: distinct ones when DistinctStopWords, else every
	// occurrence. A word matches a stop word when both are equal in lower
	// case, as Python's str.lower() makes it ("The" is "the"), or, when
	// CaseSensitiveStopWords, only when they are equal as written.
	MinStopWords           int64    `yaml:"min_stop_words" json:"min_stop_words" limit:"[0,1e12]"`
	StopWords              []string `yaml:"stop_words" json:"stop_words" limit:"[0,100000]"`
	DistinctStopWords      bool     `yaml:"distinct_stop_words" json:"distinct_stop_words"`
	CaseSensitiveStopWords bool     `yaml:"case_sensitive_stop_words" json:"case_sensitive_stop_words"`
	// Line prefixes that make a bullet line, after leading white space.
	Bullets []string `yaml:"bullets" json:"bullets" limit:"[0,10000]"`
	// Line endings that make an ellipsis line, before trailing white space;
	// ASCII letters match in either case.
	EllipsisLineEndings []string `yaml:"ellipsis_line_endings" json:"ellipsis_line_endings" limit:"[0,10000]"`
}

// GopherRepetitionConfig holds the Gopher repetition rules (Rae et al. 2021,
// table A1). All are maximum fractions in [0, 1].
type GopherRepetitionConfig struct {
	MaxDupLineFrac       float64 `yaml:"max_dup_line_frac" json:"max_dup_line_frac" limit:"[0,1]"`
	MaxDupParaFrac       float64 `yaml:"max_dup_para_frac" json:"max_dup_para_frac" limit:"[0,1]"`
	MaxDupLineCharFrac   float64 `yaml:"max_dup_line_char_frac" json:"max_dup_line_char_frac" limit:"[0,1]"`
	MaxDupParaCharFrac   float64 `yaml:"max_dup_para_char_frac" json:"max_dup_para_char_frac" limit:"[0,1]"`
	MaxTop2GramCharFrac  float64 `yaml:"max_top_2gram_char_frac" json:"max_top_2gram_char_frac" limit:"[0,1]"`
	MaxTop3GramCharFrac  float64 `yaml:"max_top_3gram_char_frac" json:"max_top_3gram_char_frac" limit:"[0,1]"`
	MaxTop4GramCharFrac  float64 `yaml:"max_top_4gram_char_frac" json:"max_top_4gram_char_frac" limit:"[0,1]"`
	MaxDup5GramCharFrac  float64 `yaml:"max_dup_5gram_char_frac" json:"max_dup_5gram_char_frac" limit:"[0,1]"`
	MaxDup6GramCharFrac  float64 `yaml:"max_dup_6gram_char_frac" json:"max_dup_6gram_char_frac" limit:"[0,1]"`
	MaxDup7GramCharFrac  float64 `yaml:"max_dup_7gram_char_frac" json:"max_dup_7gram_char_frac" limit:"[0,1]"`
	MaxDup8GramCharFrac  float64 `yaml:"max_dup_8gram_char_frac" json:"max_dup_8gram_char_frac" limit:"[0,1]"`
	MaxDup9GramCharFrac  float64 `yaml:"max_dup_9gram_char_frac" json:"max_dup_9gram_char_frac" limit:"[0,1]"`
	MaxDup10GramCharFrac float64 `yaml:"max_dup_10gram_char_frac" json:"max_dup_10gram_char_frac" limit:"[0,1]"`
}

// C4Config holds the C4 rules (Raffel et al. 2020, section 2.2, as the
// reference implementation in TensorFlow Datasets applies them).
type C4Config struct {
	// Lines with fewer words are removed.
	MinWordsPerLine int64 `yaml:"min_words_per_line" json:"min_words_per_line" limit:"[0,1e9]"`
	// Lines with a longer word (in characters) are removed.
	MaxWordLength int64 `yaml:"max_word_length" json:"max_word_length" limit:"[1,1e12]"`
	// Texts with fewer sentences in their kept lines fail.
	MinSentences int64 `yaml:"min_sentences" json:"min_sentences" limit:"[0,1e9]"`
	// Remove lines that do not end with one of EndMarks, or end with "...".
	RequireEndMark bool     `yaml:"require_end_mark" json:"require_end_mark"`
	EndMarks       []string `yaml:"end_marks" json:"end_marks" limit:"[0,10000]"`
	// Remove the citation markers [1], [], [edit] and [citation needed].
	RemoveCitations bool `yaml:"remove_citations" json:"remove_citations"`
	// Remove lines that mention "javascript" (in any ASCII case).
	DropJavascriptLines bool `yaml:"drop_javascript_lines" json:"drop_javascript_lines"`
	// Remove lines that hold one of PolicyPhrases (in any ASCII case).
	DropPolicyLines bool     `yaml:"drop_policy_lines" json:"drop_policy_lines"`
	PolicyPhrases   []string `yaml:"policy_phrases" json:"policy_phrases" limit:"[0,10000]"`
	// Fail texts with "lorem ipsum" (any ASCII case) or "{" in a line that
	// survives the end-mark and word-count rules.
	DropLoremIpsum bool `yaml:"drop_lorem_ipsum" json:"drop_lorem_ipsum"`
	DropCurlyBrace bool `yaml:"drop_curly_brace" json:"drop_curly_brace"`
}

// FineWebConfig holds the FineWeb rules (Penedo et al. 2024).
type FineWebConfig struct {
	// Fraction of lines that end with one of EndMarks.
	MinLinePunctFrac float64  `yaml:"min_line_punct_frac" json:"min_line_punct_frac" limit:"[0,1]"`
	EndMarks         []string `yaml:"end_marks" json:"end_marks" limit:"[0,10000]"`
	// Fraction of lines of at most ShortLineLength characters.
	MaxShortLineFrac float64 `yaml:"max_short_line_frac" json:"max_short_line_frac" limit:"[0,1]"`
	ShortLineLength  int64   `yaml:"short_line_length" json:"short_line_length" limit:"[0,1e9]"`
	// Fraction of the characters (newlines aside) in lines that repeat an
	// earlier line.
	MaxDupLineCharFrac float64 `yaml:"max_dup_line_char_frac" json:"max_dup_line_char_frac" limit:"[0,1]"`
	// Newlines a word.
	MaxNewlineWordRatio float64 `yaml:"max_newline_word_ratio" json:"max_newline_word_ratio" limit:"[0,1e12]"`
	// Count blank lines as lines (short, without punctuation) in the line
	// fractions, as the code that built FineWeb (datatrove before 0.4.0)
	// did; by default blank lines separate paragraphs and are not lines.
	CountBlankLines bool `yaml:"count_blank_lines" json:"count_blank_lines"`
}

// Profile names a set of rule defaults: the papers' own, or the values of
// one tool's published implementation.
type Profile string

// The profiles.
const (
	ProfilePaper     Profile = "paper"
	ProfileDatatrove Profile = "datatrove"
	ProfileDolma     Profile = "dolma"
	ProfileNemo      Profile = "nemo"
)

// Profiles lists the profiles ProfileConfig takes.
var Profiles = []Profile{ProfilePaper, ProfileDatatrove, ProfileDolma, ProfileNemo}

// ParseProfile reads a profile's name; "" is the paper profile.
func ParseProfile(name string) (Profile, error) {
	if name == "" {
		return ProfilePaper, nil
	}
	for _, p := range Profiles {
		if string(p) == name {
			return p, nil
		}
	}
	names := make([]string, len(Profiles))
	for i, p := range Profiles {
		names[i] = string(p)
	}
	return "", fmt.Errorf("quality: unknown profile %q (want one of %s)", name, strings.Join(names, ", "))
}

// UnmarshalText reads a profile's name, as pipeline files give it.
func (p *Profile) UnmarshalText(b []byte) error {
	v, err := ParseProfile(string(b))
	*p = v
	return err
}

// DefaultConfig returns the rules as the papers publish them (the "paper"
// profile).
func DefaultConfig() Config {
	return Config{
		GopherQuality: GopherQualityConfig{
			MinWordCount:         50,
			MaxWordCount:         100_000,
			MinMeanWordLength:    3,
			MaxMeanWordLength:    10,
			MaxHashWordRatio:     0.1,
			MaxEllipsisWordRatio: 0.1,
			MaxBulletLinesFrac:   0.9,
			MaxEllipsisLinesFrac: 0.3,
			MinAlphaWordsFrac:    0.8,
			MinStopWords:         2,
			StopWords:            []string{"the", "be", "to", "of", "and", "that", "have", "with"},
			DistinctStopWords:    true,
			Bullets:              []string{"-", "*", "•", "‣", "⁃", "⁌", "⁍", "∙", "○", "●", "◘", "◦", "⦾", "⦿", "▪", "■", "➢", "➤"},
			EllipsisLineEndings:  []string{"...", "…"},
		},
		GopherRepetition: GopherRepetitionConfig{
			MaxDupLineFrac:       0.3,
			MaxDupParaFrac:       0.3,
			MaxDupLineCharFrac:   0.2,
			MaxDupParaCharFrac:   0.2,
			MaxTop2GramCharFrac:  0.20,
			MaxTop3GramCharFrac:  0.18,
			MaxTop4GramCharFrac:  0.16,
			MaxDup5GramCharFrac:  0.15,
			MaxDup6GramCharFrac:  0.14,
			MaxDup7GramCharFrac:  0.13,
			MaxDup8GramCharFrac:  0.12,
			MaxDup9GramCharFrac:  0.11,
			MaxDup10GramCharFrac: 0.10,
		},
		C4: C4Config{
			MinWordsPerLine:     5,
			MaxWordLength:       1000,
			MinSentences:        3,
			RequireEndMark:      true,
			EndMarks:            []string{".", "!", "?", `"`, "”", "’", "»"},
			RemoveCitations:     true,
			DropJavascriptLines: true,
			DropPolicyLines:     true,
			PolicyPhrases:       []string{"terms of use", "privacy policy", "cookie policy", "uses cookies", "use of cookies", "use cookies"},
			DropLoremIpsum:      true,
			DropCurlyBrace:      true,
		},
		FineWeb: FineWebConfig{
			MinLinePunctFrac:    0.12,
			EndMarks:            []string{".", "'", `"`, "!", "?"},
			MaxShortLineFrac:    0.67,
			ShortLineLength:     30,
			MaxDupLineCharFrac:  0.01,
			MaxNewlineWordRatio: 0.3,
		},
	}
}

// ProfileConfig returns the configuration of a profile: "paper" (or "", the
// default) for the papers' rules, or "datatrove", "dolma" or "nemo" for the
// values where that tool's published implementation differs. The package
// documentation tabulates the differences.
func ProfileConfig(p Profile) (Config, error) {
	c := DefaultConfig()
	switch p {
	case "", ProfilePaper:
	case ProfileDatatrove:
		c.GopherQuality.CaseSensitiveStopWords = true
		c.GopherQuality.Bullets = []string{"•", "-"}
		c.C4.MinWordsPerLine = 3
		c.C4.MinSentences = 5
		c.C4.EndMarks = []string{".", "?", "!", `"`, "'"}
		c.FineWeb.EndMarks = datatroveTerminalPunctuation()
	case ProfileDolma:
		c.GopherQuality.DistinctStopWords = false
		c.GopherQuality.CaseSensitiveStopWords = true
		c.GopherQuality.Bullets = []string{"*", "-"}
		c.GopherQuality.EllipsisLineEndings = []string{"…"}
		c.C4.MinWordsPerLine = 3
		c.C4.MinSentences = 0
		c.C4.EndMarks = []string{".", "?", "!", `"`}
		c.C4.RemoveCitations = false
		c.C4.DropPolicyLines = false
	case ProfileNemo:
		c.GopherQuality.DistinctStopWords = false
		c.GopherQuality.CaseSensitiveStopWords = true
		c.GopherQuality.Bullets = []string{"•", "‣", "⁃", "⁌", "⁍", "∙", "○", "●", "◘", "◦", "⦾", "⦿"}
		c.GopherQuality.EllipsisLineEndings = []string{"...", "[...]", "…", "(...)", "[…]", "-»", "read more..", "read more"}
	default:
		_, err := ParseProfile(string(p))
		return Config{}, err
	}
	return c, nil
}

// datatroveTerminalPunctuation returns datatrove's TERMINAL_PUNCTUATION,
// its FineWeb end marks since 0.4.0: the Unicode Sentence_Terminal
// characters and five Khmer signs (khan, bariyoosan, camnuc pii kuuh,
// koomuut, lek attak pram).
func datatroveTerminalPunctuation() []string {
	var marks []string
	add := func(lo, hi, stride uint32) {
		for r := lo; r <= hi; r += stride {
			marks = append(marks, string(rune(r)))
		}
	}
	for _, r := range unicode.Sentence_Terminal.R16 {
		add(uint32(r.Lo), uint32(r.Hi), uint32(r.Stride))
	}
	for _, r := range unicode.Sentence_Terminal.R32 {
		add(r.Lo, r.Hi, r.Stride)
	}
	for _, r := range []rune{'\u17D4', '\u17D5', '\u17D6', '\u17D9', '\u17DA'} {
		if !unicode.Is(unicode.Sentence_Terminal, r) {
			marks = append(marks, string(r))
		}
	}
	return marks
}

// Validate checks every threshold and returns all problems at once, one a
// line, each naming its key.
func (c Config) Validate() error {
	var errs []error
	errs = c.GopherQuality.validate(errs)
	errs = c.GopherRepetition.validate(errs)
	errs = c.C4.validate(errs)
	errs = c.FineWeb.validate(errs)
	return joinErrors(errs)
}

func joinErrors(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	return errors.Join(errs...)
}

// checker collects the problems of one section.
type checker struct {
	section string
	errs    []error
}

func (k *checker) fail(key, format string, args ...any) {
	k.errs = append(k.errs, fmt.Errorf("quality: %s.%s %s", k.section, key, fmt.Sprintf(format, args...)))
}

// frac checks a fraction threshold.
func (k *checker) frac(key string, v float64) {
	if math.IsNaN(v) || v < 0 || v > 1 {
		k.fail(key, "is %v, want a fraction in [0, 1]", v)
	}
}

// nonNeg checks a threshold that can be any finite number from 0 up.
func (k *checker) nonNeg(key string, v float64) {
	if !(v >= 0) || math.IsInf(v, 1) {
		k.fail(key, "is %v, want a finite number >= 0", v)
	}
}

// atLeast checks a count threshold.
func (k *checker) atLeast(key string, v, min int64) {
	if v < min {
		k.fail(key, "is %d, want an integer >= %d", v, min)
	}
}

// order checks that a min threshold does not exceed its max.
func (k *checker) order(minKey, maxKey string, lo, hi float64) {
	if lo > hi {
		k.fail(maxKey, "(%v) is less than %s.%s (%v)", hi, k.section, minKey, lo)
	}
}

// list checks that a list has no empty entries and, when required, at least
// one entry.
func (k *checker) list(key string, v []string, required bool) {
	if required && len(v) == 0 {
		k.fail(key, "is empty")
	}
	for i, s := range v {
		if s == "" {
			k.fail(fmt.Sprintf("%s[%d]", key, i), "is an empty string")
		}
	}
}

func (c GopherQualityConfig) validate(errs []error) []error {
	k := checker{section: "gopher_quality", errs: errs}
	k.atLeast("min_word_count", c.MinWordCount, 0)
	k.atLeast("max_word_count", c.MaxWordCount, 0)
	k.order("min_word_count", "max_word_count", float64(c.MinWordCount), float64(c.MaxWordCount))
	k.nonNeg("min_mean_word_length", c.MinMeanWordLength)
	k.nonNeg("max_mean_word_length", c.MaxMeanWordLength)
	k.order("min_mean_word_length", "max_mean_word_length", c.MinMeanWordLength, c.MaxMeanWordLength)
	k.nonNeg("max_hash_word_ratio", c.MaxHashWordRatio)
	k.nonNeg("max_ellipsis_word_ratio", c.MaxEllipsisWordRatio)
	k.frac("max_bullet_lines_frac", c.MaxBulletLinesFrac)
	k.frac("max_ellipsis_lines_frac", c.MaxEllipsisLinesFrac)
	k.frac("min_alpha_words_frac", c.MinAlphaWordsFrac)
	k.atLeast("min_stop_words", c.MinStopWords, 0)
	k.list("stop_words", c.StopWords, c.MinStopWords > 0)
	if c.DistinctStopWords && c.MinStopWords > int64(len(c.StopWords)) {
		k.fail("min_stop_words", "(%d) exceeds the %d distinct stop_words, so every text would fail", c.MinStopWords, len(c.StopWords))
	}
	k.list("bullets", c.Bullets, false)
	k.list("ellipsis_line_endings", c.EllipsisLineEndings, false)
	return k.errs
}

func (c GopherRepetitionConfig) validate(errs []error) []error {
	k := checker{section: "gopher_repetition", errs: errs}
	k.frac("max_dup_line_frac", c.MaxDupLineFrac)
	k.frac("max_dup_para_frac", c.MaxDupParaFrac)
	k.frac("max_dup_line_char_frac", c.MaxDupLineCharFrac)
	k.frac("max_dup_para_char_frac", c.MaxDupParaCharFrac)
	k.frac("max_top_2gram_char_frac", c.MaxTop2GramCharFrac)
	k.frac("max_top_3gram_char_frac", c.MaxTop3GramCharFrac)
	k.frac("max_top_4gram_char_frac", c.MaxTop4GramCharFrac)
	k.frac("max_dup_5gram_char_frac", c.MaxDup5GramCharFrac)
	k.frac("max_dup_6gram_char_frac", c.MaxDup6GramCharFrac)
	k.frac("max_dup_7gram_char_frac", c.MaxDup7GramCharFrac)
	k.frac("max_dup_8gram_char_frac", c.MaxDup8GramCharFrac)
	k.frac("max_dup_9gram_char_frac", c.MaxDup9GramCharFrac)
	k.frac("max_dup_10gram_char_frac", c.MaxDup10GramCharFrac)
	return k.errs
}

func (c C4Config) validate(errs []error) []error {
	k := checker{section: "c4", errs: errs}
	k.atLeast("min_words_per_line", c.MinWordsPerLine, 0)
	k.atLeast("max_word_length", c.MaxWordLength, 1)
	k.atLeast("min_sentences", c.MinSentences, 0)
	k.list("end_marks", c.EndMarks, c.RequireEndMark)
	k.list("policy_phrases", c.PolicyPhrases, c.DropPolicyLines)
	return k.errs
}

func (c FineWebConfig) validate(errs []error) []error {
	k := checker{section: "fineweb", errs: errs}
	k.frac("min_line_punct_frac", c.MinLinePunctFrac)
	k.list("end_marks", c.EndMarks, c.MinLinePunctFrac > 0)
	k.frac("max_short_line_frac", c.MaxShortLineFrac)
	k.atLeast("short_line_length", c.ShortLineLength, 0)
	k.frac("max_dup_line_char_frac", c.MaxDupLineCharFrac)
	k.nonNeg("max_newline_word_ratio", c.MaxNewlineWordRatio)
	return k.errs
}
