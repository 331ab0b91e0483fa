package command

import (
	"bytes"
	"context"
	"fmt"
	"runtime/pprof"

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

// cpuProfile is the Go CPU profile of a run (--cpuprofile): kept in
// memory while the command runs and written, as an artifact, when it ends.
type cpuProfile struct {
	file *dataset.Artifact
	buf  bytes.Buffer
}

// startCPUProfile claims path (never one of args, the command line's
// paths, nor a file sluice did not write) and starts the profile.
func startCPUProfile(path string, args []string) (*cpuProfile, error) {
	file, err := beginArtifact(context.Background(), "--cpuprofile", dataset.ArtifactSpec{Path: path, What: "CPU profile",
		Inputs: args, Overwrite: true})
	if err != nil {
		return nil, err
	}
	p := &cpuProfile{file: file}
	if err := pprof.StartCPUProfile(&p.buf); err != nil {
		file.Abort()
		return nil, err
	}
	return p, nil
}

// stop ends the profile and writes it.
func (p *cpuProfile) stop() error {
	pprof.StopCPUProfile()
	defer p.file.Abort()
	return p.file.Commit(p.buf.Bytes())
}
