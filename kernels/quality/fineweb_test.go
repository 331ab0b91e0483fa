package quality

import (
	"strings"
	"testing"
)

// onlyFineWeb returns a configuration in which every fineweb rule but rule
// passes any text.
func onlyFineWeb(rule string) Config {
	c := DefaultConfig()
	d := c.FineWeb
	f := &c.FineWeb
	f.MinLinePunctFrac, f.MaxShortLineFrac, f.MaxDupLineCharFrac, f.MaxNewlineWordRatio = 0, 1, 1, 1e9
	switch rule {
	case "line_punct_frac":
		f.MinLinePunctFrac = d.MinLinePunctFrac
	case "short_line_frac":
		f.MaxShortLineFrac = d.MaxShortLineFrac
	case "dup_line_char_frac":
		f.MaxDupLineCharFrac = d.MaxDupLineCharFrac
	case "newline_word_ratio":
		f.MaxNewlineWordRatio = d.MaxNewlineWordRatio
	default:
		panic(rule)
	}
	return c
}

func TestFineWebRules(t *testing.T) {
	item := func(i int) string { return "a line about " + uniqueWords(i + 1)[i] }
	punct := func(i int) string { return item(i) + []string{".", "!", "?", `"`, "'"}[i%5] }
	short := func(i int) string { return lineOf(i*10, 30) }
	long := func(i int) string { return lineOf(i*10, 31) }
	// 100 words on lines: n lines hold n-1 newlines.
	wordLines := func(n int) string {
		ws := uniqueWords(100)
		var ls []string
		for i := range n {
			ls = append(ls, strings.Join(ws[i*100/n:(i+1)*100/n], " "))
		}
		return strings.Join(ls, "\n")
	}
	cases := []ruleCase{
		{"line_punct_frac", "fineweb_line_punct_frac", lines(100, 12, punct, item), lines(100, 11, punct, item), 0.12, 0.11},
		{"short_line_frac", "fineweb_short_line_frac", lines(100, 67, short, long), lines(100, 68, short, long), 0.67, 0.68},
		// 10 duplicated characters in 1000 (newlines aside).
		{"dup_line_char_frac", "fineweb_dup_line_char_frac",
			"abcdefghij\n" + lineOf(0, 980) + "\nabcdefghij",
			"abcdefghij\n" + lineOf(0, 979) + "\nabcdefghij", 0.01, 10.0 / 999},
		{"newline_word_ratio", "fineweb_newline_word_ratio", wordLines(31), wordLines(32), 0.3, 0.31},
	}
	for _, tc := range cases {
		t.Run(tc.rule, func(t *testing.T) {
			checkRule(t, "fineweb", onlyFineWeb(tc.rule), tc)
		})
	}
}

func TestFineWebSignals(t *testing.T) {
	cases := []struct {
		text   string
		signal string
		want   float64
	}{
		{"", "fineweb_line_punct_frac", 0},
		{"", "fineweb_newline_word_ratio", 0},
		{"\n\n", "fineweb_newline_word_ratio", 2},
		{"a\nb", "fineweb_newline_word_ratio", 0.5},
		{"a\n", "fineweb_newline_word_ratio", 1},
		{"a b\r\nc d\r\n\n", "fineweb_newline_word_ratio", 0.75},
		{"\n", "fineweb_newline_word_ratio", 1},
		{"Ends here.  \nno end\n\n", "fineweb_line_punct_frac", 0.5},
		{lineOf(0, 30) + "\n" + lineOf(100, 31), "fineweb_short_line_frac", 0.5},
		{"ééééé\nééééé\nabcde", "fineweb_dup_line_char_frac", 5.0 / 15},
	}
	for _, tc := range cases {
		o := apply(t, "fineweb", DefaultConfig(), tc.text)
		if !near(o.signals[tc.signal], tc.want) {
			t.Errorf("%q: %s = %v, want %v", tc.text, tc.signal, o.signals[tc.signal], tc.want)
		}
	}
}

func TestFineWebBlankLines(t *testing.T) {
	// Two long punctuated lines with blank lines between them: only
	// count_blank_lines, counting the five blank lines as short lines,
	// fails it. No profile sets it: datatrove skips blank lines since
	// 0.4.0.
	text := lineOf(0, 80) + ".\n\n\n\n\n\n" + lineOf(100, 80) + "."
	counting, _ := ProfileConfig("paper")
	counting.FineWeb.CountBlankLines = true
	cases := map[string]struct {
		short float64
		fail  string
	}{
		"paper": {0, ""}, "datatrove": {0, ""}, "dolma": {0, ""}, "nemo": {0, ""},
		"count_blank_lines": {5.0 / 7, "short_line_frac"},
	}
	for name, want := range cases {
		c, err := ProfileConfig(Profile(name))
		if name == "count_blank_lines" {
			c, err = counting, nil
		}
		if err != nil {
			t.Fatal(err)
		}
		o := apply(t, "fineweb", c, text)
		if !near(o.signals["fineweb_short_line_frac"], want.short) || o.fail != want.fail {
			t.Errorf("%s: short line fraction %v, fail %q; want %v, %q", name, o.signals["fineweb_short_line_frac"], o.fail, want.short, want.fail)
		}
	}
}

// TestFineWebEndMarks checks the end marks of each profile: FineWeb's
// . ' " ! ? for the paper, datatrove's TERMINAL_PUNCTUATION (sentence
// terminals of every script, no quotes) for datatrove.
func TestFineWebEndMarks(t *testing.T) {
	lines := []string{"a.", "b'", `c"`, "d!", "e?", "f。", "g।", "h؟", "i៕", "j។", "k…", "l\xff", "m"}
	want := map[string][]bool{
		"paper":     {true, true, true, true, true, false, false, false, false, false, false, false, false},
		"datatrove": {true, false, false, true, true, true, true, true, true, true, false, false, false},
	}
	for profile, ends := range want {
		c, _ := ProfileConfig(Profile(profile))
		for i, line := range lines {
			o := apply(t, "fineweb", c, line)
			if got := o.signals["fineweb_line_punct_frac"] == 1; got != ends[i] {
				t.Errorf("%s: %q ends with an end mark: %v, want %v", profile, line, got, ends[i])
			}
		}
	}
	// A lone invalid byte decodes as U+FFFD but is not that mark.
	c := DefaultConfig()
	c.FineWeb.EndMarks = []string{"\uFFFD"}
	for text, want := range map[string]float64{"a\uFFFD": 1, "a\xff": 0} {
		if o := apply(t, "fineweb", c, text); o.signals["fineweb_line_punct_frac"] != want {
			t.Errorf("end mark U+FFFD, %q: line punct frac %v, want %v", text, o.signals["fineweb_line_punct_frac"], want)
		}
	}
}
