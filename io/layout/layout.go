// Package layout names the files of a sluice output and tells a sluice
// dataset directory from any other directory. It is the one place that
// knows the names: the writers (io/dataset) create them, the input scanner
// (io/input) skips them, and neither guesses.
//
// A directory is a sluice dataset only when its manifest.json says so in
// its "format" field; a directory with part files and no such manifest is
// an incomplete dataset (a run killed before it finished, or a copy cut
// short), which readers refuse unless asked to read it anyway.
package layout

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Format is the value of the manifest's "format" field.
const Format = "sluice-dataset/1"

// The fixed names inside a dataset directory.
const (
	ManifestName   = "manifest.json"
	QuarantineName = "quarantine.jsonl"
	DataDir        = "data"
	RemovedDir     = "removed"
)

// Hidden names sluice uses beside or inside an output while writing it.
const (
	// StagingPrefix starts the name of the temporary directory a new
	// output is written into before it is moved into place.
	StagingPrefix = ".sluice-tmp-"
	// LockSuffix ends the name of the lock file of an output.
	LockSuffix = ".sluice-lock"
)

// Kind is what a directory holds.
type Kind uint8

// The kinds of directories.
const (
	Plain      Kind = iota // not a sluice output
	Dataset                // a complete sluice dataset: its manifest names the format
	Incomplete             // sluice's layout (data/ part files) without a sluice manifest
)

// DirKind tells what dir holds.
func DirKind(dir string) Kind {
	if IsSluiceManifest(filepath.Join(dir, ManifestName)) {
		return Dataset
	}
	parts, _ := filepath.Glob(filepath.Join(dir, DataDir, "part-*.parquet"))
	if len(parts) > 0 {
		return Incomplete
	}
	return Plain
}

// IsSluiceManifest reports whether the file at path is a manifest that
// sluice wrote: a JSON object whose "format" field is Format.
func IsSluiceManifest(path string) bool {
	f, err := ReadFormat(path)
	return err == nil && f == Format
}

// ReadFormat returns the "format" field of the JSON object in the file at
// path ("" when it has none).
func ReadFormat(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", errors.New("not a regular file")
	}
	var head struct {
		Format string `json:"format"`
	}
	// A manifest is small; a huge file of that name is not one.
	if err := json.NewDecoder(io.LimitReader(f, 64<<20)).Decode(&head); err != nil {
		return "", err
	}
	return head.Format, nil
}

// IsSideFile reports whether a file name is one of the side outputs sluice
// writes (a manifest, a quarantine, removed rows), which a directory scan
// never takes as input.
func IsSideFile(name string) bool {
	base := filepath.Base(name)
	switch {
	case base == ManifestName, base == QuarantineName:
		return true
	case strings.HasSuffix(base, "."+ManifestName), strings.HasSuffix(base, "."+QuarantineName):
		return true
	case strings.HasPrefix(base, "quarantine-") && strings.HasSuffix(base, ".jsonl"),
		strings.HasPrefix(base, "manifest-") && strings.HasSuffix(base, ".json"):
		return true // the per-shard side outputs of a sharded run
	case strings.Contains(base, ".removed."):
		return true // OUT.removed.parquet, OUT.removed.jsonl.gz ...
	}
	return false
}

// IsHidden reports whether a file or directory name is hidden (starts with
// a dot): sluice's own temporary files and locks, and whatever else a user
// hides, are never read as input by a directory scan.
func IsHidden(name string) bool {
	base := filepath.Base(name)
	return strings.HasPrefix(base, ".") && base != "." && base != ".."
}
