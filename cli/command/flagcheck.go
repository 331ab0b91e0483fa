package command

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/sluice-data/sluice/budget"
	"github.com/sluice-data/sluice/internal/limit"
	"github.com/sluice-data/sluice/pipeline"
	"github.com/urfave/cli/v2"
)

// What every numeric flag takes is declared here, once, and checkFlags
// makes every flag of the command tree check its value before the
// command's action runs: a NaN, an infinity, a negative or an absurd value
// is exit 2 before any work, naming the flag and its range.

// flagRanges are the ranges of the integer, float and duration flags
// (durations in seconds), by name; a key "COMMAND --flag" (the command's
// path, e.g. "dedup minhash --ngram") is for that command alone and wins
// over the name alone. A numeric flag missing here is held to
// limit.Default, and TestEveryNumericFlagDeclaresItsRange fails.
var flagRanges = map[string]limit.Range{
	"--workers":             limit.Closed(0, pipeline.WorkersRange.Hi), // 0: every core
	"--batch-rows":          pipeline.BatchRowsRange,
	"--max-depth":           pipeline.MaxDepthRange,
	"--compression-level":   pipeline.LevelRange,
	"--max-file-rows":       pipeline.MaxFileRowsRange,
	"--limit":               limit.Closed(1, 1e15), // the first N rows of the input
	"--lang-min-score":      limit.Fraction,
	"--min-fraction":        limit.Fraction,
	"--threshold":           limit.Fraction,
	"--split":               limit.Positive(1),
	"--ngram":               limit.Closed(1, 1000),
	"--num-perm":            limit.Closed(1, 1<<13),
	"--bands":               limit.Closed(1, 1<<13),
	"--seed":                limit.Closed(0, math.MaxUint64), // any 64-bit seed
	"--min-overlap":         limit.Closed(1, 1e9),
	"--max-ngram-examples":  limit.Closed(0, 1e12),
	"--min-line-chars":      limit.Closed(0, 1e9),
	"--examples":            limit.Closed(0, 1e6),
	"--top":                 limit.Closed(1, 1e6),
	"--tasks":               limit.Closed(1, 100_000),
	"--max-parallel":        limit.Closed(0, 100_000),
	"--tasks-per-job":       limit.Closed(1, 100_000),
	"--slurm-cpus-per-task": limit.Closed(1, 4096),
	"--index":               limit.Closed(0, 10_000_000),
	"--heartbeat":           limit.Positive(86_400),
	"--lease-expiry":        limit.Positive(30 * 86_400),
	"--count":               limit.Closed(1, 1e8),
	"--digits":              limit.Closed(4, 18),
	"--prefix-tokens":       limit.Closed(1, 1e6),
	"--suffix-tokens":       limit.Closed(1, 1e6),
	"--verbatim-tokens":     limit.Closed(1, 1e6),
	"--max-tokens":          limit.Closed(1, 1e9),
	"--min-answer-chars":    limit.Closed(0, 1e9),
	"--k":                   limit.Closed(1, 1e6),
	// fastText's training arguments; --dim is bounded again by memory.
	"--dim":                 limit.Closed(1, 10_000),
	"--epoch":               limit.Closed(1, 1e6),
	"--lr":                  limit.Positive(100),
	"--lr-update-rate":      limit.Closed(1, 1e9),
	"--word-ngrams":         limit.Closed(1, 100),
	"--minn":                limit.Closed(0, 1<<10),
	"--maxn":                limit.Closed(0, 1<<10),
	"--bucket":              limit.Closed(0, math.MaxInt32),
	"--neg":                 limit.Closed(1, 10_000),
	"--min-count":           limit.Closed(0, 1e15),
	"--min-count-label":     limit.Closed(0, 1e15),
	"--thread":              limit.Closed(1, 4096),
	"classify train --seed": limit.Closed(0, math.MaxInt32),
}

// Counts and weights of the budget, given as strings.
var (
	tokenCount = limit.Positive(1e18)
	mixWeight  = limit.Closed(0, 1e12)
)

// numberStrings are the string flags that hold numbers, by name (or
// "COMMAND --flag"), each with the check of its value.
var numberStrings = map[string]func(name, v string) error{
	"--batch-bytes":      sizeIn(pipeline.BatchBytesRange),
	"--max-line-bytes":   sizeIn(pipeline.MaxLineBytesRange),
	"--page-bytes":       sizeIn(pipeline.PageBytesRange),
	"--max-file-bytes":   sizeIn(pipeline.MaxFileBytesRange),
	"--infer-rows":       orAll(intIn(pipeline.InferRowsRange)),
	"--tokens":           countIn(tokenCount),
	"--docs":             countIn(tokenCount),
	"--tokens-per-doc":   countIn(tokenCount),
	"--params":           countIn(tokenCount),
	"--tokens-per-param": countIn(tokenCount),
	"--target-tokens":    countIn(tokenCount),
	"--epochs":           floatIn(limit.Positive(1e6)),
	"--mix":              listOf(namedValue(floatIn(mixWeight))),
	"--source-tokens":    listOf(namedValue(countIn(tokenCount))),
	"--ratios":           listOf(floatIn(limit.Fraction)),
	"--repeats":          listOf(intIn(limit.Closed(1, 1e6))),
}

// sizeIn checks a byte size such as 16MiB.
func sizeIn(r limit.Range) func(name, v string) error {
	return func(name, v string) error {
		_, err := r.Size(name, v)
		return err
	}
}

// intIn checks a whole number.
func intIn(r limit.Range) func(name, v string) error {
	return func(name, v string) error {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return &limit.Error{Name: name, Value: strconv.Quote(v), Want: "an integer in " + r.String()}
		}
		return r.Int(name, n)
	}
}

// floatIn checks a number.
func floatIn(r limit.Range) func(name, v string) error {
	return func(name, v string) error {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return &limit.Error{Name: name, Value: strconv.Quote(v), Want: "a finite number in " + r.String()}
		}
		return r.Float(name, f)
	}
}

// countIn checks a count as budget reads them (125M, 1.5T, 7e9).
func countIn(r limit.Range) func(name, v string) error {
	return func(name, v string) error {
		n, err := budget.ParseCount(v)
		if err != nil {
			return &limit.Error{Name: name, Value: strconv.Quote(v), Want: "a count (800, 7e9, 125M, 1.5T) in " + r.String()}
		}
		return r.Float(name, n)
	}
}

// orAll also takes the word all.
func orAll(check func(name, v string) error) func(name, v string) error {
	return func(name, v string) error {
		if strings.TrimSpace(v) == "all" {
			return nil
		}
		return check(name, v)
	}
}

// listOf checks each item of a comma-separated list.
func listOf(check func(name, v string) error) func(name, v string) error {
	return func(name, v string) error {
		for _, item := range strings.Split(v, ",") {
			if err := check(name, item); err != nil {
				return err
			}
		}
		return nil
	}
}

// namedValue checks the value of a NAME=VALUE item; the command reads
// the names.
func namedValue(check func(name, v string) error) func(name, v string) error {
	return func(name, v string) error {
		if source, value, ok := strings.Cut(v, "="); ok {
			return check(name+" "+strings.TrimSpace(source), value)
		}
		return nil
	}
}

// rangeOf is the declared range of a numeric flag of the command at path.
func rangeOf(path, name string) (limit.Range, bool) {
	if r, ok := flagRanges[path+" "+name]; ok {
		return r, true
	}
	r, ok := flagRanges[name]
	if !ok {
		return limit.Default, false
	}
	return r, true
}

// numberString is the check of a string flag that holds a number, or nil.
func numberString(path, name string) func(name, v string) error {
	if check, ok := numberStrings[path+" "+name]; ok {
		return check
	}
	return numberStrings[name]
}

// checkFlags gives every numeric flag of cmds and their subcommands (path
// names the parent) the check of its declared range, run when the flag is
// given, before the command's action.
func checkFlags(path string, cmds []*cli.Command) {
	for _, c := range cmds {
		p := strings.TrimPrefix(path+" "+c.Name, " ")
		for _, f := range c.Flags {
			guardFlag(p, f)
		}
		checkFlags(p, c.Subcommands)
	}
}

// guardFlag adds the check of its value to one flag of the command at path.
func guardFlag(path string, f cli.Flag) {
	name := "--" + f.Names()[0]
	r, _ := rangeOf(path, name)
	switch f := f.(type) {
	case *cli.IntFlag:
		f.Action = then(f.Action, func(v int) error { return r.Int(name, int64(v)) })
	case *cli.Int64Flag:
		f.Action = then(f.Action, func(v int64) error { return r.Int(name, v) })
	case *cli.UintFlag:
		f.Action = then(f.Action, func(v uint) error { return r.Uint(name, uint64(v)) })
	case *cli.Uint64Flag:
		f.Action = then(f.Action, func(v uint64) error { return r.Uint(name, v) })
	case *cli.Float64Flag:
		f.Action = then(f.Action, func(v float64) error { return r.Float(name, v) })
	case *cli.DurationFlag:
		f.Action = then(f.Action, func(v time.Duration) error {
			if err := r.Float(name, v.Seconds()); err != nil {
				return &limit.Error{Name: name, Value: v.String(), Want: "a duration in " + r.String() + " seconds"}
			}
			return nil
		})
	case *cli.StringFlag:
		if check := numberString(path, name); check != nil {
			f.Action = then(f.Action, func(v string) error { return check(name, v) })
		}
	case *cli.StringSliceFlag:
		if check := numberString(path, name); check != nil {
			f.Action = then(f.Action, func(vs []string) error {
				for _, v := range vs {
					if err := check(name, v); err != nil {
						return err
					}
				}
				return nil
			})
		}
	case *cli.IntSliceFlag, *cli.Int64SliceFlag, *cli.Float64SliceFlag, *cli.UintSliceFlag, *cli.Uint64SliceFlag:
		panic(fmt.Sprintf("sluice %s %s: a list flag of numbers has no range check; give it one in flagcheck.go", path, name))
	}
}

// then runs a flag's own action, if any, after the check of its value.
func then[T any](action func(*cli.Context, T) error, check func(T) error) func(*cli.Context, T) error {
	return func(c *cli.Context, v T) error {
		if err := check(v); err != nil {
			return err
		}
		if action != nil {
			return action(c, v)
		}
		return nil
	}
}
