package command

import (
	"strings"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/urfave/cli/v2"
)

// localOnly are the commands whose output (-o, or the OUT argument of
// status and task) must be a local path: a launch keeps its plan,
// intermediates, markers and logs in its output for every task to see;
// the others write their files with the file system's calls. Every other
// command writes an object-store output through io/dataset.
var localOnly = map[string]string{
	"demo":              "the demo writes a local folder; copy it to the bucket",
	"report":            "the report page is written to a local file; copy it to the bucket",
	"classify train":    "the model is written to a local file; copy it to the bucket",
	"tasks split":       "the split files are written to a local folder; copy them to the bucket",
	"rerun":             "a rerun is checked against local files; rerun to a local path, then copy the dataset to the bucket",
	"memorize canaries": "the canary file is written to a local file",
	"memorize probes":   "the probe file is written to a local file; copy it to the bucket",
	"tokens":            "the counts table is written to a local file (--add-column writes the dataset, to a bucket too)",
}

// refuseObjectStoreOutputs makes the commands of localOnly refuse an
// object-store output before any work (exit 2), so that no local folder
// named "s3:" is ever made of one.
func refuseObjectStoreOutputs(path string, cmds []*cli.Command) {
	for _, c := range cmds {
		name := strings.TrimPrefix(path+" "+c.Name, " ")
		if why, ok := localOnly[name]; ok {
			before := c.Before
			c.Before = func(ctx *cli.Context) error {
				out := ctx.String("output")
				switch {
				case name == "status" || name == "task":
					out = ctx.Args().First()
				case name == "tokens" && ctx.Bool("add-column"):
					out = ""
				}
				if blob.IsURL(out) || blob.IsAnyURL(out) {
					return usagef("sluice %s: %s is a URL: %s", name, out, why)
				}
				if before != nil {
					return before(ctx)
				}
				return nil
			}
		}
		refuseObjectStoreOutputs(name, c.Subcommands)
	}
}
