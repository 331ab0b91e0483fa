package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/sluice-data/sluice/internal/testenv"
)

// TestReadme runs the shell examples of README.md, in the order they
// appear, the way a reader would after `go run . demo`: it builds sluice
// into a temporary directory put first on the PATH, runs `sluice demo`
// there, and runs every shell block with bash inside the demo's
// sluice-demo/examples directory, so that later blocks read what earlier
// ones wrote.
//
// Which blocks are shell blocks. A code block (fenced with no language or
// sh, shell, bash or console; or indented by four spaces) is one when its
// first line starts with "$ " (a session: commands and what they print)
// or its first word is a command (sluice, go, bash, cd, cat, head, duckdb,
// source, ... or an environment assignment VAR=...), comment lines before
// it aside. In a session, each
// "$ " line is a command (a line ending in \ continues it on the next) and
// the lines up to the next "$ " are its output; in any other shell block
// each line is a command, and lines starting with # are comments.
//
// Markers. An HTML comment on the last non-blank line before a block
// says what to do with it:
//
//	<!-- not run: REASON -->   the block is skipped, with REASON (it needs a
//	                           cluster, the network, hours, or runs the tests)
//	<!-- needs: PROGRAM... --> the block runs when every PROGRAM is on the
//	                           PATH and is skipped otherwise (CI installs no
//	                           duckdb command line, so this never fails there)
//	<!-- file: NAME -->        the block shows the example file NAME: its text
//	                           must be that file's, byte for byte
//
// Exit codes. Every command must exit 0, except a session command whose
// shown output has a line starting with "sluice: error:": that one must
// fail (exit code not 0), as the output shows.
//
// Output. A session command's output (stdout and stderr together) must
// match the lines shown under it after both are normalised: runs of spaces
// become one space, trailing spaces go, trailing blank lines go, and
// timings ("0.02s", "12ms"), rates ("0.4 MB/s") and a task's peak memory
// ("peak RSS of a task 35.7 MiB") become placeholders, since they change
// from run to run. Everything else, counts and sizes included, must be as
// shown. In the shown lines, "..." stands for any text within a line, a
// line that is only "..." for any number of lines, and a line starting
// with exactly one space continues the line above (the README wraps long
// JSON lines so).
//
// A failure names the README line of the command, the command, its exit
// code and its output. `go test -short` skips the test.
func TestReadme(t *testing.T) {
	if testing.Short() {
		t.Skip("skipping the README's examples in -short mode")
	}
	bash := testenv.Require(t, "bash")
	text, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks, err := parseReadme(string(text))
	if err != nil {
		t.Fatal(err)
	}

	tmp := t.TempDir()
	bin := filepath.Join(tmp, "bin")
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	build := exec.Command(goCmd, "build", "-o", filepath.Join(bin, "sluice"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -o %s .: %v\n%s", bin, err, out)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "TMPDIR="+t.TempDir())
	run := func(dir, command string) (string, int, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, bash, "--noprofile", "--norc", "-c", command)
		cmd.Dir, cmd.Env = dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return out.String(), exit.ExitCode(), nil
		}
		if err != nil {
			return out.String(), -1, err
		}
		return out.String(), 0, nil
	}
	if out, code, err := run(tmp, "sluice demo -o sluice-demo"); err != nil || code != 0 {
		t.Fatalf("sluice demo: exit code %d, %v\n%s", code, err, out)
	}
	examples := filepath.Join(tmp, "sluice-demo", "examples")

	ran := 0
	for _, b := range blocks {
		if name, ok := strings.CutPrefix(b.marker, "file:"); ok {
			name = strings.TrimSpace(name)
			want, err := os.ReadFile(filepath.Join(examples, filepath.FromSlash(name)))
			if err != nil {
				t.Errorf("README.md:%d: the block shows the example file %s, which the demo does not write: %v", b.line, name, err)
			} else if got := strings.Join(b.lines, "\n"); strings.TrimRight(string(want), "\n") != got {
				t.Errorf("README.md:%d: the block is not the example file %s; the file holds:\n%s", b.line, name, want)
			}
			continue
		}
		if !b.shell {
			if b.marker != "" {
				t.Errorf("README.md:%d: the marker <!-- %s --> stands before a block that is not a shell block", b.line, b.marker)
			}
			continue
		}
		t.Run(fmt.Sprintf("README.md:%d", b.line), func(t *testing.T) {
			if reason, ok := strings.CutPrefix(b.marker, "not run:"); ok {
				if strings.TrimSpace(reason) == "" {
					t.Fatalf("README.md:%d: a not-run marker without a reason", b.line)
				}
				t.Skipf("not run: %s", strings.TrimSpace(reason))
			}
			if progs, ok := strings.CutPrefix(b.marker, "needs:"); ok {
				for _, p := range strings.Fields(progs) {
					if _, err := exec.LookPath(p); err != nil {
						t.Skipf("needs %s, which is not installed", p)
					}
				}
			} else if b.marker != "" {
				t.Fatalf("README.md:%d: unknown marker <!-- %s -->", b.line, b.marker)
			}
			ran++
			for _, c := range b.commands {
				out, code, err := run(examples, c.text)
				if err != nil {
					t.Fatalf("README.md:%d: %s: %v\n%s", c.line, c.text, err, out)
				}
				wantFail := c.session && expectsError(c.output)
				switch {
				case wantFail && code == 0:
					t.Errorf("README.md:%d: %s\nexited 0; the README shows an error. Output:\n%s", c.line, c.text, out)
				case !wantFail && code != 0:
					t.Errorf("README.md:%d: %s\nexited %d. Output:\n%s", c.line, c.text, code, out)
				}
				if c.session {
					if err := matchOutput(c.output, out); err != nil {
						t.Errorf("README.md:%d: %s\n%v\nshown in the README:\n%s\nprinted:\n%s", c.line, c.text, err,
							strings.Join(c.output, "\n"), out)
					}
				}
			}
		})
	}
	if ran == 0 {
		t.Errorf("no README block ran")
	}
}

// readmeBlock is a code block of the README.
type readmeBlock struct {
	line     int      // README line of its first line, from 1
	lines    []string // its text, indentation of an indented block removed
	marker   string   // the text of the HTML comment just before it, if any
	shell    bool
	commands []readmeCommand
}

// readmeCommand is one command of a shell block.
type readmeCommand struct {
	line    int
	text    string
	session bool     // shown as "$ command" with its output
	output  []string // the output shown after a session command
}

var (
	markerRe   = regexp.MustCompile(`^<!--\s*(.*?)\s*-->$`)
	envAssign  = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)
	shellInfos = map[string]bool{"": true, "sh": true, "shell": true, "bash": true, "console": true}
	shellWords = map[string]bool{"sluice": true, "go": true, "bash": true, "sh": true, "cd": true, "(cd": true, "cat": true,
		"head": true, "tail": true, "ls": true, "duckdb": true, "source": true, "man": true, "echo": true, "export": true,
		"make": true, "kubectl": true, "sbatch": true, "fasttext": true}
)

// parseReadme returns the code blocks of a Markdown text.
func parseReadme(text string) ([]readmeBlock, error) {
	lines := strings.Split(text, "\n")
	var blocks []readmeBlock
	prevBlank, lastText := true, ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		trimmed := strings.TrimLeft(l, " ")
		switch {
		case strings.HasPrefix(trimmed, "```") && len(l)-len(trimmed) < 4:
			indent := len(l) - len(trimmed)
			b := readmeBlock{line: i + 2, marker: markerOf(lastText)}
			info := strings.TrimSpace(strings.TrimPrefix(trimmed, "```"))
			j := i + 1
			for ; j < len(lines) && !strings.HasPrefix(strings.TrimLeft(lines[j], " "), "```"); j++ {
				b.lines = append(b.lines, strings.TrimPrefix(lines[j], strings.Repeat(" ", indent)))
			}
			if j == len(lines) {
				return nil, fmt.Errorf("README.md:%d: a fenced block that does not end", i+1)
			}
			b.shell = shellInfos[info] && looksLikeShell(b.lines)
			blocks = append(blocks, b)
			i, prevBlank, lastText = j, false, "```"
			continue
		case prevBlank && strings.HasPrefix(l, "    ") && strings.TrimSpace(l) != "":
			b := readmeBlock{line: i + 1, marker: markerOf(lastText)}
			j := i
			for ; j < len(lines) && (strings.HasPrefix(lines[j], "    ") || strings.TrimSpace(lines[j]) == ""); j++ {
				b.lines = append(b.lines, lines[j])
			}
			for len(b.lines) > 0 && strings.TrimSpace(b.lines[len(b.lines)-1]) == "" {
				b.lines = b.lines[:len(b.lines)-1]
			}
			b.lines = dedent(b.lines)
			b.shell = looksLikeShell(b.lines)
			blocks = append(blocks, b)
			i, prevBlank, lastText = i+len(b.lines)-1, false, b.lines[len(b.lines)-1]
			continue
		}
		prevBlank = strings.TrimSpace(l) == ""
		if !prevBlank {
			lastText = strings.TrimSpace(l)
		}
	}
	for i := range blocks {
		if blocks[i].shell {
			blocks[i].commands = commandsOf(blocks[i])
		}
	}
	return blocks, nil
}

func markerOf(line string) string {
	if m := markerRe.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return ""
}

// dedent removes the indentation the lines share.
func dedent(lines []string) []string {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " ")); common < 0 || n < common {
			common = n
		}
	}
	out := make([]string, len(lines))
	for i, l := range lines {
		if len(l) >= common {
			out[i] = l[max(common, 0):]
		}
	}
	return out
}

// looksLikeShell tells whether a block's first line, past comment lines
// (# ...), is a command.
func looksLikeShell(lines []string) bool {
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if strings.HasPrefix(l, "$ ") {
			return true
		}
		first := strings.Fields(l)[0]
		return shellWords[first] || envAssign.MatchString(first)
	}
	return false
}

// commandsOf splits a shell block into its commands.
func commandsOf(b readmeBlock) []readmeCommand {
	var cmds []readmeCommand
	session := looksLikeSession(b.lines)
	for i := 0; i < len(b.lines); i++ {
		l := b.lines[i]
		if session && !strings.HasPrefix(l, "$ ") {
			if len(cmds) > 0 {
				c := &cmds[len(cmds)-1]
				c.output = append(c.output, l)
			}
			continue
		}
		text := strings.TrimPrefix(l, "$ ")
		if !session && (strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#")) {
			continue
		}
		c := readmeCommand{line: b.line + i, text: text, session: session}
		for strings.HasSuffix(strings.TrimRight(c.text, " "), "\\") && i+1 < len(b.lines) {
			i++
			c.text += "\n" + b.lines[i]
		}
		cmds = append(cmds, c)
	}
	return cmds
}

func looksLikeSession(lines []string) bool {
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			return strings.HasPrefix(l, "$ ")
		}
	}
	return false
}

// expectsError tells whether shown output says the command fails.
func expectsError(output []string) bool {
	for _, l := range output {
		if strings.HasPrefix(l, "sluice: error:") {
			return true
		}
	}
	return false
}

var (
	spacesRe  = regexp.MustCompile(`[ \t]+`)
	timeRe    = regexp.MustCompile(`\b\d+(\.\d+)?(ms|s)\b`)
	rateRe    = regexp.MustCompile(`\b\d+(\.\d+)? ?[KMGT]i?B/s\b`)
	peakRSSRe = regexp.MustCompile(`peak RSS of a task \d+(\.\d+)? [KMGT]?i?B`)
)

// normalizeLine makes a line of output comparable across runs.
func normalizeLine(l string) string {
	l = strings.TrimRight(spacesRe.ReplaceAllString(l, " "), " ")
	l = peakRSSRe.ReplaceAllString(l, "peak RSS of a task <memory>")
	l = rateRe.ReplaceAllString(l, "<rate>")
	return timeRe.ReplaceAllString(l, "<time>")
}

// outputLines splits printed output into normalised lines, without the
// trailing blank ones.
func outputLines(lines []string) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		out = append(out, normalizeLine(l))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// matchOutput checks printed output against the lines the README shows,
// by the rules in TestReadme's comment.
func matchOutput(shown []string, printed string) error {
	var joined []string
	for _, l := range shown {
		if len(joined) > 0 && len(l) > 1 && l[0] == ' ' && l[1] != ' ' {
			joined[len(joined)-1] += l[1:]
			continue
		}
		joined = append(joined, l)
	}
	want := outputLines(joined)
	got := outputLines(strings.Split(strings.TrimRight(printed, "\n"), "\n"))
	pats := make([]*regexp.Regexp, len(want))
	for i, w := range want {
		if w == "..." {
			continue
		}
		parts := strings.Split(w, "...")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		pats[i] = regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
	}
	memo := map[[2]int]bool{}
	var match func(i, j int) bool
	match = func(i, j int) bool {
		key := [2]int{i, j}
		if v, ok := memo[key]; ok {
			return v
		}
		var ok bool
		switch {
		case i == len(want):
			ok = j == len(got)
		case pats[i] == nil:
			ok = match(i+1, j) || j < len(got) && match(i, j+1)
		default:
			ok = j < len(got) && pats[i].MatchString(got[j]) && match(i+1, j+1)
		}
		memo[key] = ok
		return ok
	}
	if match(0, 0) {
		return nil
	}
	// Say where the lines part, reading them in step up to the first "...".
	for i := 0; i < len(want) && pats[i] != nil; i++ {
		switch {
		case i >= len(got):
			return fmt.Errorf("the output ends before the shown line %q", want[i])
		case !pats[i].MatchString(got[i]):
			return fmt.Errorf("line %d: shown %q, printed %q (normalised)", i+1, want[i], got[i])
		}
	}
	return fmt.Errorf("the output (%d lines) does not match the %d lines shown", len(got), len(want))
}

// TestReadmeRules checks how TestReadme reads blocks and compares output.
func TestReadmeRules(t *testing.T) {
	text := "Intro\n\n    sluice convert a.jsonl -o b/   # a comment\n    sluice inspect b/ \\\n        --json\n\n" +
		"<!-- not run: needs a cluster -->\n\n    sluice launch p.yaml --executor slurm\n\n" +
		"```\n$ sluice convert a.jsonl -o c.parquet\n10 rows in ...\n1 file(s), 1.0 KiB, in 0.02s (0.4 MB/s)\n...\n" +
		"$ head -1 x.jsonl\n{\"id\":\"1\",\n \"text\":\"...\"}\n```\n\n```sql\nSELECT 1;\n```\n\n    dataset/\n      data/\n"
	blocks, err := parseReadme(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 5 {
		t.Fatalf("%d blocks, want 5: %+v", len(blocks), blocks)
	}
	if b := blocks[0]; !b.shell || b.line != 3 || len(b.commands) != 2 || b.commands[1].line != 4 ||
		b.commands[1].text != "sluice inspect b/ \\\n    --json" {
		t.Errorf("command block: %+v", b)
	}
	if b := blocks[1]; !b.shell || b.marker != "not run: needs a cluster" {
		t.Errorf("marked block: %+v", b)
	}
	s := blocks[2]
	if !s.shell || len(s.commands) != 2 || !s.commands[0].session || s.commands[0].line != 12 || len(s.commands[0].output) != 3 {
		t.Fatalf("session block: %+v", s)
	}
	if blocks[3].shell || blocks[4].shell {
		t.Errorf("an SQL block or a directory listing taken for commands: %+v %+v", blocks[3], blocks[4])
	}

	shown := s.commands[0].output
	for _, tc := range []struct {
		printed string
		ok      bool
	}{
		{"10 rows in from 1 file(s): 10 written\n1 file(s),   1.0 KiB, in 1.50s (12.5 MB/s)\nmanifest: c.manifest.json\n", true},
		{"10 rows in total\n1 file(s), 1.0 KiB, in 3ms (0.1 MB/s)\n", true},
		{"11 rows in total\n1 file(s), 1.0 KiB, in 0.02s (0.4 MB/s)\n", false}, // counts are compared
		{"10 rows in total\n1 file(s), 1.1 KiB, in 0.02s (0.4 MB/s)\n", false}, // and sizes
		{"10 rows in total\n", false}, // a line is missing
	} {
		if err := matchOutput(shown, tc.printed); (err == nil) != tc.ok {
			t.Errorf("printed %q: match error %v, want a match: %v", tc.printed, err, tc.ok)
		}
	}
	wrapped := s.commands[1].output
	if err := matchOutput(wrapped, `{"id":"1","text":"anything at all"}`); err != nil {
		t.Errorf("a wrapped JSON line: %v", err)
	}
	if err := matchOutput(wrapped, `{"id":"2","text":"anything at all"}`); err == nil {
		t.Errorf("a wrapped JSON line matched another id")
	}
	if !expectsError([]string{"sluice: error: x.jsonl:3: bad"}) || expectsError([]string{"ok"}) {
		t.Errorf("expectsError")
	}
}
