package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"strings"
)

//go:embed page.html
var pageText string

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"thousands": thousands,
	"compact":   func(n int64) string { return compact(float64(n)) },
	"percent":   percent,
	"number":    number,
	"seconds":   seconds,
	"bytes":     humanBytes,
	"json": func(v any) string {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return fmt.Sprint(v)
		}
		return string(b)
	},
	"command":  shellJoin,
	"bdi":      isolate,
	"stepName": func(r *Report, s Step) string { return r.stepName(s) },
	"gone":     func(s Step) int64 { return s.RowsIn + s.Inserted - s.RowsOut },
	"most":     func(a, b int64) int64 { return max(a, b) },
	"inc":      func(i int) int { return i + 1 },
	"sub":      func(a, b int) int { return a - b },
}).Parse(pageText))

// Snippet is the length at which example texts are cut.
func (rep *Report) Snippet() int { return rep.opts.Snippet }

// WriteHTML writes the page: the report, and the comparison with another
// run when c is not nil.
//
// Every string that comes from the data, the file names or the command
// line is isolated (<bdi>, or dir="auto" on a block of text), so that a
// right-to-left name cannot turn the text around it; and bidi controls
// that would run past their string are written as code points, in the
// whole page, charts and attributes included.
func WriteHTML(w io.Writer, rep *Report, c *Comparison) error {
	var b strings.Builder
	err := page.Execute(&b, struct {
		R *Report
		C *Comparison
	}{rep, c})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, neutralizeBidi(b.String()))
	return err
}

// isolate writes s as text in a <bdi> element: its direction is its own
// and does not leak into the text around it.
func isolate(s string) template.HTML {
	return template.HTML("<bdi>" + template.HTMLEscapeString(s) + "</bdi>")
}

// shellJoin writes a command line as a POSIX shell would read it.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:@%+=,") == "" {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
