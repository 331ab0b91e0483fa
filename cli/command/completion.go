package command

import (
	"io"
	"slices"
	"strings"
	"text/template"

	"github.com/urfave/cli/v2"
)

// The completion scripts are static: written once from the command tree
// (every command, subcommand and visible flag), they complete without
// running sluice at each key press. Each shell gets the same tree and the
// same walk over the words typed so far: flags (and the value after one that
// takes a value) are stepped over, a subcommand name moves down the tree,
// and the word being completed is then a flag value (a file), a flag, a
// subcommand, or an argument (a file).

func completionCommand(s Streams) *cli.Command {
	shell := func(name, install string) *cli.Command {
		return &cli.Command{
			Name:        name,
			Usage:       "print the " + name + " completion script",
			Description: install,
			Action: action(func(c *cli.Context) error {
				if c.NArg() > 0 {
					return usagef("completion %s takes no arguments, got %q", name, c.Args().First())
				}
				return writeCompletion(s.Out, c.App, name)
			}),
		}
	}
	return &cli.Command{
		Name:  "completion",
		Usage: "print a shell completion script for bash, zsh or fish on standard output",
		Description: "The script completes command and subcommand names, the flags of each command, and file paths\n" +
			"for arguments and flag values. It is written from this binary's commands: load it again after\n" +
			"an upgrade.",
		Subcommands: []*cli.Command{
			shell("bash", "With the bash-completion package, a script in ~/.local/share/bash-completion/completions is\n"+
				"loaded the first time sluice is completed; without it, source the script from ~/.bashrc."),
			shell("zsh", "Write it to a directory of $fpath before compinit runs (in ~/.zshrc), or source it in a shell\n"+
				"where compinit has run."),
			shell("fish", "fish loads it from ~/.config/fish/completions the first time sluice is completed."),
		},
	}
}

// completionNode is one command of the tree as the scripts see it.
type completionNode struct {
	Path   string           // "" for sluice itself, then "dedup", "dedup exact"...
	Subs   []completionWord // subcommand names
	Flags  []completionWord // every name of every visible flag: --output, -o...
	Valued []string         // the flag names that take a value
	Args   bool             // takes arguments (completed as file paths)
}

type completionWord struct{ Name, Desc string }

// completionTree lists app and every command below it, parents first.
func completionTree(app *cli.App) []completionNode {
	root := completionNode{Subs: commandWords(app.Commands)}
	root.Subs = append(root.Subs, completionWord{"help", "show the help of sluice or of a command"})
	flags := app.Flags
	if !app.HideVersion {
		flags = append(slices.Clone(flags), cli.VersionFlag)
	}
	root.Flags, root.Valued = flagWords(flags)
	nodes := []completionNode{root}
	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden || c.Name == "help" {
				continue
			}
			p := strings.TrimPrefix(path+" "+c.Name, " ")
			n := completionNode{Path: p, Subs: commandWords(c.Subcommands), Args: takesArgs(c)}
			n.Flags, n.Valued = flagWords(c.Flags)
			nodes = append(nodes, n)
			walk(p, c.Subcommands)
		}
	}
	walk("", app.Commands)
	return nodes
}

func commandWords(cmds []*cli.Command) []completionWord {
	var words []completionWord
	for _, c := range cmds {
		if c.Hidden || c.Name == "help" {
			continue
		}
		for _, n := range c.Names() {
			words = append(words, completionWord{n, c.Usage})
		}
	}
	return words
}

// flagWords returns the names of the visible flags, --help and -h last,
// and those that take a value. A flag whose value may be left out
// (--normalize) is completed as one that takes none.
func flagWords(flags []cli.Flag) (words []completionWord, valued []string) {
	seen := map[string]bool{}
	for i, f := range append(slices.Clone(flags), cli.HelpFlag) {
		name := f.Names()[0]
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() || seen[name] || name == cli.HelpFlag.Names()[0] && i < len(flags) {
			continue // hidden, or added to the app a second time when it ran
		}
		seen[name] = true
		d, _ := f.(cli.DocGenerationFlag)
		usage := ""
		if d != nil {
			usage = strings.ReplaceAll(d.GetUsage(), "`", "")
		}
		_, optional := optionalValues[name]
		for _, n := range f.Names() {
			words = append(words, completionWord{dashed(n), usage})
			if d != nil && d.TakesValue() && !optional {
				valued = append(valued, dashed(n))
			}
		}
	}
	return words, valued
}

// takesArgs reports whether a command takes arguments, by its ArgsUsage:
// "IN... -o OUT" does, "[-o OUT]" does not.
func takesArgs(c *cli.Command) bool {
	f := strings.Fields(c.ArgsUsage)
	return len(f) > 0 && !strings.HasPrefix(strings.TrimLeft(f[0], "[("), "-")
}

func writeCompletion(w io.Writer, app *cli.App, shell string) error {
	return completionTemplates.ExecuteTemplate(w, shell, struct {
		Name  string
		Nodes []completionNode
	}{app.Name, completionTree(app)})
}

var completionTemplates = template.Must(template.New("").Funcs(template.FuncMap{
	"names": func(words []completionWord) string {
		var s []string
		for _, w := range words {
			s = append(s, w.Name)
		}
		return strings.Join(s, " ")
	},
	"join": func(s []string) string { return strings.Join(s, " ") },
	// zq quotes a word for zsh (and bash) in single quotes.
	"zq": func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" },
	// zdesc is a name:description item of zsh's _describe.
	"zdesc": func(w completionWord) string {
		s := strings.ReplaceAll(w.Name, ":", `\:`) + ":" + w.Desc
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	},
	// fq quotes a string for fish in single quotes.
	"fq": func(s string) string {
		return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
	},
}).Parse(bashCompletion + zshCompletion + fishCompletion))

const bashCompletion = `{{define "bash"}}# bash completion for {{.Name}}, written by '{{.Name}} completion bash'.
# Load it in the running shell, or from ~/.bashrc:
#   source <({{.Name}} completion bash)

# _{{.Name}}_node sets subs, flags, valued (flags that take a value) and
# args (1 when the command takes file arguments) for the command path $1.
_{{.Name}}_node() {
    case "$1" in
{{- range .Nodes}}
    {{zq .Path}}) subs={{zq (names .Subs)}} flags={{zq (names .Flags)}} valued=' {{join .Valued}} ' args={{if .Args}}1{{else}}0{{end}} ;;
{{- end}}
    *) subs='' flags='' valued=' ' args=1 ;;
    esac
}

_{{.Name}}_files() {
    compopt -o filenames 2>/dev/null
    local f
    while IFS= read -r f; do COMPREPLY+=("$f"); done < <(compgen -f -- "$1")
}

_{{.Name}}() {
    local cur=${COMP_WORDS[COMP_CWORD]} cmdpath='' subs flags valued args w i skip=0 dashdash=0
    _{{.Name}}_node ''
    for ((i = 1; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if ((skip)); then
            [[ $w == = ]] || skip=0 # --flag=value is three words: --flag, = and value
            continue
        fi
        ((dashdash)) && continue
        case $w in
        --) dashdash=1 ;;
        =) skip=1 ;;
        -*) [[ $valued == *" $w "* ]] && skip=1 ;;
        *)
            [[ -z $cmdpath && $w == help ]] && continue
            if [[ " $subs " == *" $w "* ]]; then
                cmdpath=${cmdpath:+$cmdpath }$w
                _{{.Name}}_node "$cmdpath"
            fi
            ;;
        esac
    done
    [[ $cur == = ]] && cur=''
    COMPREPLY=()
    local IFS=$' \t\n'
    if ((skip || dashdash)); then
        _{{.Name}}_files "$cur"
    elif [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    elif [[ -n $subs ]]; then
        COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    elif ((args)); then
        _{{.Name}}_files "$cur"
    else
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    fi
}

complete -F _{{.Name}} {{.Name}}
{{end}}`

const zshCompletion = `{{define "zsh"}}#compdef {{.Name}}
# zsh completion for {{.Name}}, written by '{{.Name}} completion zsh'.
# Install it in a directory of $fpath, before compinit runs (in ~/.zshrc):
#   {{.Name}} completion zsh > "${fpath[1]}/_{{.Name}}"
# or load it in a shell where compinit has run:
#   source <({{.Name}} completion zsh)

# _{{.Name}}_node sets subs, flags (name:description), valued (flags that
# take a value) and args (1 when the command takes file arguments) for the
# command path $1.
_{{.Name}}_node() {
    case $1 in
{{- range .Nodes}}
    ({{zq .Path}})
        subs=({{range .Subs}}
            {{zdesc .}}{{end}}
        )
        flags=({{range .Flags}}
            {{zdesc .}}{{end}}
        )
        valued=({{join .Valued}}) args={{if .Args}}1{{else}}0{{end}} ;;
{{- end}}
    (*) subs=() flags=() valued=() args=1 ;;
    esac
}

_{{.Name}}() {
    local cmdpath='' w i skip=0 dashdash=0 args
    local -a subs flags valued
    _{{.Name}}_node ''
    for ((i = 2; i < CURRENT; i++)); do
        w=${words[i]}
        if ((skip)); then
            skip=0
            continue
        fi
        ((dashdash)) && continue
        case $w in
        (--) dashdash=1 ;;
        (-*) ((${valued[(Ie)$w]})) && skip=1 ;;
        (*)
            [[ -z $cmdpath && $w == help ]] && continue
            if ((${subs[(I)${(b)w}:*]})); then
                cmdpath=${cmdpath:+$cmdpath }$w
                _{{.Name}}_node $cmdpath
            fi
            ;;
        esac
    done
    if ((skip || dashdash)); then
        _files
    elif [[ $PREFIX == -*=* ]] && ((${valued[(Ie)${PREFIX%%=*}]})); then
        compset -P '*='
        _files
    elif [[ $PREFIX == -* ]]; then
        _describe -t options option flags
    elif ((${#subs})); then
        _describe -t commands command subs
    elif ((args)); then
        _files
    else
        _describe -t options option flags
    fi
}

if [[ $funcstack[1] == _{{.Name}} ]]; then
    _{{.Name}} "$@"
else
    compdef _{{.Name}} {{.Name}}
fi
{{end}}`

const fishCompletion = `{{define "fish"}}# fish completion for {{.Name}}, written by '{{.Name}} completion fish'.
# Install it where fish looks for completions:
#   {{.Name}} completion fish > ~/.config/fish/completions/{{.Name}}.fish

# __{{.Name}}_node prints the command path's subcommands (sub NAME\tDESCRIPTION),
# flags (flag NAME\tDESCRIPTION), flags that take a value (valued NAME) and,
# when it takes file arguments, the line args.
function __{{.Name}}_node
    switch "$argv[1]"
{{- range .Nodes}}
        case {{fq .Path}}
            printf '%s\n'{{range .Subs}} \
                'sub '{{fq .Name}}\t{{fq .Desc}}{{end}}{{range .Flags}} \
                'flag '{{fq .Name}}\t{{fq .Desc}}{{end}}{{range .Valued}} \
                'valued '{{fq .}}{{end}}{{if .Args}} \
                args{{end}}
{{- end}}
        case '*'
            echo args
    end
end

function __{{.Name}}_complete
    set -l cur (commandline -ct)
    set -l cmdpath ''
    set -l skip 0
    set -l dashdash 0
    set -l node (__{{.Name}}_node '')
    for w in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        test $dashdash = 1; and continue
        switch $w
            case --
                set dashdash 1
            case '-*'
                contains -- "valued $w" $node; and set skip 1
            case '*'
                test -z "$cmdpath" -a "$w" = help; and continue
                if contains -- $w (string replace -rf '^sub ([^\t]*).*' '$1' -- $node)
                    set cmdpath (string trim -- "$cmdpath $w")
                    set node (__{{.Name}}_node $cmdpath)
                end
        end
    end
    set -l subs (string replace -rf '^sub ' '' -- $node)
    if test $skip = 1 -o $dashdash = 1
        __fish_complete_path $cur
    else if string match -qr '^(?<flag>-[^=]*)=(?<value>.*)' -- $cur; and contains -- "valued $flag" $node
        printf '%s\n' $flag=(__fish_complete_path $value)
    else if string match -q -- '-*' $cur
        string replace -rf '^flag ' '' -- $node
    else if set -q subs[1]
        printf '%s\n' $subs
    else if contains -- args $node
        __fish_complete_path $cur
    else
        string replace -rf '^flag ' '' -- $node
    end
end

complete -c {{.Name}} -f -a '(__{{.Name}}_complete)'
{{end}}`
