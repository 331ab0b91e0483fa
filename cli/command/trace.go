package command

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/provenance"
	"github.com/urfave/cli/v2"
)

func traceCommand(s Streams) *cli.Command {
	var asJSON bool
	o := provenance.TraceOptions{}
	return &cli.Command{
		Name:      "trace",
		Usage:     "follow one row through a dataset's history: which input, which stages, and why it was removed",
		ArgsUsage: "DATASET ID",
		Description: "Finds the row whose id is ID in DATASET (its data, then its removed rows) and in every version\n" +
			"of its history that holds it (see sluice log): where each version holds it, the stages it went\n" +
			"through, and for a removed row the stage, the rule and, for a duplicate, the id of the row kept in\n" +
			"its place. A row with lineage columns (--lineage) names the input file and line, Parquet row or WARC\n" +
			"record offset it was first read from. A dataset without an id column names its rows by lineage, as\n" +
			"FILE:ROW. An id that several rows of a version share shows each of them. The exit code is 1 when\n" +
			"DATASET has no such row.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "id-field", Value: "id", Destination: &o.IDField, Usage: "the column holding the row id"},
			&cli.StringFlag{Name: "text-field", Value: "text", Destination: &o.TextField, Usage: "the column whose text is shown"},
			versionJSONFlag(&asJSON),
		},
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 2 {
				return usagef("trace takes a dataset and a row id (DATASET ID), got %d arguments", c.NArg())
			}
			path, id := c.Args().Get(0), c.Args().Get(1)
			if _, _, err := dataset.Locate(path); err != nil {
				return usageError{err}
			}
			hops, err := provenance.Trace(c.Context, path, id, o)
			if errors.Is(err, provenance.ErrNotFound) && asJSON {
				printJSON(s.Out, TraceResult{Dataset: path, ID: id, Found: false, Hops: []provenance.Hop{}})
			}
			if err != nil {
				return err
			}
			if asJSON {
				return printJSON(s.Out, TraceResult{Dataset: path, ID: id, Found: true, Hops: hops})
			}
			printTrace(s.Out, id, hops)
			return nil
		}),
	}
}

// TraceResult is the --json object of trace.
type TraceResult struct {
	Dataset string           `json:"dataset"`
	ID      string           `json:"id"`
	Found   bool             `json:"found"`
	Hops    []provenance.Hop `json:"versions"`
}

func printTrace(w io.Writer, id string, hops []provenance.Hop) {
	fmt.Fprintf(w, "row %s\n", id)
	var last provenance.Hop
	for i, h := range hops {
		again := i > 0 && hops[i-1].VersionID == h.VersionID && hops[i-1].Path == h.Path
		shared := again || (i+1 < len(hops) && hops[i+1].VersionID == h.VersionID && hops[i+1].Path == h.Path)
		if !again {
			fmt.Fprintf(w, "\nversion %s  %s\n", h.VersionID, h.Path)
			fmt.Fprintf(w, "  command  %s\n", shellLine(h.Command))
		}
		switch h.Status {
		case provenance.Absent:
			fmt.Fprintf(w, "  absent   not in this version\n")
			continue
		case provenance.Kept:
			fmt.Fprintf(w, "  kept     %s row %d\n", h.File, h.Row)
		default:
			fmt.Fprintf(w, "  removed  %s row %d: stage %s, reason %s\n", h.File, h.Row, h.Stage, h.Reason)
			if h.DupOf != "" {
				fmt.Fprintf(w, "  dup of   %s (kept in its place)\n", h.DupOf)
			}
		}
		if len(h.Stages) > 0 {
			fmt.Fprintf(w, "  stages   %s\n", strings.Join(h.Stages, ", "))
		}
		if shared { // several rows of the id in this version: each its text
			fmt.Fprintf(w, "  text     %s\n", h.Text)
		}
		last = h
	}
	if last.SrcFile != "" {
		fmt.Fprintf(w, "\nread from %s %s %d\n", last.SrcFile, srcUnit(last.SrcFile), last.SrcRow)
	}
	fmt.Fprintf(w, "text: %s\n", last.Text)
}

// srcUnit names what _src_row counts in a file: lines of JSONL, rows of
// Parquet, byte offsets of WARC records.
func srcUnit(file string) string {
	switch {
	case strings.HasSuffix(file, ".parquet"):
		return "row"
	case strings.Contains(file, ".warc") || strings.Contains(file, ".wet"):
		return "record at byte"
	}
	return "line"
}
