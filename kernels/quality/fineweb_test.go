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
	// datatrove, counting the five blank lines as short lines, fails it.
	text := lineOf(0, 80) + ".\n\n\n\n\n\n" + lineOf(100, 80) + "."
	want := map[string]float64{"paper": 0, "datatrove": 5.0 / 7, "dolma": 0, "nemo": 0}
	for profile, short := range want {
		c, _ := ProfileConfig(profile)
		o := apply(t, "fineweb", c, text)
		if !near(o.signals["fineweb_short_line_frac"], short) {
			t.Errorf("%s: short line fraction %v, want %v", profile, o.signals["fineweb_short_line_frac"], short)
		}
		wantFail := ""
		if profile == "datatrove" {
			wantFail = "short_line_frac"
		}
		if o.fail != wantFail {
			t.Errorf("%s: fail %q, want %q", profile, o.fail, wantFail)
		}
	}
}
