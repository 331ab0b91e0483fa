package command

import (
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/budget"
	"github.com/sluice-data/sluice/internal/limit"
	"github.com/urfave/cli/v2"
)

// numericFlag is a flag of one command that takes a number, and the
// values it must refuse.
type numericFlag struct {
	path, name string
	bad        []string
}

// numericFlags walks the command tree NewApp builds and returns every
// flag that takes a number (or a size, a count or a list of them), with
// NaN, infinities, -1 and a huge value to try on it.
func numericFlags() []numericFlag {
	var out []numericFlag
	for path, flags := range commandFlags() {
		for _, f := range flags {
			name := "--" + f.Names()[0]
			r, _ := rangeOf(path, name)
			bad := []string{"NaN", "Inf", "-Inf", "-1"}
			switch f.(type) {
			case *cli.IntFlag, *cli.Int64Flag:
				bad = append(bad, "9223372036854775807")
			case *cli.UintFlag, *cli.Uint64Flag:
				if r.Hi < math.MaxUint64 { // a seed takes any value
					bad = append(bad, "18446744073709551615")
				}
			case *cli.Float64Flag:
				bad = append(bad, "1e300")
			case *cli.DurationFlag:
				bad = append(bad, "-1s", "2562047h")
			case *cli.StringFlag, *cli.StringSliceFlag:
				if numberString(path, name) == nil {
					continue
				}
				bad = append(bad, "1e300", "99999999999999999999999TiB")
				if name == "--mix" || name == "--source-tokens" {
					for i, v := range bad {
						bad[i] = "web=" + v
					}
				}
			default:
				continue
			}
			out = append(out, numericFlag{path: path, name: name, bad: bad})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].path+out[i].name < out[j].path+out[j].name })
	return out
}

// requiredFlags gives every required flag of the command at path a value,
// so that the run reaches the check of the flag under test.
func requiredFlags(path string) []string {
	var args []string
	for _, f := range commandFlags()[path] {
		if r, ok := f.(cli.RequiredFlag); ok && r.IsRequired() {
			args = append(args, "--"+f.Names()[0], "given")
		}
	}
	return args
}

// Every numeric flag of every command refuses NaN, infinities, -1 and a
// huge value with exit 2, naming the flag, and writes nothing. A new
// command or flag is covered without a new case.
func TestEveryNumericFlagRefusesAbsurdValues(t *testing.T) {
	flags := numericFlags()
	if len(flags) < 50 {
		t.Fatalf("found %d numeric flags; the walk of the command tree is broken", len(flags))
	}
	for _, f := range flags {
		t.Run(f.path+" "+f.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			writeFiles(t, map[string]string{"a.jsonl": rowsA})
			before := snapshot(t, ".")
			for _, v := range f.bad {
				args := append(strings.Fields(f.path), requiredFlags(f.path)...)
				args = append(args, f.name+"="+v, "a.jsonl")
				code, _, stderr := sluiceIn(t, "", args...)
				if code != 2 {
					t.Errorf("sluice %s: exit %d, want 2\n%s", strings.Join(args, " "), code, stderr)
				}
				if !strings.Contains(stderr, strings.TrimLeft(f.name, "-")) {
					t.Errorf("sluice %s: the error does not name %s: %s", strings.Join(args, " "), f.name, stderr)
				}
			}
			if after := snapshot(t, "."); after != before {
				t.Errorf("files changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// Every numeric flag has its range declared in flagRanges, not the
// fallback every undeclared flag gets.
func TestEveryNumericFlagDeclaresItsRange(t *testing.T) {
	for path, flags := range commandFlags() {
		for _, f := range flags {
			switch f.(type) {
			case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag, *cli.Float64Flag, *cli.DurationFlag:
				if _, ok := rangeOf(path, "--"+f.Names()[0]); !ok {
					t.Errorf("sluice %s --%s: no range in flagRanges", path, f.Names()[0])
				}
			}
		}
	}
}

// Each declared range holds the flag's default, so that the declared
// ranges and the defaults cannot drift apart.
func TestNumericFlagDefaultsAreInRange(t *testing.T) {
	for path, flags := range commandFlags() {
		for _, f := range flags {
			name := "--" + f.Names()[0]
			r, _ := rangeOf(path, name)
			var err error
			switch f := f.(type) {
			case *cli.IntFlag:
				if f.Value != 0 && f.Value != -1 { // 0 and -1: not given
					err = r.Int(name, int64(f.Value))
				}
			case *cli.Int64Flag:
				if f.Value != 0 { // 0: not given
					err = r.Int(name, f.Value)
				}
			case *cli.Float64Flag:
				err = r.Float(name, f.Value)
			case *cli.StringFlag:
				if check := numberString(path, name); check != nil && f.Value != "" {
					err = check(name, f.Value)
				}
			}
			if err != nil {
				t.Errorf("sluice %s: the default is out of the declared range: %v", path, err)
			}
		}
	}
}

// A string flag whose default is a number or a size holds numbers, and so
// must declare its check in numberStrings.
func TestStringFlagsThatHoldNumbersDeclareTheirCheck(t *testing.T) {
	anything := limit.Closed(0, 1e300)
	for path, flags := range commandFlags() {
		for _, f := range flags {
			s, ok := f.(*cli.StringFlag)
			if !ok || s.Value == "" {
				continue
			}
			_, sizeErr := anything.Size("", s.Value)
			_, countErr := budget.ParseCount(s.Value)
			if (sizeErr == nil || countErr == nil) && numberString(path, "--"+s.Name) == nil {
				t.Errorf("sluice %s --%s defaults to %q, a number, but has no check in numberStrings", path, s.Name, s.Value)
			}
		}
	}
}
