package command

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sluice-data/sluice/diff"
	"github.com/sluice-data/sluice/provenance"
	"github.com/urfave/cli/v2"
)

// DiffOptions are the flags of `sluice diff`.
type DiffOptions struct {
	diff.Options
	JSON     bool
	ExitCode bool
}

func diffCommand(s Streams) *cli.Command {
	o := &DiffOptions{}
	return &cli.Command{
		Name:      "diff",
		Usage:     "compare two versions of a dataset: configuration, counts per stage and reason, and rows",
		ArgsUsage: "A B",
		Description: "A and B are dataset directories, one-file outputs or their manifests. The configuration part\n" +
			"lists what the runs were told differently: tool version, command, settings, each stage's effective\n" +
			"parameters, and the inputs whose bytes changed. The counts part lists the totals and each stage's\n" +
			"rows and removals by reason, in both, with the difference. The rows part matches the data rows of\n" +
			"A and B by id (--id-field), or by a hash of their text when either has no id column (or with\n" +
			"--by-content), and counts rows only in A, only in B, and whose text changed, with examples;\n" +
			"--rows-out DIR writes them as DIR/a.parquet and DIR/b.parquet with a _diff column (only_a, only_b,\n" +
			"changed). The keys spill to temporary files partitioned by hash, so memory stays bounded whatever\n" +
			"the number of rows. A version without a text column has its rows matched by id alone, and when\n" +
			"they cannot be matched by id either, only counted (the output says so). Whether A and B are the\n" +
			"same version is decided from their files: each is hashed again and checked against its manifest,\n" +
			"as sluice verify does, and any file that is not as recorded is listed. The exit code is 0 when the\n" +
			"comparison ran (with --exit-code, 1 when A and B differ).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "id-field", Value: "id", Destination: &o.IDField, Usage: "the column rows are matched by"},
			&cli.StringFlag{Name: "text-field", Value: "text", Destination: &o.TextField, Usage: "the column whose changes are compared"},
			&cli.BoolFlag{Name: "by-content", Destination: &o.ByContent,
				Usage: "match rows by a hash of their text, not by id (then a changed text is a row only in A and one only in B)"},
			&cli.BoolFlag{Name: "no-rows", Destination: &o.NoRows, Usage: "compare the manifests only (configuration and counts), not the rows"},
			&cli.StringFlag{Name: "rows-out", Destination: &o.RowsOut,
				Usage: "write the rows that differ to `DIR`/a.parquet and DIR/b.parquet, with a _diff column (a new or empty directory)"},
			&cli.IntFlag{Name: "examples", Value: 3, Destination: &o.Examples, Usage: "example rows shown of each kind"},
			&cli.StringFlag{Name: "temp-dir", Destination: &o.TempDir, Usage: "where the spill files go (the system's temporary directory by default)"},
			&cli.BoolFlag{Name: "exit-code", Destination: &o.ExitCode, Usage: "exit with 1 when A and B differ (their version ids, or their rows)"},
			versionJSONFlag(&o.JSON),
		},
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 2 {
				return usagef("diff takes two datasets (A B), got %d arguments", c.NArg())
			}
			return runDiff(c, o, c.Args().Get(0), c.Args().Get(1), s)
		}),
	}
}

func runDiff(c *cli.Context, o *DiffOptions, pathA, pathB string, s Streams) error {
	if o.Examples < 0 {
		return usagef("--examples must be 0 or more, not %d", o.Examples)
	}
	if o.RowsOut != "" {
		if o.NoRows {
			return usagef("--rows-out writes rows, which --no-rows does not compare; give one")
		}
		if entries, err := os.ReadDir(o.RowsOut); err == nil && len(entries) > 0 {
			return usagef("--rows-out %s: exists and is not empty; give a new or empty directory", o.RowsOut)
		} else if err != nil && !errors.Is(err, os.ErrNotExist) {
			return usagef("--rows-out %s: %v", o.RowsOut, err)
		}
	}
	a, err := diff.Open(pathA)
	if err != nil {
		return usageError{err}
	}
	b, err := diff.Open(pathB)
	if err != nil {
		return usageError{err}
	}
	res, err := diff.Compare(c.Context, a, b, o.Options)
	if err != nil {
		return err
	}
	if err := (Report{JSON: o.JSON}).result(s.Out, res, func(w io.Writer) { printDiff(w, res, o.Examples) }); err != nil {
		return err
	}
	if o.ExitCode && differ(res) {
		if a.VersionID == b.VersionID {
			return fmt.Errorf("%s and %s differ, although both manifests record version %s", pathA, pathB, a.VersionID)
		}
		return fmt.Errorf("%s and %s differ (versions %s and %s)", pathA, pathB, a.VersionID, b.VersionID)
	}
	return nil
}

// differ tells whether A and B differ, for --exit-code: rows only in one
// of them or changed, always; and, unless their files are identical,
// counts that differ or rows that were not (or could not all be)
// compared. Two versions whose rows and counts are the same but whose
// files are encoded differently do not differ.
func differ(r *diff.Result) bool {
	rows := r.Rows
	if rows != nil && rows.OnlyA+rows.OnlyB+rows.Changed > 0 {
		return true
	}
	if r.Identical {
		return false
	}
	return rows == nil || rows.NotCompared != "" || !sameCounts(r)
}

func sameCounts(r *diff.Result) bool {
	for _, c := range r.Counts {
		if c.Delta != 0 {
			return false
		}
	}
	return true
}

func printDiff(w io.Writer, r *diff.Result, examples int) {
	fmt.Fprintf(w, "A  version %s  %s  (%s)\n", r.A.VersionID, r.A.Path, shellLine(r.A.M.Command))
	fmt.Fprintf(w, "B  version %s  %s  (%s)\n", r.B.VersionID, r.B.Path, shellLine(r.B.M.Command))
	printProblems(w, "A", r.ProblemsA)
	printProblems(w, "B", r.ProblemsB)
	if r.Identical {
		fmt.Fprintln(w, "the same version: the same data and removed files, byte for byte (each hashed again), and the same counts")
	}
	cfg := r.Config
	fmt.Fprintln(w, "\nconfiguration:")
	n := 0
	line := func(format string, a ...any) {
		fmt.Fprintf(w, "  "+format+"\n", a...)
		n++
	}
	if c := cfg.ToolVersion; c != nil {
		line("tool version  %v -> %v", c.A, c.B)
	}
	for _, c := range cfg.Options {
		line("setting       %s: %s -> %s", c.Key, jsonText(c.A), jsonText(c.B))
	}
	for _, st := range cfg.Stages {
		switch st.Only {
		case "a":
			line("stage         %s: only in A", st.Stage)
		case "b":
			line("stage         %s: only in B", st.Stage)
		default:
			for _, c := range st.Changes {
				line("stage         %s %s: %s -> %s", st.Stage, c.Key, jsonText(c.A), jsonText(c.B))
			}
		}
	}
	for _, in := range cfg.Inputs {
		switch {
		case in.HashA == "":
			line("input         %s: only in B (%d rows)", in.Path, in.RowsB)
		case in.HashB == "":
			line("input         %s: only in A (%d rows)", in.Path, in.RowsA)
		default:
			line("input         %s: changed, xxhash64 %s -> %s, rows %d -> %d", in.Path, in.HashA, in.HashB, in.RowsA, in.RowsB)
		}
	}
	if n == 0 {
		fmt.Fprintln(w, "  the same settings, stages, parameters and inputs")
	}
	if c := cfg.Command; c != nil {
		fmt.Fprintf(w, "  (commands: A %s; B %s)\n", c.A, c.B)
	}
	fmt.Fprintf(w, "\n%-33s %10s %10s %10s\n", "counts:", "A", "B", "B-A")
	equal := 0
	for _, c := range r.Counts {
		if c.Stage != "" && c.Delta == 0 {
			equal++
			continue
		}
		name := c.What
		if c.Stage != "" {
			name = c.Stage + " " + c.What
		}
		fmt.Fprintf(w, "  %-31s %10d %10d %+10d\n", name, c.A, c.B, c.Delta)
	}
	if equal > 0 {
		fmt.Fprintf(w, "  (%d stage counts the same in both)\n", equal)
	}
	rows := r.Rows
	if rows == nil {
		return
	}
	if rows.Key == "none" {
		fmt.Fprintf(w, "\nrows: %d in A, %d in B, not matched: %s\n", rows.RowsA, rows.RowsB, rows.NotCompared)
		return
	}
	fmt.Fprintf(w, "\nrows (matched by %s): %d same, %d only in A, %d only in B, %d changed\n",
		rows.Key, rows.Same, rows.OnlyA, rows.OnlyB, rows.Changed)
	if rows.NotCompared != "" {
		fmt.Fprintf(w, "  (%s)\n", rows.NotCompared)
	}
	if examples > 0 {
		for _, e := range rows.Examples.OnlyA {
			fmt.Fprintf(w, "  only in A  %s: %s\n", e.ID, e.Text)
		}
		for _, e := range rows.Examples.OnlyB {
			fmt.Fprintf(w, "  only in B  %s: %s\n", e.ID, e.Text)
		}
		for _, e := range rows.Examples.Changed {
			fmt.Fprintf(w, "  changed    %s\n    A: %s\n    B: %s\n", e.ID, e.TextA, e.TextB)
		}
	}
	if len(rows.RowsOut) > 0 {
		fmt.Fprintf(w, "rows written: %s\n", strings.Join(rows.RowsOut, ", "))
	}
}

// printProblems lists where the files of a version are not what its
// manifest records.
func printProblems(w io.Writer, which string, problems []provenance.Problem) {
	if len(problems) == 0 {
		return
	}
	fmt.Fprintf(w, "%s does not match its manifest, %d problem(s) (see sluice verify):\n", which, len(problems))
	for _, p := range problems {
		fmt.Fprintf(w, "  %-10s  %s: %s\n", p.Kind, p.Path, p.Detail)
	}
}

// jsonText writes a configuration value as JSON ("(none)" when absent).
func jsonText(v any) string {
	if v == nil {
		return "(none)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
