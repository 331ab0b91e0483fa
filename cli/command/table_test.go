package command

import (
	"strings"
	"testing"
)

// Columns line up on screen whatever the cells hold: accented letters
// take one column, CJK characters two, combining marks none.
func TestTableAlignsByDisplayWidth(t *testing.T) {
	rows := [][]string{
		{"source", "docs", "n"},
		{"café", "7", "x"},
		{"cafe\u0301", "12", "y"},
		{"日本", "345", "z"},
		{"ab", "6", ""},
	}
	var b strings.Builder
	(&table{indent: "  ", right: []bool{false, true}}).print(&b, rows)
	want := "" +
		"  source  docs  n\n" +
		"  café       7  x\n" +
		"  cafe\u0301      12  y\n" +
		"  日本     345  z\n" +
		"  ab         6\n"
	if b.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", b.String(), want)
	}
	// Every full row is as wide on screen as the header.
	lines := strings.Split(b.String(), "\n")
	for _, line := range lines[1:4] {
		if w, want := displayWidth(line), displayWidth(lines[0]); w != want {
			t.Errorf("%q is %d columns wide, want %d", line, w, want)
		}
	}
}

func TestDisplayWidth(t *testing.T) {
	for s, want := range map[string]int{
		"":             0,
		"abc":          3,
		"a\tb":         3,
		"café":         4,
		"cafe\u0301":   4,
		"日本":           4,
		"ｆｕｌｌ":         8,
		"a\u200bb":     2,
		"Ωμέγα":        5,
		"한국어":          6,
		"emoji \u2603": 7,
	} {
		if got := displayWidth(s); got != want {
			t.Errorf("displayWidth(%q) = %d, want %d", s, got, want)
		}
	}
}
