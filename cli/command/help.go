package command

import (
	"bytes"
	"io"
	"regexp"
	"runtime"
	"slices"
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

// examples are the invocations each command's help ends with, by command
// path.
var examples = map[string][]string{
	"convert":           {"sluice convert crawl/*.jsonl.gz -o dataset/", "sluice convert dataset/ -o all.jsonl.zst"},
	"extract":           {"sluice extract CC-MAIN-*.warc.gz -o pages/ --mode main"},
	"clean":             {"sluice clean raw/ -o clean/", "sluice clean raw/ -o clean/ --recipe fineweb", "sluice clean raw/ -o clean/ --normalize --filters gopher_quality,c4 --pii email"},
	"classify":          {"sluice classify corpus.jsonl.zst -o tagged/ --lang any", "sluice classify in.jsonl -o hq/ --lang en --classify hq=hq.bin:__label__hq:0.5"},
	"classify train":    {"sluice classify train --positive refs.jsonl --negative cc.jsonl -o hq.bin", "sluice classify train topics.parquet --label-field topic -o t.bin --split 0.9"},
	"classify test":     {"sluice classify test hq.bin heldout.jsonl", "sluice classify test t.bin topics.parquet --label-field topic --k 2 --json"},
	"run":               {"sluice run pipeline.yaml", "sluice run pipeline.yaml -o out/ --overwrite"},
	"recipe":            {"sluice recipe", "sluice recipe fineweb > pipeline.yaml", "sluice run pipeline.yaml -o clean/"},
	"launch":            {"sluice launch pipeline.yaml -o out/", "sluice launch pipeline.yaml -o out/ --executor slurm"},
	"task":              {"sluice task out/_plan.json --phase dedup_exact --index 0"},
	"status":            {"sluice status out/"},
	"dedup":             {"sluice dedup exact corpus/ -o deduped/"},
	"dedup minhash":     {"sluice dedup minhash corpus/ -o deduped/ --threshold 0.8"},
	"dedup lines":       {"sluice dedup lines corpus/ -o deduped/"},
	"dedup exact":       {"sluice dedup exact corpus/ -o deduped/ --normalize"},
	"decontaminate":     {"sluice decontaminate corpus/ --eval mmlu.jsonl --eval gsm8k.jsonl -o clean/"},
	"memorize":          {"sluice memorize probes corpus/ -o probes.jsonl"},
	"memorize probes":   {"sluice memorize probes corpus/ -o probes.jsonl --n 1000"},
	"memorize canaries": {"sluice memorize canaries -o canaries.jsonl --into corpus/"},
	"memorize score":    {"sluice memorize score --probes probes.jsonl --generations gen.jsonl"},
	"tokens":            {"sluice tokens corpus/", "sluice tokens corpus/ --tokenizer o200k_base -o counts.json"},
	"budget":            {"sluice budget --tokens 2.4B --params 1B", "sluice budget counts.json --epochs 4"},
	"tasks":             {"sluice tasks validate train.jsonl"},
	"tasks validate":    {"sluice tasks validate train.jsonl --tokenizer cl100k_base"},
	"tasks convert":     {"sluice tasks convert alpaca.jsonl -o chat.jsonl --to chat"},
	"tasks split":       {"sluice tasks split chat.jsonl -o splits/ --ratios 0.8,0.1,0.1"},
	"inspect":           {"sluice inspect dataset/", "sluice inspect data.parquet --json"},
	"demo":              {"sluice demo", "sluice demo -o demo-out/"},
	"verify":            {"sluice verify clean/", "sluice verify clean/ --deep --json"},
	"log":               {"sluice log deduped/", "sluice log deduped/ --json"},
	"diff":              {"sluice diff clean-v1/ clean-v2/", "sluice diff clean-v1/ clean-v2/ --rows-out changes/ --json"},
	"trace":             {"sluice trace deduped/ web-10293"},
	"rerun":             {"sluice rerun clean/ -o clean-again/"},
	"completion":        {"sluice completion bash > ~/.local/share/bash-completion/completions/sluice", "sluice completion zsh > \"${fpath[1]}/_sluice\"", "sluice completion fish > ~/.config/fish/completions/sluice.fish"},
	"completion bash":   {"sluice completion bash > ~/.local/share/bash-completion/completions/sluice", "source <(sluice completion bash)"},
	"completion zsh":    {"sluice completion zsh > \"${fpath[1]}/_sluice\"", "source <(sluice completion zsh)"},
	"completion fish":   {"sluice completion fish > ~/.config/fish/completions/sluice.fish", "sluice completion fish | source"},
	"man":               {"sluice man | man -l -", "sluice man > ~/.local/share/man/man1/sluice.1"},
}

// finishCommands gives every command below path its examples and the
// usage errors of an unknown flag or subcommand, and shows a --workers
// that defaults to the machine's cores as such.
func finishCommands(path string, cmds []*cli.Command) {
	for _, c := range cmds {
		p := strings.TrimPrefix(path+" "+c.Name, " ")
		if ex := examples[p]; len(ex) > 0 {
			c.Description = strings.TrimLeft(c.Description+"\n\nExamples:\n  "+strings.Join(ex, "\n  "), "\n")
		}
		c.OnUsageError = unknownFlag
		for _, f := range c.Flags {
			if w, ok := f.(*cli.IntFlag); ok && w.Name == "workers" && w.Value == runtime.NumCPU() && w.DefaultText == "" {
				w.DefaultText = "the number of cores" // the same help and man page on every machine
			}
		}
		if len(c.Subcommands) > 0 && c.Action == nil {
			c.Action = needSubcommand
		}
		finishCommands(p, c.Subcommands)
	}
}

// unknownFlag is the OnUsageError of the app and its commands: an unknown
// flag is named as given, with the flags it may be a misspelling of.
func unknownFlag(c *cli.Context, err error, _ bool) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return usageError{err}
	}
	given := dashed(name)
	for _, a := range commandLine(c) {
		if n, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "="); n == name && strings.HasPrefix(a, "-") {
			given, _, _ = strings.Cut(a, "=")
			break
		}
	}
	var names []string
	for _, f := range c.Command.VisibleFlags() {
		for _, n := range f.Names() {
			names = append(names, dashed(n))
		}
	}
	return usagef("unknown flag %s for %s%s", given, c.Command.HelpName, suggestion(dashed(name), names, c.Command.HelpName))
}

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// unknownCommand is the action of the app: an unknown command is named as
// given, with the commands it may be a misspelling of.
func unknownCommand(c *cli.Context) error {
	if !c.Args().Present() {
		return cli.ShowAppHelp(c)
	}
	return usagef("unknown command %s%s", c.Args().First(), suggestion(c.Args().First(), commandNames(c.App.Commands), "sluice"))
}

// needSubcommand is the action of a command that only groups subcommands.
func needSubcommand(c *cli.Context) error {
	names := commandNames(c.Command.Subcommands)
	if c.Args().Present() {
		return usagef("unknown subcommand %s of %s%s", c.Args().First(), c.Command.HelpName, suggestion(c.Args().First(), names, c.Command.HelpName))
	}
	return usagef("%s needs a subcommand: %s", c.Command.HelpName, strings.Join(names, ", "))
}

func commandNames(cmds []*cli.Command) []string {
	var names []string
	for _, c := range cmds {
		if !c.Hidden && c.Name != "help" {
			names = append(names, c.Name)
		}
	}
	return names
}

// suggestion ends an error about the unknown name: the names near it, or
// where the valid ones are listed.
func suggestion(name string, names []string, helpName string) string {
	if near := closest(name, names); len(near) > 0 {
		return "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return "; see " + helpName + " --help"
}

// closest returns the (at most three) names nearest to name in edit
// distance, when they are near enough to be a misspelling of it.
func closest(name string, names []string) []string {
	limit := max(2, utf8.RuneCountInString(name)/3)
	dist := map[string]int{}
	var near []string
	for _, n := range names {
		if d := editDistance(name, n); d <= limit {
			dist[n] = d
			near = append(near, n)
		}
	}
	slices.SortStableFunc(near, func(a, b string) int { return dist[a] - dist[b] })
	return near[:min(3, len(near))]
}

// editDistance is the Levenshtein distance between a and b: the fewest
// insertions, deletions and substitutions of characters that turn a into b.
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	prev := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := range s {
		cur := make([]int, len(t)+1)
		cur[0] = i + 1
		for j := range t {
			cost := 1
			if s[i] == t[j] {
				cost = 0
			}
			cur[j+1] = min(prev[j]+cost, prev[j+1]+1, cur[j]+1)
		}
		prev = cur
	}
	return prev[len(t)]
}
