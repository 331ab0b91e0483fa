package command

import (
	"fmt"
	"io"
	"runtime"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/provenance"
	"github.com/urfave/cli/v2"
)

// versionJSONFlag is the --json flag of verify, log, diff and trace.
func versionJSONFlag(dst *bool) cli.Flag {
	return &cli.BoolFlag{Name: "json", Destination: dst,
		Usage: "print the result as one JSON object on standard output instead of text (fields in the README)"}
}

// VerifyOptions are the flags of `sluice verify`.
type VerifyOptions struct {
	Deep    bool
	Workers int
	JSON    bool
}

func verifyCommand(s Streams) *cli.Command {
	o := &VerifyOptions{}
	return &cli.Command{
		Name:      "verify",
		Usage:     "check a dataset against its manifest: every file's hash and rows, the counts, the shard manifests",
		ArgsUsage: "DATASET",
		Description: "DATASET is a dataset directory, a one-file output or its manifest. Every data, removed and side file the\n" +
			"manifest lists is re-hashed (xxhash64) and its size compared; Parquet footers are re-counted; the rows\n" +
			"of the files must add up to the counts and the counts must add up (rows_in + inserted == rows_out +\n" +
			"removed + quarantined); the recorded version id must be the one the outputs give; a part file in\n" +
			"data/ or removed/ that the manifest does not list is extra; a launched output's shard manifests\n" +
			"must add up to the merged one. Missing, changed, extra and incomplete files are listed and the exit\n" +
			"code is 1. --deep also decodes every page of every Parquet file.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "deep", Destination: &o.Deep,
				Usage: "also decode every Parquet page (and decompress compressed JSONL) and count the rows, not only the footers"},
			&cli.IntFlag{Name: "workers", Aliases: []string{"j"}, Value: runtime.NumCPU(), Destination: &o.Workers,
				Usage: "files checked at once; 0 for every core"},
			versionJSONFlag(&o.JSON),
		},
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("verify takes one dataset (DATASET), got %d arguments", c.NArg())
			}
			return runVerify(c, o, c.Args().First(), s)
		}),
	}
}

func runVerify(c *cli.Context, o *VerifyOptions, path string, s Streams) error {
	if o.Workers < 0 {
		return usagef("--workers must be 0 (every core) or more, not %d", o.Workers)
	}
	if _, _, err := dataset.Locate(path); err != nil {
		return usageError{err}
	}
	v, err := provenance.Verify(c.Context, path, provenance.VerifyOptions{Deep: o.Deep, Workers: o.Workers})
	if err != nil {
		return err
	}
	if o.JSON {
		if err := printJSON(s.Out, v); err != nil {
			return err
		}
	} else {
		printVerification(s.Out, v)
	}
	if !v.OK() {
		return fmt.Errorf("%s: %d problem(s) found: %s", path, len(v.Problems), v.Problems[0])
	}
	return nil
}

func printVerification(w io.Writer, v *provenance.Verification) {
	for _, p := range v.Problems {
		fmt.Fprintf(w, "%-10s  %s: %s\n", p.Kind, p.Path, p.Detail)
	}
	how := "footers"
	if v.Deep {
		how = "every page"
	}
	shards := ""
	if v.Shards > 0 {
		shards = fmt.Sprintf(", %d shard manifests", v.Shards)
	}
	state := "OK"
	if !v.OK() {
		state = fmt.Sprintf("FAILED: %d problem(s)", len(v.Problems))
	}
	fmt.Fprintf(w, "%s: version %s, %d files (%s hashed, %s read%s), %d rows kept, %d removed: %s\n",
		v.Manifest, v.VersionID, v.Files, humanBytes(v.Bytes), how, shards, v.Rows, v.Removed, state)
}
