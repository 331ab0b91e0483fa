package command

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/report"
)

// demoReport writes OUT/report.html, the page of `sluice report` over the
// demo's cleaning and its decontamination, and prints its path. The page
// replaces only the one an earlier demo wrote (with overwrite).
func demoReport(ctx context.Context, out string, overwrite bool, workers int, command []string, s Streams) error {
	path := filepath.Join(out, "report.html")
	inputs := []string{out, filepath.Join(out, "decontaminated")}
	file, err := dataset.BeginArtifact(ctx, dataset.ArtifactSpec{Path: path, What: "report", Inputs: inputs,
		Overwrite: overwrite, Command: command, Version: Version, Written: isReportFile})
	if err != nil {
		return err
	}
	defer file.Abort()
	rep, err := report.Gather(ctx, inputs, report.Options{Workers: max(workers, 1)})
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	var buf bytes.Buffer
	if err := report.WriteHTML(&buf, rep, nil); err != nil {
		return err
	}
	if err := file.Commit(buf.Bytes()); err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	fmt.Fprintf(s.Out, "\nThe whole run on one page (sluice report %s %s): %s\n  open it in a browser: file://%s\n",
		squote(out), squote(filepath.Join(out, "decontaminated")), path, filepath.ToSlash(abs))
	return nil
}
