package command

import (
	"testing"

	"github.com/urfave/cli/v2"
)

// commandFlags returns the flags of every command and subcommand by path.
func commandFlags() map[string][]cli.Flag {
	flags := map[string][]cli.Flag{}
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			flags[prefix+c.Name] = c.Flags
			walk(prefix+c.Name+" ", c.Subcommands)
		}
	}
	walk("", NewApp(Streams{}).Commands)
	return flags
}

// A flag name means one thing on every command: -n is a count of what
// the command makes, --seed starts at 1, -o is the output, -j the workers.
func TestFlagsMeanTheSameEverywhere(t *testing.T) {
	meaning := map[string]string{"n": "count", "o": "output", "j": "workers"}
	for path, flags := range commandFlags() {
		for _, f := range flags {
			names := f.Names()
			for _, alias := range names[1:] {
				if want, ok := meaning[alias]; ok && names[0] != want {
					t.Errorf("sluice %s: -%s is --%s; everywhere else it is --%s", path, alias, names[0], want)
				}
			}
			if names[0] == "seed" {
				var def string
				switch f := f.(type) {
				case *cli.Uint64Flag:
					def = f.GetDefaultText()
				case *cli.IntFlag:
					def = f.GetDefaultText()
				case *cli.Int64Flag:
					def = f.GetDefaultText()
				default:
					t.Errorf("sluice %s: --seed is a %T, not an integer flag", path, f)
					continue
				}
				if def != "1" {
					t.Errorf("sluice %s: --seed defaults to %s; every other command starts at 1", path, def)
				}
			}
		}
	}
}
