package command

import (
	"context"
	"fmt"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
)

// inputsOf returns every path a command reads, for an artifact's check
// against its inputs: the arguments (the directories among them) and the
// files they expand to.
func inputsOf(args []string, files []input.File) []string {
	return append(append([]string(nil), args...), dataset.InputPaths(input.Set{Files: files})...)
}

// beginArtifact claims the file a command writes besides (or instead of)
// a dataset, before any work: see dataset.Artifact. flag names the
// option that gave the path, for the error.
func beginArtifact(ctx context.Context, flag string, spec dataset.ArtifactSpec) (*dataset.Artifact, error) {
	spec.Version = Version
	a, err := dataset.BeginArtifact(ctx, spec)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return a, nil
}

// outputPaths returns the paths a dataset target writes: the target, and
// for a one-file output the side files beside it.
func outputPaths(t dataset.Target) []string {
	switch t.Kind {
	case dataset.Directory:
		return []string{t.Path}
	case dataset.ParquetFile, dataset.JSONLFile:
		return []string{t.Path, t.SidePath("manifest.json"), t.SidePath("quarantine.jsonl"), t.Removed().Path}
	}
	return nil
}
