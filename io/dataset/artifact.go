package dataset

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/layout"
)

// Artifact is one file a command writes that is not a dataset: a report
// page, a dataset card, a table of counts, a trained model, a probe file.
// It goes through the output path of a one-file dataset: checked against
// the command's inputs before any work, claimed (an existing file is
// replaced only with overwrite, and only when sluice wrote it), written
// into a staging folder beside its place and renamed into place only when
// whole, with its manifest (<stem>.manifest.json beside it, listing it)
// written last. That manifest is how a later run knows the file is
// sluice's: a file without one is never replaced.
type Artifact struct {
	// Manifest is what the manifest beside the file records: the command,
	// and whatever the command adds (Options, Inputs, Report). Commit
	// fills in the file itself (Outputs, Counts, Files) and what it is.
	Manifest Manifest
	// Rows are the rows of a Parquet or JSONL artifact (a table, probes),
	// recorded in its manifest as the file's rows and as its counts, so
	// that the manifest verifies as a one-file output's.
	Rows int64
	out  *Output
}

// ArtifactSpec says where an artifact goes and what it may not replace.
type ArtifactSpec struct {
	Path string // where the file goes
	What string // what it is, recorded in its manifest: "report", "dataset card", "model" ...
	// Inputs are every path the command reads (files, directories,
	// datasets): the artifact may not be one of them, nor a file of an
	// input dataset, nor lie in an input directory that is not a dataset.
	Inputs []string
	// Outputs are the command's other outputs: the artifact may not be
	// one of them nor lie in one.
	Outputs   []string
	Overwrite bool
	Command   []string // the command line, recorded in the manifest
	Version   string   // the tool version, recorded in the manifest
	// Written, when set, tells whether an existing file that no manifest
	// lists was written by sluice all the same: a mark in the file from a
	// version that wrote no manifest beside it (a report page's). Such a
	// file is replaced as one that a manifest lists. Local files only.
	Written func(path string) bool
}

// ArtifactTarget returns the target of an artifact at path.
func ArtifactTarget(path string) Target {
	t := ParseTarget(path)
	t.Kind, t.Compression = File, input.None
	return t
}

// CheckArtifact refuses, before any work, an artifact that may not be
// written where s says (see ArtifactSpec); the error is an ErrRefused.
// BeginArtifact checks the same, and the existing file too.
func CheckArtifact(s ArtifactSpec) error {
	t := ArtifactTarget(s.Path)
	if err := input.CheckPath(t.Path); err != nil {
		return refusedError{err.Error()}
	}
	if !t.IsRemote() {
		if st, err := os.Stat(t.Path); err == nil && st.IsDir() {
			return refusef("%s: is a directory; give a file name", t.Path)
		}
	}
	mine := []string{t.Path, t.SidePath(layout.ManifestName)}
	for _, in := range s.Inputs {
		for _, p := range mine {
			if err := refuseOverInput(p, in); err != nil {
				return err
			}
		}
	}
	for _, o := range s.Outputs {
		co := input.Canonical(o)
		for _, p := range mine {
			if cp := input.Canonical(p); cp == co || within(cp, co) {
				return refusef("%s: is also an output of this command (%s); write it elsewhere", p, o)
			}
		}
	}
	return nil
}

// refuseOverInput refuses to write p when it would replace the input in,
// a file of the sluice output in belongs to, or lie in the input
// directory in (which is read as input) unless that is a sluice dataset
// and p none of its files: a card beside a dataset's manifest is fine.
func refuseOverInput(p, in string) error {
	if in == "" || in == "-" {
		return nil
	}
	cp, ci := input.Canonical(p), input.Canonical(in)
	if cp == ci {
		return refusef("%s: is also an input; write it elsewhere", p)
	}
	if blob.IsURL(p) || blob.IsURL(in) {
		return nil
	}
	if st, err := os.Stat(in); err == nil && st.IsDir() {
		switch {
		case !within(cp, ci):
			return nil
		case layout.DirKind(in) != layout.Dataset:
			return refusef("%s: lies in the input directory %s, so it would be read as input by the next run; write it elsewhere", p, in)
		case ownedBy(filepath.Join(in, layout.ManifestName), ci, cp):
			return refusef("%s: is a file of the input dataset %s; write it elsewhere", p, in)
		}
		return nil
	}
	root, m := OwnerOf(in, nil)
	if m == nil {
		return nil
	}
	manifest := filepath.Join(root, layout.ManifestName)
	if st, err := os.Stat(root); err == nil && !st.IsDir() {
		manifest = ParseTarget(root).SidePath(layout.ManifestName)
	}
	if ownedBy(manifest, input.Canonical(filepath.Dir(manifest)), cp) {
		return refusef("%s: is a file of the input %s; write it elsewhere", p, root)
	}
	return nil
}

// ownedBy reports whether the canonical path p is a file of the sluice
// output whose manifest is at manifest, in the canonical folder dir: the
// manifest itself, a file it lists, a dataset's quarantine and anything
// under its data/ and removed/, or a hidden file of its own.
func ownedBy(manifest, dir, p string) bool {
	if !within(p, dir) {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		return false
	}
	rel = filepath.ToSlash(rel)
	if rel == filepath.Base(manifest) || layout.IsHidden(rel) {
		return true
	}
	if filepath.Base(manifest) == layout.ManifestName {
		if rel == layout.QuarantineName {
			return true // a dataset's, listed once it quarantines a line
		}
		for _, sub := range []string{layout.DataDir, layout.RemovedDir} {
			if rel == sub || strings.HasPrefix(rel, sub+"/") {
				return true
			}
		}
	}
	m, err := ReadManifest(manifest)
	return err == nil && slices.Contains(ownFiles(m), filepath.FromSlash(rel))
}

// InputPaths returns the paths of an input set (its files, streams
// aside, and its directories), for ArtifactSpec.Inputs.
func InputPaths(in input.Set) []string {
	var paths []string
	for _, f := range in.Files {
		if !f.IsStream() {
			paths = append(paths, f.Path)
		}
	}
	return append(paths, in.Dirs...)
}

// BeginArtifact checks s (CheckArtifact), then claims the file as Begin
// claims an output, before any work: an existing file is refused without
// s.Overwrite, and always when no sluice manifest beside it lists it.
func BeginArtifact(ctx context.Context, s ArtifactSpec) (*Artifact, error) {
	if err := CheckArtifact(s); err != nil {
		return nil, err
	}
	out, err := beginOutput(ctx, ArtifactTarget(s.Path), s.Overwrite, s.Written)
	if err != nil {
		return nil, err
	}
	return &Artifact{out: out, Manifest: Manifest{Tool: "sluice", Version: s.Version, Command: s.Command, Artifact: s.What}}, nil
}

// Path returns where the file goes.
func (a *Artifact) Path() string { return a.out.Final().Path }

// ManifestPath returns the path of the artifact's manifest.
func (a *Artifact) ManifestPath() string { return a.out.Final().SidePath(layout.ManifestName) }

// Commit writes data as the file and commits it.
func (a *Artifact) Commit(data []byte) error {
	return a.CommitFunc(func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// CommitFunc writes the file with write, into the staging folder, and
// commits it once write returned without error: the file and its manifest
// are moved into place (see Output.Commit). On error nothing is replaced.
func (a *Artifact) CommitFunc(write func(w io.Writer) error) error {
	staged := a.out.Target().Path
	af, err := CreateAtomic(staged)
	if err != nil {
		return err
	}
	if err := write(af); err != nil {
		af.Abort()
		return fmt.Errorf("%s: %w", a.Path(), err)
	}
	if err := af.Commit(); err != nil {
		return err
	}
	m := a.Manifest
	m.Outputs = []OutputFile{{Path: staged, Rows: a.Rows, Bytes: af.Size(), Hash: fmt.Sprintf("%016x", af.Sum64())}}
	m.Counts = Counts{RowsIn: a.Rows, RowsOut: a.Rows}
	return a.out.Commit(&m)
}

// Abort discards what was staged; the previous file, if any, is
// untouched. After Commit it does nothing, so callers may defer it.
func (a *Artifact) Abort() { a.out.Abort() }
