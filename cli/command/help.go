package command

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// helpWidth is the widest line the help prints.
const helpWidth = 80

func init() {
	cli.HelpPrinter = printHelp
	flagString := cli.FlagStringer
	cli.FlagStringer = func(f cli.Flag) string { return repeatedValue.ReplaceAllString(flagString(f), "") }
}

// repeatedValue is the " [ --name VALUE ]" urfave/cli adds to the names of
// a flag that takes a list, which would double the width of the names.
var repeatedValue = regexp.MustCompile(` \[ -[^\t]* \]`)

// printHelp prints urfave/cli's help with every line wrapped to helpWidth
// columns. The lines of a paragraph written wider than that are joined
// before they are wrapped again.
func printHelp(w io.Writer, templ string, data any) {
	var b bytes.Buffer
	cli.HelpPrinterCustom(&b, templ, data, nil)
	lines := strings.Split(b.String(), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		for i+1 < len(lines) && continuesParagraph(line, lines[i+1]) {
			line += " " + strings.TrimSpace(lines[i+1])
			i++
		}
		if i > 0 {
			io.WriteString(w, "\n")
		}
		io.WriteString(w, wrapHelpLine(line, helpWidth))
	}
}

// continuesParagraph reports whether next goes on from a line of prose
// too wide for the help: same indentation, neither a heading nor a table
// row.
func continuesParagraph(line, next string) bool {
	lead := indentOf(line)
	return utf8.RuneCountInString(line) > helpWidth && hangingIndent(line, helpWidth) == lead &&
		strings.TrimSpace(next) != "" && indentOf(next) == lead && hangingIndent(next, helpWidth) == lead &&
		!strings.HasSuffix(line, ":") && !strings.HasSuffix(next, ":")
}

func indentOf(line string) int { return len(line) - len(strings.TrimLeft(line, " ")) }

// wrapHelpLine breaks a line longer than width at spaces. The lines it
// adds start under the line's text or, in a table (two or more spaces
// between a name and its text), under the text column.
func wrapHelpLine(line string, width int) string {
	pad := strings.Repeat(" ", hangingIndent(line, width/2))
	var out []string
	for utf8.RuneCountInString(line) > width {
		cut := strings.LastIndexByte(line[:runeOffset(line, width+1)], ' ')
		if cut <= len(pad) || strings.TrimSpace(line[:cut]) == "" {
			break // one word wider than the line: left as it is
		}
		out = append(out, strings.TrimRight(line[:cut], " "))
		line = pad + strings.TrimLeft(line[cut:], " ")
	}
	return strings.Join(append(out, line), "\n")
}

// hangingIndent is the column where line's text starts: after the leading
// spaces, or after the first gap of two spaces when that is before max.
func hangingIndent(line string, max int) int {
	text := strings.TrimLeft(line, " ")
	lead := indentOf(line)
	if i := strings.Index(text, "  "); i > 0 {
		col := len(line) - len(strings.TrimLeft(text[i:], " "))
		if col <= max {
			return col
		}
	}
	return lead
}

// runeOffset is the byte offset of s's nth rune, or len(s).
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
