package report

import (
	"strings"
	"testing"
)

func TestSnippetCutsAtAWord(t *testing.T) {
	s, cut := snippet("one two three four five six", 14)
	if !cut || s != "one two three" {
		t.Errorf("snippet = %q, %v", s, cut)
	}
	if s, cut := snippet("héllo", 5); cut || s != "héllo" {
		t.Errorf("a text of n characters is whole: %q %v", s, cut)
	}
}

func TestErrorKindDropsPositions(t *testing.T) {
	for in, want := range map[string]string{
		"malformed JSON: unterminated string at byte 721":   "malformed JSON: unterminated string",
		"malformed JSON: expected a member name at byte 1":  "malformed JSON: expected a member name",
		"line longer than --max-line-bytes":                 "line longer than --max-line-bytes",
		`text: want a string, got number: "12"`:             "text: want a string, got number",
		"invalid UTF-8 at offset 4 (--invalid-utf8 strict)": "invalid UTF-8",
	} {
		if got := errorKind(in); got != want {
			t.Errorf("errorKind(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSizeCategory(t *testing.T) {
	for n, want := range map[int64]string{0: "n<1K", 999: "n<1K", 1000: "1K<n<10K", 1_000_000: "1M<n<10M", 2e12: "n>1T"} {
		if got := sizeCategory(n); got != want {
			t.Errorf("sizeCategory(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestFormat(t *testing.T) {
	if got := thousands(1234567); got != "1,234,567" {
		t.Error(got)
	}
	if got := compact(38585); got != "38.6k" {
		t.Error(got)
	}
	if got := percent(1, 3); got != "33.3%" {
		t.Error(got)
	}
}

// A chart has one hover region per mark, its titles and names escaped.
func TestChartMarksAndEscaping(t *testing.T) {
	name := `</svg><script>alert(1)</script>`
	c, err := barChart(barSpec{id: "x", title: "t " + name, valueLabel: "rows", categories: []string{name, "b"},
		series: []series{{Name: "rows", Color: otherColor, Values: []float64{3, 5}, Titles: []string{name + " 3", "b 5"}}},
		labels: []string{"3", "5"}})
	if err != nil {
		t.Fatal(err)
	}
	svg := string(c.SVG)
	if c.Marks != 2 || strings.Count(svg, `class="mark"`) != 2 {
		t.Errorf("%d marks, %d hover regions", c.Marks, strings.Count(svg, `class="mark"`))
	}
	if strings.Contains(svg, "<script") || strings.Count(svg, "</svg>") != 1 || !strings.HasSuffix(svg, "</svg>\n") {
		t.Errorf("markup of a name came through:\n%s", svg)
	}
	if !strings.Contains(svg, "&lt;/svg&gt;&lt;script&gt;alert(1)&lt;/script&gt; 3</title>") {
		t.Errorf("hover title not escaped as text")
	}
	if !strings.HasPrefix(svg, `<svg class="chart" viewBox="0 0 480 `) {
		t.Errorf("the chart does not scale with the page: %.80s", svg)
	}
}

// The marks of a log(1+x) axis from 0 are 0 and round values from 1 up,
// not a crowd of fractions next to 0.
func TestLog1pTicks(t *testing.T) {
	var labels []string
	for _, tk := range (log1pTicks{}).Ticks(0, 4000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	if got := strings.Join(labels, " "); got != "0 1 10 100 1000" {
		t.Errorf("labels %q", got)
	}
	if n := (log1pScale{}).Normalize(0, 4000, 4000); n != 1 {
		t.Errorf("the top of the axis normalizes to %g", n)
	}
}
