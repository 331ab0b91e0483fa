package command

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cpuguy83/go-md2man/v2/md2man"
)

// manPath is the committed copy of the manual page.
var manPath = filepath.Join("..", "..", "docs", "sluice.1")

func manOutput(t *testing.T) string {
	t.Helper()
	code, out, errs := mainOutput("man")
	if code != 0 || errs != "" {
		t.Fatalf("sluice man: exit %d, stderr %q", code, errs)
	}
	return out
}

func TestManPageCommittedIsCurrent(t *testing.T) {
	committed, err := os.ReadFile(manPath)
	if err != nil {
		t.Fatalf("%v; write it with: go run . man > docs/sluice.1", err)
	}
	got := manOutput(t)
	if got == string(committed) {
		return
	}
	want, have := strings.Split(got, "\n"), strings.Split(string(committed), "\n")
	line := 0
	for line < min(len(want), len(have)) && want[line] == have[line] {
		line++
	}
	t.Errorf("docs/sluice.1 is not what sluice man prints (first difference at line %d); regenerate it with: go run . man > docs/sluice.1", line+1)
}

// manFlag is how the page writes a flag: --output as \-\-output, with
// minus signs.
func manFlag(name string) string { return strings.ReplaceAll(dashed(name), "-", `\-`) }

// The page has its NAME section (read by whatis and apropos), then a
// subsection for every command and subcommand listing all its flags.
func TestManPageHasEveryCommandAndFlag(t *testing.T) {
	page := manOutput(t)
	if !strings.Contains(page, ".SH NAME\nsluice \\- turn raw text corpora") {
		t.Errorf("no NAME section of the form whatis reads:\n%s", page[:min(len(page), 400)])
	}
	for _, h := range []string{".TH SLUICE 1 ", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH GLOBAL OPTIONS", ".SH COMMANDS", ".SH EXIT STATUS"} {
		if !strings.Contains(page, "\n"+h) {
			t.Errorf("no %s", h)
		}
	}
	for _, code := range []string{"0", "1", "2", "130"} {
		if !strings.Contains(page, ".TP\n\\fB"+code+"\\fP\n") {
			t.Errorf("exit code %s is not described", code)
		}
	}
	for i, r := range page {
		if r >= 0x80 || (r == '-' && (i == 0 || page[i-1] != '\\')) {
			t.Fatalf("at byte %d, %q is not escaped for troff: %q", i, r, page[max(0, i-40):i+1])
		}
	}
	app := NewApp(Streams{})
	global, _, _ := strings.Cut(page[strings.Index(page, ".SH GLOBAL OPTIONS"):], ".SH COMMANDS")
	for _, f := range app.VisibleFlags() {
		if !strings.Contains(global, "\\fB"+manFlag(f.Names()[0])+"\\fP") {
			t.Errorf("global flag --%s is not in GLOBAL OPTIONS", f.Names()[0])
		}
	}
	for _, path := range commandPaths() {
		_, section, ok := strings.Cut(page, "\n.SS sluice "+path+"\n")
		if !ok {
			t.Errorf("no subsection for sluice %s", path)
			continue
		}
		section, _, _ = strings.Cut(section, "\n.S")
		cmd := app.Command(strings.Fields(path)[0])
		for _, name := range strings.Fields(path)[1:] {
			cmd = cmd.Command(name)
		}
		if !strings.Contains(section, strings.ReplaceAll(cmd.Usage[:min(len(cmd.Usage), 20)], "-", `\-`)) {
			t.Errorf("sluice %s: the usage %q is not in its subsection", path, cmd.Usage)
		}
		for _, f := range cmd.VisibleFlags() {
			for _, name := range f.Names() {
				if !strings.Contains(section, "\\fB"+manFlag(name)+"\\fP") {
					t.Errorf("sluice %s: flag %s is not in its subsection", path, dashed(name))
				}
			}
		}
	}
}

// Text written for the terminal comes out as written: no emphasis from
// asterisks or underscores, no heading or list from a line's first
// character, code from backquote pairs, indented lines kept as lines. (\&
// is troff's empty character, which go-md2man puts before a period.)
func TestManText(t *testing.T) {
	md := mdText("Reads data/*.parquet and _extra_ columns [x]; see `sluice demo`.\n" +
		"# not a heading, 1. not a list\n" +
		"Formats:\n  chat     {\"messages\": [...]}\n  sharegpt {\"conversations\": [...]}\n" +
		"- not a list either.")
	got := string(md2man.Render([]byte(md)))
	for _, want := range []string{
		"\n.PP\nReads data/*\\&.parquet and _extra_ columns [x]; see \\fBsluice demo\\fR\\&.\n# not a heading, 1. not a list\nFormats:\n",
		".EX\nchat     {\"messages\": [...]}\nsharegpt {\"conversations\": [...]}\n.EE\n",
		"\n.PP\n- not a list either.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered\n%s\nwithout\n%s", got, want)
		}
	}
}
