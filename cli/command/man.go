package command

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/cpuguy83/go-md2man/v2/md2man"
	"github.com/urfave/cli/v2"
)

func manCommand(s Streams) *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print the manual page (troff) on standard output",
		Description: "The page holds every command with its description, examples and flags, as their --help shows\n" +
			"them, and the exit codes. The repository keeps a copy in docs/sluice.1.",
		Action: action(func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("man takes no arguments, got %q", c.Args().First())
			}
			_, err := io.WriteString(s.Out, manPage(c.App))
			return err
		}),
	}
}

// manPage renders app's manual page, section 1, in troff: the command tree
// written as Markdown, which go-md2man turns into man macros.
func manPage(app *cli.App) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n\n", args...) }
	name := app.Name
	p("%% %s 1 \"\" \"%s %s\" \"User Commands\"", strings.ToUpper(name), name, app.Version)
	p("# NAME")
	p("%s - %s", name, mdEscape(app.Usage))
	p("# SYNOPSIS")
	p("**%s** [*GLOBAL OPTIONS*] *COMMAND* [*SUBCOMMAND*] [*OPTIONS*] [*ARGUMENTS*...]", name)
	p("**%s help** [*COMMAND* [*SUBCOMMAND*]]", name)
	p("# DESCRIPTION")
	b.WriteString(mdText(app.Description))
	p("Flags may come before or after the arguments; **--** ends the flags. Every command takes " +
		"**--help** (**-h**), which prints its usage, flags and examples, as **" + name + " help** *COMMAND* does.")
	p("# GLOBAL OPTIONS")
	flags := app.VisibleFlags()
	if !app.HideVersion && !hasFlag(flags, cli.VersionFlag) {
		flags = append(flags, cli.VersionFlag)
	}
	b.WriteString(mdFlags(flags))
	p("# COMMANDS")
	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden || c.Name == "help" {
				continue
			}
			cmdPath := strings.TrimPrefix(path+" "+c.Name, " ")
			fmt.Fprintf(&b, "### %s %s\n\n", name, cmdPath)
			fmt.Fprintf(&b, "**%s %s**", name, cmdPath)
			if len(c.Subcommands) > 0 {
				fmt.Fprintf(&b, " *SUBCOMMAND*")
			}
			if c.ArgsUsage != "" {
				fmt.Fprintf(&b, " %s", mdEscape(c.ArgsUsage))
			}
			b.WriteString("\n\n")
			b.WriteString(mdText(c.Usage))
			b.WriteString(mdText(c.Description))
			if sub := commandNames(c.Subcommands); len(sub) > 0 {
				fmt.Fprintf(&b, "Subcommands: %s.\n\n", mdEscape(strings.Join(sub, ", ")))
			}
			if flags := mdFlags(c.VisibleFlags()); flags != "" {
				b.WriteString("Options:\n\n" + flags)
			}
			walk(cmdPath, c.Subcommands)
		}
	}
	walk("", app.Commands)
	p("# EXIT STATUS")
	for _, e := range [][2]string{
		{"0", "Success; for **status**, a launch none of whose tasks failed."},
		{"1", "The job failed after its arguments were accepted: a read error (the message names the file and line), counts that do not add up, errors found by **tasks validate**, a failed task of a launch."},
		{"2", "Bad usage, found before any work: an unknown command or flag, a flag out of range, a missing input, a path that names no dataset, a refused output."},
		{"130", "Interrupted (Ctrl-C, SIGTERM): workers stopped, temporary files removed, any earlier output left as it was."},
	} {
		fmt.Fprintf(&b, "**%s**\n: %s\n\n", e[0], e[1])
	}
	p("# SEE ALSO")
	p("The README of the sluice repository, github.com/sluice\\-data/sluice, for the pipeline file, " +
		"the output layout and the manifest.")
	return troffEscapes(string(md2man.Render([]byte(b.String()))))
}

// unescapedHyphen is a - that is not the second character of a troff
// escape.
var unescapedHyphen = regexp.MustCompile(`(^|[^\\])-`)

// troffEscapes writes every - as \-, the minus sign, so that flags read
// and paste as typed whatever the man program's device (a bare - may print
// as a typographic hyphen), and every character beyond ASCII as the escape
// \[uXXXX], which troff reads whatever the locale.
func troffEscapes(page string) string {
	page = unescapedHyphen.ReplaceAllString(unescapedHyphen.ReplaceAllString(page, `$1\-`), `$1\-`)
	var b strings.Builder
	for _, r := range page {
		if r < 0x80 {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, `\[u%04X]`, r)
		}
	}
	return b.String()
}

func hasFlag(flags []cli.Flag, f cli.Flag) bool {
	for _, g := range flags {
		if g.Names()[0] == f.Names()[0] {
			return true
		}
	}
	return false
}

// mdFlags is a Markdown definition list of flags: their names and value
// names, then their usage with the default, as --help prints them.
func mdFlags(flags []cli.Flag) string {
	var b strings.Builder
	for _, f := range flags {
		if hasFlag([]cli.Flag{cli.HelpFlag}, f) {
			continue // in the DESCRIPTION, once for every command
		}
		names, usage, _ := strings.Cut(cli.FlagStringer(f), "\t")
		var terms []string
		for _, n := range strings.Split(names, ", ") {
			flag, value, ok := strings.Cut(n, " ")
			t := "**" + mdEscape(flag) + "**"
			if ok {
				t += " *" + mdEscape(value) + "*"
			}
			terms = append(terms, t)
		}
		fmt.Fprintf(&b, "%s\n: %s\n\n", strings.Join(terms, ", "), mdEscape(usage))
	}
	return b.String()
}

// mdText turns the text of a usage or description, written for a
// terminal, into Markdown: lines at the margin are paragraphs (a blank line
// or an indented line ends one), indented lines are kept as they are in a
// code block.
func mdText(text string) string {
	var b strings.Builder
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for i := 0; i < len(lines); {
		switch line := lines[i]; {
		case strings.TrimSpace(line) == "":
			i++
		case strings.HasPrefix(line, " "):
			b.WriteString("```\n")
			for ; i < len(lines) && strings.HasPrefix(lines[i], " "); i++ {
				b.WriteString(strings.TrimPrefix(lines[i], "  ") + "\n")
			}
			b.WriteString("```\n\n")
		default:
			var para []string
			for ; i < len(lines) && strings.TrimSpace(lines[i]) != "" && !strings.HasPrefix(lines[i], " "); i++ {
				para = append(para, mdEscape(lines[i]))
			}
			b.WriteString(strings.Join(para, "\n") + "\n\n")
		}
	}
	return b.String()
}

// mdEscape escapes the characters Markdown would read as markup, except
// backquotes that come in pairs: `sluice demo` is set as code.
func mdEscape(s string) string {
	lines := strings.Split(s, "\n")
	for i, line := range lines {
		lines[i] = mdEscapeLine(line)
	}
	return strings.Join(lines, "\n")
}

// lineStart matches what starts a heading, list, quote or definition at
// the start of a line: its character to escape is the last of the match.
var lineStart = regexp.MustCompile(`^(\s*[#>:%=+*-]|\s*\d+[.)])`)

func mdEscapeLine(line string) string {
	prefix := ""
	if m := lineStart.FindString(line); m != "" {
		prefix, line = m[:len(m)-1]+"\\"+m[len(m)-1:], line[len(m):]
	}
	parts := strings.Split(line, "`")
	code := len(parts)%2 == 1
	var b strings.Builder
	b.WriteString(prefix)
	for i, part := range parts {
		if code && i%2 == 1 {
			b.WriteString("`" + part + "`")
			continue
		}
		if i > 0 && !code {
			b.WriteString("\\`")
		}
		for _, r := range part {
			if strings.ContainsRune(`\*_[]<>&|`, r) {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}
