package tasks

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// ShownPerKind is how many places the text report lists for each kind of
// issue; the JSON report lists them all.
const ShownPerKind = 5

// WriteText prints the report for people: each file's format, the issues
// grouped by kind with their first places and one message, and the
// statistics.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, f := range r.Files {
		fmt.Fprintf(&b, "%s: %s, %d examples in %d lines", f.Path, f.Format, f.Examples, f.Lines)
		if f.BlankLines > 0 {
			fmt.Fprintf(&b, " (and %d blank)", f.BlankLines)
		}
		if len(f.Mixed) > 0 {
			var parts []string
			for _, name := range formatNames[1:] {
				if n := f.Mixed[name]; n > 0 {
					parts = append(parts, fmt.Sprintf("%d %s", n, name))
				}
			}
			fmt.Fprintf(&b, "; mixed: %s line(s)", strings.Join(parts, ", "))
		}
		b.WriteByte('\n')
	}
	writeIssues(&b, "errors", r.Errors)
	writeIssues(&b, "warnings", r.Warnings)
	r.writeStats(&b)
	if r.OK() {
		fmt.Fprintf(&b, "\nOK: no errors, %d warning(s)\n", len(r.Warnings))
	} else {
		fmt.Fprintf(&b, "\nFAILED: %d error(s) in %d line(s), %d warning(s)\n", len(r.Errors), linesWith(r.Errors), len(r.Warnings))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func linesWith(issues []Issue) int {
	n := 0
	for i, is := range issues {
		if i == 0 || is.File != issues[i-1].File || is.Line != issues[i-1].Line {
			n++
		}
	}
	return n
}

func writeIssues(b *strings.Builder, title string, issues []Issue) {
	if len(issues) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s: %d\n", title, len(issues))
	byKind := map[Kind][]Issue{}
	for _, is := range issues {
		byKind[is.Kind] = append(byKind[is.Kind], is)
	}
	oneFile := true
	for _, is := range issues {
		oneFile = oneFile && is.File == issues[0].File
	}
	for _, k := range Kinds() {
		list := byKind[k]
		if len(list) == 0 {
			continue
		}
		var places []string
		for _, is := range list[:min(len(list), ShownPerKind)] {
			if oneFile {
				places = append(places, "line "+strconv.FormatInt(is.Line, 10))
			} else {
				places = append(places, is.File+":"+strconv.FormatInt(is.Line, 10))
			}
		}
		more := ""
		if len(list) > ShownPerKind {
			more = fmt.Sprintf(" and %d more", len(list)-ShownPerKind)
		}
		fmt.Fprintf(b, "  %-24s %5d  %s%s\n", k, len(list), strings.Join(places, ", "), more)
		fmt.Fprintf(b, "  %-24s %5s  e.g. %s\n", "", "", clip(list[0].Msg, 100))
	}
}

func (r *Report) writeStats(b *strings.Builder) {
	s := r.Stats
	fmt.Fprintf(b, "\nstatistics: %d examples, %d without errors\n", s.Examples, s.ValidExamples)
	if s.Examples == 0 {
		return
	}
	rows := [][]string{{"", "p50", "p90", "max", "total"}}
	row := func(name string, d *Distribution) {
		if d != nil {
			rows = append(rows, []string{name, strconv.FormatInt(d.P50, 10), strconv.FormatInt(d.P90, 10),
				strconv.FormatInt(d.Max, 10), strconv.FormatInt(d.Total, 10)})
		}
	}
	row("turns per example", &s.Turns)
	if s.Tokens != nil {
		row("tokens per example", s.Tokens)
		row("  system", s.RoleTokens.System)
		row("  user", s.RoleTokens.User)
		row("  assistant", s.RoleTokens.Assistant)
		row("  tool", s.RoleTokens.Tool)
	}
	widths := make([]int, len(rows[0]))
	for _, rw := range rows {
		for i, c := range rw {
			widths[i] = max(widths[i], len(c))
		}
	}
	for _, rw := range rows {
		fmt.Fprintf(b, "  %-*s", widths[0], rw[0])
		for i, c := range rw[1:] {
			fmt.Fprintf(b, "  %*s", widths[i+1], c)
		}
		b.WriteByte('\n')
	}
	if s.Tokens == nil {
		b.WriteString("  tokens not counted\n")
		return
	}
	if limit := r.Options.MaxTokens; limit > 0 {
		fmt.Fprintf(b, "  over %d tokens (would be truncated): %d\n", limit, s.Truncated)
	}
	fmt.Fprintf(b, "  training tokens per epoch (%s, examples without errors): %d\n", r.Tokenizer, s.EpochTokens)
}
