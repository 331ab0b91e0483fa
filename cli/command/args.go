package command

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// interspersed moves a command's flags in front of its positional
// arguments, so `sluice convert in.jsonl -o out` works as users expect;
// urfave/cli stops reading flags at the first positional argument. A "--"
// ends the flags as usual. `sluice help dedup exact` and `sluice dedup help
// exact` become `sluice dedup exact --help`.
func interspersed(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	args = hoistGlobal(args, "s3-endpoint")
	i := 1
	for i < len(args) && strings.HasPrefix(args[i], "-") { // global flags
		if takesValue(app.Flags, args[i]) {
			i++
		}
		i++
	}
	help := false
	if i+1 < len(args) && isHelp(args[i]) {
		args, help = slices.Delete(slices.Clone(args), i, i+1), true
	}
	if i >= len(args) {
		return args
	}
	cmd := app.Command(args[i])
	if cmd == nil {
		return args
	}
	// Walk down subcommands (e.g. `dedup exact`).
	for i+1 < len(args) {
		if i+2 < len(args) && isHelp(args[i+1]) && len(cmd.Subcommands) > 0 {
			args, help = slices.Delete(slices.Clone(args), i+1, i+2), true
			continue
		}
		sub := cmd.Command(args[i+1])
		if sub == nil {
			break
		}
		cmd, i = sub, i+1
	}
	head := append([]string{}, args[:i+1]...)
	var flags, positional []string
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			positional = append(positional, rest[j+1:]...)
			break
		}
		if strings.HasPrefix(a, "-") && a != "-" {
			if ov, ok := optionalValues[strings.TrimLeft(a, "-")]; ok && takesValue(cmd.Flags, a) {
				if j+1 < len(rest) && contains(ov.allowed, rest[j+1]) {
					flags = append(flags, a+"="+rest[j+1])
					j++
				} else {
					flags = append(flags, a+"="+ov.implied)
				}
				continue
			}
			flags = append(flags, a)
			if takesValue(cmd.Flags, a) && j+1 < len(rest) {
				flags = append(flags, rest[j+1])
				j++
			}
			continue
		}
		positional = append(positional, a)
	}
	if help {
		flags = append(flags, "--help")
	}
	out := append(head, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}

// hoistGlobal moves the global flag name (with its value) from wherever it
// stands before a "--" to the front, where urfave/cli reads global flags:
// `sluice convert s3://b/x -o out --s3-endpoint URL` works as `sluice
// --s3-endpoint URL convert ...`.
func hoistGlobal(args []string, name string) []string {
	var hoisted, rest []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		flag, _, hasValue := strings.Cut(a, "=")
		if strings.HasPrefix(a, "-") && strings.TrimLeft(flag, "-") == name {
			hoisted = append(hoisted, a)
			if !hasValue && i+1 < len(args) {
				hoisted = append(hoisted, args[i+1])
				i++
			}
			continue
		}
		rest = append(rest, a)
	}
	if hoisted == nil {
		return args
	}
	return append(append([]string{args[0]}, hoisted...), rest...)
}

// takesValue reports whether arg names a flag that needs a separate value.
func takesValue(flags []cli.Flag, arg string) bool {
	if strings.Contains(arg, "=") {
		return false
	}
	name := strings.TrimLeft(arg, "-")
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				_, isBool := f.(*cli.BoolFlag)
				return !isBool
			}
		}
	}
	return false
}

func isHelp(arg string) bool { return arg == "help" || arg == "h" }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
