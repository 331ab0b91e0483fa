package command

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/sluice-data/sluice/diff"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/provenance"
	"github.com/urfave/cli/v2"
)

// RerunOptions are the flags of `sluice rerun`.
type RerunOptions struct {
	Output       string
	AllowChanged bool
	Overwrite    bool
	JSON         bool
}

// RerunResult is the --json object of rerun.
type RerunResult struct {
	Dataset    string   `json:"dataset"`
	VersionID  string   `json:"version_id"`
	Command    []string `json:"command"`
	Output     string   `json:"output"`
	NewVersion string   `json:"new_version_id"`
	Reproduced bool     `json:"reproduced"`
	// Differences are the files and counts that differ from the old
	// version's; Changed what differed before the run (inputs, tool
	// version; with --allow-changed); Config the effective settings and
	// stage parameters that differ.
	Differences []string `json:"differences"`
	Changed     []string `json:"changed"`
	Config      []string `json:"config"`
}

func rerunCommand(s Streams) *cli.Command {
	o := &RerunOptions{}
	return &cli.Command{
		Name:      "rerun",
		Usage:     "rebuild a version from its manifest's command and check it came out byte for byte the same",
		ArgsUsage: "DATASET -o NEW",
		Description: "Runs the command line DATASET's manifest records, in the working directory it records, with its\n" +
			"output replaced by NEW. First every input the manifest records is checked against its size and\n" +
			"xxhash64, and the tool version against this one: if anything changed, rerun refuses (exit code 1)\n" +
			"unless --allow-changed. Then it compares the new data and removed files with the old ones (rows,\n" +
			"bytes, xxhash64) and the counts, and says whether the version reproduced: exit code 0 when it did,\n" +
			"1 when it did not, with each difference. Effective settings that differ (a pipeline file edited\n" +
			"since, say) are listed too. A version written inside its command's output (as the demo writes\n" +
			"several) is compared with its place in NEW. NEW may not be DATASET, nor hold or lie in it, nor be\n" +
			"an input the manifest records (exit code 2); an existing NEW is replaced only with --overwrite (the\n" +
			"recorded command's own --overwrite is dropped). A manifest that records a rerun as its command is\n" +
			"refused (exit code 1). The old version's files are checked against its manifest too: one that\n" +
			"does not match it is not reproduced.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Required: true, Destination: &o.Output,
				Usage: "where the rebuilt version is written (the recorded command's output is replaced by it)"},
			&cli.BoolFlag{Name: "allow-changed", Destination: &o.AllowChanged,
				Usage: "run even when an input's bytes or the tool version changed since (the result then rarely reproduces)"},
			&cli.BoolFlag{Name: "overwrite", Destination: &o.Overwrite,
				Usage: "replace NEW when it is a sluice output (an --overwrite the recorded command had is not used)"},
			versionJSONFlag(&o.JSON),
		},
		Action: action(func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("rerun takes one dataset (DATASET -o NEW), got %d arguments", c.NArg())
			}
			return runRerun(c, o, c.Args().First(), s)
		}),
	}
}

// rerunning marks the context of a command line that rerun runs: a
// recorded command that is itself a rerun is refused, so that no manifest
// can make reruns nest without end.
type rerunning struct{}

func runRerun(c *cli.Context, o *RerunOptions, path string, s Streams) error {
	if _, _, err := dataset.Locate(path); err != nil {
		return usageError{err}
	}
	if outer, ok := c.Context.Value(rerunning{}).(string); ok {
		return fmt.Errorf("%s records a rerun (of %s) as the command that made it, and a rerun writes no version of its own: refusing to rerun it", outer, path)
	}
	plan, err := provenance.PlanRerun(path, o.Output, Version)
	if err != nil {
		return err
	}
	cwd, _ := os.Getwd()
	if plan.Dir != "" && plan.Dir != cwd {
		// The recorded paths are relative to the recorded directory; the
		// paths given here to this one.
		absOut, err := filepath.Abs(o.Output)
		if err != nil {
			return err
		}
		absPath, err := filepath.Abs(path)
		if err != nil {
			return err
		}
		if plan, err = provenance.PlanRerun(absPath, absOut, Version); err != nil {
			return err
		}
	}
	if o.Overwrite {
		plan.Overwrite()
	}
	// The version rerun and what it was made from are inputs of the
	// rebuild: the new output may not replace, hold or lie in them.
	if err := dataset.ParseTarget(o.Output).Check(provenance.Sources(plan.M, plan.Manifest, plan.Root, true)); err != nil {
		return fmt.Errorf("-o %s: %w", o.Output, err)
	}
	notes := s.Out
	if o.JSON {
		notes = s.Err
	}
	if len(plan.Changed) > 0 {
		if !o.AllowChanged {
			return fmt.Errorf("%s: refusing to rerun, what it was made from changed (--allow-changed runs it anyway): %s",
				path, strings.Join(plan.Changed, "; "))
		}
		for _, ch := range plan.Changed {
			fmt.Fprintf(notes, "changed since: %s\n", ch)
		}
	}
	where := ""
	if plan.Dir != "" && plan.Dir != cwd {
		where = " (in " + plan.Dir + ")"
	}
	fmt.Fprintf(notes, "rerun: %s%s\n", shellLine(plan.Args), where)
	if err := runArgs(c, plan, Streams{In: s.In, Out: notes, Err: s.Err}, cwd); err != nil {
		return err
	}
	res, err := compareRebuilt(c, path, plan)
	if err != nil {
		return err
	}
	if err := (Report{JSON: o.JSON}).result(s.Out, res, func(w io.Writer) { printRerun(w, res) }); err != nil {
		return err
	}
	if !res.Reproduced {
		return fmt.Errorf("%s: version %s did not reproduce: %s", path, res.VersionID, res.Differences[0])
	}
	return nil
}

// runArgs runs the planned command line in this process, in the recorded
// working directory.
func runArgs(c *cli.Context, plan *provenance.Rerun, s Streams, cwd string) error {
	if plan.Dir != "" && plan.Dir != cwd {
		if err := os.Chdir(plan.Dir); err != nil {
			return err
		}
		defer os.Chdir(cwd)
	}
	app := NewApp(s)
	app.Metadata = map[string]any{argsKey: plan.Args}
	ctx := context.WithValue(c.Context, rerunning{}, plan.Manifest)
	return app.RunContext(ctx, interspersed(app, plan.Args))
}

// compareRebuilt reads the rebuilt version and compares it with the old.
func compareRebuilt(c *cli.Context, path string, plan *provenance.Rerun) (*RerunResult, error) {
	res := &RerunResult{Dataset: path, VersionID: dataset.IDOf(plan.M), Command: plan.Args, Output: plan.Output,
		Differences: []string{}, Changed: plan.Changed, Config: []string{}}
	if res.Changed == nil {
		res.Changed = []string{}
	}
	rebuilt, err := diff.Open(plan.Output)
	if err != nil {
		return nil, fmt.Errorf("the rerun wrote no version at %s: %w", plan.Output, err)
	}
	res.NewVersion = rebuilt.VersionID
	res.Reproduced, res.Differences = provenance.Reproduced(plan.M, rebuilt.M)
	if res.Differences == nil {
		res.Differences = []string{}
	}
	old, err := diff.Open(path)
	if err != nil {
		return nil, err
	}
	d, err := diff.Compare(c.Context, old, rebuilt, diff.Options{NoRows: true})
	if err != nil {
		return nil, err
	}
	// The old version is its files, not what its manifest says of them.
	for _, p := range d.ProblemsA {
		res.Differences = append(res.Differences, fmt.Sprintf("%s does not match its manifest: %s", path, p))
	}
	for _, p := range d.ProblemsB {
		res.Differences = append(res.Differences, fmt.Sprintf("the rebuilt %s does not match its manifest: %s", plan.Output, p))
	}
	res.Reproduced = len(res.Differences) == 0
	for _, ch := range d.Config.Options {
		if ch.Key == "workers" || ch.Key == "overwrite" {
			continue // how the run went, not what it made
		}
		res.Config = append(res.Config, fmt.Sprintf("setting %s: %s, before %s", ch.Key, jsonText(ch.B), jsonText(ch.A)))
	}
	for _, st := range d.Config.Stages {
		for _, ch := range st.Changes {
			res.Config = append(res.Config, fmt.Sprintf("stage %s %s: %s, before %s", st.Stage, ch.Key, jsonText(ch.B), jsonText(ch.A)))
		}
		if st.Only != "" {
			res.Config = append(res.Config, fmt.Sprintf("stage %s: only in the %s version", st.Stage, map[string]string{"a": "old", "b": "new"}[st.Only]))
		}
	}
	return res, nil
}

func printRerun(w io.Writer, r *RerunResult) {
	for _, c := range r.Config {
		fmt.Fprintf(w, "effective configuration differs: %s\n", c)
	}
	if r.Reproduced {
		fmt.Fprintf(w, "reproduced: %s is version %s, the same data and removed files byte for byte as %s\n", r.Output, r.NewVersion, r.Dataset)
		return
	}
	fmt.Fprintf(w, "not reproduced: %s is version %s, %s is %s\n", r.Output, r.NewVersion, r.Dataset, r.VersionID)
	for _, d := range r.Differences {
		fmt.Fprintf(w, "  %s\n", d)
	}
}
