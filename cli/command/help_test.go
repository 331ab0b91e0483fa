package command

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
)

// commandPaths are the names of every command and subcommand, e.g.
// "convert" and "dedup exact", in the order the help lists them.
func commandPaths() []string {
	var paths []string
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Name == "help" {
				continue
			}
			paths = append(paths, prefix+c.Name)
			walk(prefix+c.Name+" ", c.Subcommands)
		}
	}
	walk("", NewApp(Streams{}).Commands)
	return paths
}

// mainOutput runs Main on args after "sluice" and returns its exit code,
// standard output and standard error.
func mainOutput(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(append([]string{"sluice"}, args...), nil, &out, &errb)
	return code, out.String(), errb.String()
}

// helpOf returns the --help output of a command path such as "dedup exact".
func helpOf(t *testing.T, path string) string {
	t.Helper()
	code, out, errs := mainOutput(append(strings.Fields(path), "--help")...)
	if code != 0 || errs != "" {
		t.Fatalf("sluice %s --help: exit %d, stderr %q", path, code, errs)
	}
	return out
}

// valueName is what an option may show after its name: urfave/cli's
// "value" or a name written in capitals (N, FILE, SOURCE=WEIGHT,...).
var valueName = regexp.MustCompile(`^(value|[A-Z][A-Z0-9_]*([=,.:|\[\]]+[A-Z0-9_.]*)*)$`)

// Usage strings are written as they should read: a word in backticks
// would become the option's value name ("--output output", "--phase
// sluice", "--normalize --normalize").
func TestHelpShowsNoPlaceholderFromBackticks(t *testing.T) {
	for _, path := range append(commandPaths(), "") {
		options := false
		for _, line := range strings.Split(helpOf(t, path), "\n") {
			if strings.HasSuffix(line, "OPTIONS:") {
				options = true
			}
			if !options || !strings.HasPrefix(line, "   -") {
				continue // not the first line of an option
			}
			names, _, _ := strings.Cut(strings.TrimSpace(line), "  ")
			for _, name := range strings.Split(names, ", ") {
				f := strings.Fields(name)
				if len(f) > 2 || (len(f) == 2 && !valueName.MatchString(f[1])) {
					t.Errorf("sluice %s --help: option shown as %q:\n%s", path, name, line)
				}
			}
		}
	}
}

func TestHelpFitsEightyColumns(t *testing.T) {
	for _, path := range append(commandPaths(), "") {
		for _, line := range strings.Split(helpOf(t, path), "\n") {
			if n := utf8.RuneCountInString(line); n > 80 {
				t.Errorf("sluice %s --help: a line of %d characters:\n%s", path, n, line)
			}
		}
	}
}

func TestWrapHelpLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"   short", "   short"},
		{"   one two three four", "   one two three\n   four"},
		{"   -f v  one two three four five", "   -f v  one two\n         three four\n         five"},
		{"   averyveryverylongword", "   averyveryverylongword"},
	} {
		if got := wrapHelpLine(tc.in, 20); got != tc.want {
			t.Errorf("wrapHelpLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestHelpHasExamples(t *testing.T) {
	for _, path := range commandPaths() {
		help := helpOf(t, path)
		_, ex, ok := strings.Cut(help, "Examples:\n")
		if !ok || !strings.HasPrefix(ex, "     sluice "+path) {
			t.Errorf("sluice %s --help: no example of the command:\n%s", path, help)
		}
	}
}

func TestHelpCommandShowsTheHelpOfEveryCommand(t *testing.T) {
	for _, path := range commandPaths() {
		want := helpOf(t, path)
		code, out, errs := mainOutput(append([]string{"help"}, strings.Fields(path)...)...)
		if code != 0 || out != want {
			t.Errorf("sluice help %s: exit %d, stderr %q, output\n%s\nwant\n%s", path, code, errs, out, want)
		}
	}
	if _, out, _ := mainOutput("dedup", "help", "exact"); out != helpOf(t, "dedup exact") {
		t.Errorf("sluice dedup help exact:\n%s", out)
	}
}

func TestUnknownNamesAreOneUsageError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"nosuchcmd"}, "sluice: error: unknown command nosuchcmd; see sluice --help\n"},
		{[]string{"convrt", "in.jsonl"}, "sluice: error: unknown command convrt; did you mean convert?\n"},
		{[]string{"convert", "in.jsonl", "--bogus-flag"}, "sluice: error: unknown flag --bogus-flag for sluice convert; see sluice convert --help\n"},
		{[]string{"convert", "--workrs=2", "in.jsonl"}, "sluice: error: unknown flag --workrs for sluice convert; did you mean --workers?\n"},
		{[]string{"dedup", "exact", "-normalise"}, "sluice: error: unknown flag -normalise for sluice dedup exact; did you mean --normalize?\n"},
		{[]string{"--log-formt", "json"}, "sluice: error: unknown flag --log-formt for sluice; did you mean --log-format?\n"},
		{[]string{"dedup", "exat"}, "sluice: error: unknown subcommand exat of sluice dedup; did you mean exact?\n"},
		{[]string{"dedup"}, "sluice: error: sluice dedup needs a subcommand: minhash, lines, exact\n"},
		{[]string{"memorize"}, "sluice: error: sluice memorize needs a subcommand: probes, canaries, score\n"},
		{[]string{"tasks"}, "sluice: error: sluice tasks needs a subcommand: validate, convert, split\n"},
	} {
		code, out, errs := mainOutput(tc.args...)
		if code != 2 || out != "" || errs != tc.want {
			t.Errorf("sluice %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, out, errs, tc.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "abc", 3}, {"convert", "convert", 0}, {"convrt", "convert", 1}, {"kitten", "sitting", 3}, {"exat", "exact", 1}} {
		if got := editDistance(tc.a, tc.b); got != tc.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
