package command

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/provenance"
	"github.com/urfave/cli/v2"
)

func logCommand(s Streams) *cli.Command {
	var asJSON bool
	return &cli.Command{
		Name:      "log",
		Usage:     "show a dataset's history: each version that led to it, its command, date, rows and removals",
		ArgsUsage: "DATASET",
		Description: "Walks the parents the manifests record, like git log: DATASET's own version first, then the\n" +
			"versions it was made from (an input that was itself a sluice output), depth first. Each shows its\n" +
			"version id, the command that made it, the tool version and date, the rows in and out, and what each\n" +
			"stage removed by reason. A parent that is gone, or whose path now holds another version, ends its\n" +
			"line of history with a note.",
		Flags: []cli.Flag{versionJSONFlag(&asJSON)},
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("log takes one dataset (DATASET), got %d arguments", c.NArg())
			}
			path := c.Args().First()
			if _, _, err := dataset.Locate(path); err != nil {
				return usageError{err}
			}
			steps, err := provenance.Log(path)
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(s.Out, LogResult{Dataset: path, Versions: steps})
			}
			printLog(s.Out, steps)
			return nil
		}),
	}
}

// LogResult is the --json object of log.
type LogResult struct {
	Dataset  string            `json:"dataset"`
	Versions []provenance.Step `json:"versions"`
}

func printLog(w io.Writer, steps []provenance.Step) {
	for i, st := range steps {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "version %s  %s\n", st.VersionID, st.Path)
		if st.Problem != "" {
			fmt.Fprintf(w, "  (%s)\n", st.Problem)
			continue
		}
		fmt.Fprintf(w, "  command  %s\n", shellLine(st.Command))
		fmt.Fprintf(w, "  made     %s by sluice %s\n", st.Date, st.ToolVersion)
		c := st.Counts
		fmt.Fprintf(w, "  rows     %d in, %d out, %d removed, %d quarantined\n", c.RowsIn, c.RowsOut, c.Removed, c.Quarantined)
		for _, sc := range st.Stages {
			fmt.Fprintf(w, "  stage    %-18s %7d in %7d out%s\n", sc.Name, sc.RowsIn, sc.RowsOut, reasons(sc.Removed))
		}
		for _, p := range st.Parents {
			fmt.Fprintf(w, "  parent   %s  %s\n", p.VersionID, p.Path)
		}
	}
}

// reasons lists removals by reason, sorted: "  near_dup=30  word_count=16".
func reasons(removed map[string]int64) string {
	keys := make([]string, 0, len(removed))
	for k := range removed {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s=%d", k, removed[k])
	}
	return b.String()
}

// shellLine writes a recorded command line as a shell would read it: the
// program by its name, arguments quoted when they need it.
func shellLine(args []string) string {
	if len(args) == 0 {
		return "(not recorded)"
	}
	out := []string{filepath.Base(args[0])}
	for _, a := range args[1:] {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$`*?[]{}()<>|&;#~") {
			a = strconv.Quote(a)
		}
		out = append(out, a)
	}
	return strings.Join(out, " ")
}

// printVersion prints the line of a run's summary that names the version
// it wrote and the versions it read.
func printVersion(w io.Writer, m *dataset.Manifest) {
	if m.VersionID == "" {
		return
	}
	fmt.Fprintf(w, "version: %s", m.VersionID)
	if len(m.Parents) > 0 {
		ids := make([]string, len(m.Parents))
		for i, p := range m.Parents {
			ids[i] = p.VersionID
		}
		label := "parent"
		if len(ids) > 1 {
			label = "parents"
		}
		fmt.Fprintf(w, " (%s %s)", label, strings.Join(ids, ", "))
	}
	fmt.Fprintln(w)
}
