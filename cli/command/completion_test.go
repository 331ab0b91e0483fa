package command

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/testenv"
)

// completionCases are command lines typed up to the cursor (the last word
// is the one completed) and the completions every shell must offer. FILES
// stands for the files of completionDir that start with the last word.
var completionCases = []completionCase{
	{"sluice de", []string{"decontaminate", "dedup", "demo"}},
	{"sluice -", []string{"--help", "--log-format", "--s3-endpoint", "--version", "-h", "-v"}},
	{"sluice dedup ", []string{"exact", "lines", "minhash"}},
	{"sluice memorize ", []string{"canaries", "probes", "score"}},
	{"sluice tasks s", []string{"split"}},
	{"sluice completion ", []string{"bash", "fish", "zsh"}},
	{"sluice help dedup m", []string{"minhash"}},
	{"sluice --log-format json ded", []string{"dedup"}},
	{"sluice convert --outp", []string{"--output"}},
	{"sluice convert --o", []string{"--output", "--overwrite"}},
	{"sluice tasks convert --s", []string{"--skip-invalid", "--system"}}, // not convert's --schema, --strict
	{"sluice dedup exact data.jsonl -o out --nor", []string{"--normalize"}},
	{"sluice man ", []string{"--help", "-h"}}, // no arguments: its flags
	{"sluice dedup minhash --threshold 0.8 da", []string{"FILES"}},
	{"sluice convert -o da", []string{"FILES"}},
	{"sluice convert data.jsonl -- -", []string{"FILES"}}, // none start with -
}

type completionCase struct {
	line string
	want []string
}

// completionDir is a directory with the files that argument completion
// offers.
func completionDir(t *testing.T) string {
	dir := t.TempDir()
	for _, f := range []string{"data.jsonl", "data two.jsonl", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "dataset"), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// wantCompletions is want with FILES replaced by the names in dir that
// start with prefix.
func wantCompletions(t *testing.T, dir, prefix string, want []string) []string {
	if !slices.Equal(want, []string{"FILES"}) {
		return want
	}
	names, err := filepath.Glob(filepath.Join(dir, prefix+"*"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, n := range names {
		out = append(out, filepath.Base(n))
	}
	return out
}

// completionScript writes `sluice completion SHELL` to a file named name
// in dir and returns its path.
func completionScript(t *testing.T, shell, dir, name string) string {
	t.Helper()
	code, out, errs := mainOutput("completion", shell)
	if code != 0 || errs != "" || out == "" {
		t.Fatalf("sluice completion %s: exit %d, stderr %q", shell, code, errs)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// shellQuote quotes s for bash and zsh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// caseSeparator is printed between the completions of two cases.
const caseSeparator = "@@"

// completions runs name with args in dir, a script that completes every
// case and prints caseSeparator after each, and returns the completions of
// each case, sorted, with any description after a tab, a directory's
// trailing slash and a leading --output= cut off.
func completions(t *testing.T, dir string, env []string, name string, args ...string) [][]string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", name, args, err, out)
	}
	all := [][]string{}
	lines := []string{}
	for _, l := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		l, _, _ = strings.Cut(l, "\t")
		switch l = strings.TrimSuffix(strings.TrimPrefix(l, "--output="), "/"); l {
		case "":
		case caseSeparator:
			slices.Sort(lines)
			all, lines = append(all, lines), []string{}
		default:
			lines = append(lines, l)
		}
	}
	return all
}

// checkCompletions compares the completions of each case with what it
// wants.
func checkCompletions(t *testing.T, shell, dir string, cases []completionCase, got [][]string) {
	t.Helper()
	if len(got) != len(cases) {
		t.Fatalf("%s: completions of %d cases, want %d: %q", shell, len(got), len(cases), got)
	}
	for i, tc := range cases {
		words := strings.Split(tc.line, " ")
		prefix := words[len(words)-1]
		prefix = prefix[strings.Index(prefix, "=")+1:]
		if want := wantCompletions(t, dir, prefix, tc.want); !slices.Equal(got[i], want) {
			t.Errorf("%s: %q<TAB> gives %q, want %q", shell, tc.line, got[i], want)
		}
	}
}

// quotedWords are the words of line, each quoted for bash and zsh.
func quotedWords(line string) []string {
	var quoted []string
	for _, w := range strings.Split(line, " ") {
		quoted = append(quoted, shellQuote(w))
	}
	return quoted
}

func TestCompletionUnknownShellIsUsageError(t *testing.T) {
	code, out, errs := mainOutput("completion", "tcsh")
	if code != 2 || out != "" || !strings.Contains(errs, "unknown subcommand tcsh of sluice completion") {
		t.Errorf("sluice completion tcsh: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestCompletionBash(t *testing.T) {
	bash := testenv.Require(t, "bash")
	dir := completionDir(t)
	script := completionScript(t, "bash", t.TempDir(), "sluice")

	out, err := exec.Command(bash, "-c", "source "+shellQuote(script)+" && complete -p sluice").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "complete -F _sluice sluice" {
		t.Fatalf("complete -p sluice: %v\n%s", err, out)
	}
	// The words as bash splits them: --output=da is --output, = and da.
	cases := append(slices.Clone(completionCases), completionCase{"sluice convert --output = da", []string{"FILES"}})
	run := "source " + shellQuote(script) + "\n"
	for _, tc := range cases {
		words := quotedWords(tc.line)
		run += "COMP_WORDS=(" + strings.Join(words, " ") + ") COMP_CWORD=" + strconv.Itoa(len(words)-1) +
			"\n_sluice\nprintf '%s\\n' \"${COMPREPLY[@]}\" " + caseSeparator + "\n"
	}
	checkCompletions(t, "bash", dir, cases, completions(t, dir, nil, bash, "-c", run))
}

func TestCompletionZsh(t *testing.T) {
	zsh := testenv.Require(t, "zsh")
	dir := completionDir(t)
	fpath := t.TempDir()
	script := completionScript(t, "zsh", fpath, "_sluice")
	home := []string{"HOME=" + t.TempDir(), "ZDOTDIR=" + t.TempDir()}

	// Sourced after compinit, the script registers itself for sluice.
	sourced := "autoload -U compinit\ncompinit -u -D\nsource " + shellQuote(script) + "\nprint -r -- $_comps[sluice]\nprint " + caseSeparator
	if got := completions(t, dir, home, zsh, "-c", sourced); len(got) != 1 || !slices.Equal(got[0], []string{"_sluice"}) {
		t.Fatalf("zsh: the sourced script completes sluice with %q", got)
	}
	// Installed in a directory of $fpath, compinit finds it, and the
	// completion function autoloads from it. zsh's builtins that add
	// matches are replaced by functions that print them.
	run := "fpath=(" + shellQuote(fpath) + " $fpath)\nautoload -U compinit\ncompinit -u -D\n" +
		"print -r -- $_comps[sluice]\nprint " + caseSeparator + "\n" + `_describe() {
  local a name=${@[-1]}
  for a in "${(@P)name}"; do a=${a%%:*}; [[ $a == ${PREFIX}* ]] && print -r -- $a; done
  return 0
}
_files() { local f; for f in ${PREFIX}*(N); do print -r -- $f; done }
compset() { PREFIX=${PREFIX#*=} }
`
	cases := append(slices.Clone(completionCases), completionCase{"sluice convert --output=da", []string{"FILES"}})
	for _, tc := range cases {
		words := quotedWords(tc.line)
		run += "words=(" + strings.Join(words, " ") + ") CURRENT=" + strconv.Itoa(len(words)) +
			" PREFIX=" + words[len(words)-1] + "\n_sluice\nprint " + caseSeparator + "\n"
	}
	got := completions(t, dir, home, zsh, "-c", run)
	if len(got) == 0 || !slices.Equal(got[0], []string{"_sluice"}) {
		t.Fatalf("zsh: compinit with the script in $fpath completes sluice with %q", got)
	}
	checkCompletions(t, "zsh", dir, cases, got[1:])
}

func TestCompletionFish(t *testing.T) {
	fish := testenv.Require(t, "fish")
	dir := completionDir(t)
	config := t.TempDir()
	completionScript(t, "fish", filepath.Join(config, "fish", "completions"), "sluice.fish")
	// Installed in ~/.config/fish/completions, fish loads it by itself
	// when a sluice command is on the PATH.
	bin := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(bin, "sluice")); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + t.TempDir(), "XDG_CONFIG_HOME=" + config, "XDG_DATA_HOME=" + t.TempDir(),
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
	cases := append(slices.Clone(completionCases), completionCase{"sluice convert --output=da", []string{"FILES"}})
	run := ""
	for _, tc := range cases {
		run += "complete -C " + shellQuote(tc.line) + "\necho " + caseSeparator + "\n"
	}
	checkCompletions(t, "fish", dir, cases, completions(t, dir, env, fish, "-c", run))
}

// The tree the scripts are written from holds every command and, for each,
// every visible flag.
func TestCompletionTreeHoldsEveryCommandAndFlag(t *testing.T) {
	app := NewApp(Streams{})
	nodes := map[string]completionNode{}
	for _, n := range completionTree(app) {
		nodes[n.Path] = n
	}
	for _, path := range commandPaths() {
		n, ok := nodes[path]
		if !ok {
			t.Errorf("no completion of sluice %s", path)
			continue
		}
		cmd := app.Command(strings.Fields(path)[0])
		for _, name := range strings.Fields(path)[1:] {
			cmd = cmd.Command(name)
		}
		for _, f := range cmd.VisibleFlags() {
			for _, name := range f.Names() {
				if !slices.ContainsFunc(n.Flags, func(w completionWord) bool { return w.Name == dashed(name) }) {
					t.Errorf("sluice %s: flag %s is not completed", path, dashed(name))
				}
			}
		}
	}
	if root := nodes[""]; len(root.Subs) != len(commandNames(app.Commands))+1 {
		t.Errorf("sluice <TAB> completes %d commands, want %d and help", len(root.Subs), len(commandNames(app.Commands)))
	}
}
