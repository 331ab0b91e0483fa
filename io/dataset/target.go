// Package dataset writes what a command produces: the kept rows as a
// dataset directory or a single file, the quarantine of unreadable lines,
// and the manifest that accounts for every row. Files are written under a
// temporary name and renamed when complete, so a crash never leaves a half
// file that looks whole; the manifest is written last.
package dataset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sluice-data/sluice/io/input"
)

// Kind is the shape of an output path.
type Kind uint8

// The output kinds.
const (
	Directory   Kind = iota // OUT/data/part-NNNNN.parquet ...
	ParquetFile             // OUT.parquet
	JSONLFile               // OUT.jsonl, OUT.jsonl.gz, OUT.jsonl.zst
	Discard                 // nothing is written: commands that only report (token counts, say)
)

// Target is a parsed output path.
type Target struct {
	Path        string
	Kind        Kind
	Compression input.Compression // JSONL files only
	// PartsDir is where a directory target's part files go; Path/data
	// when empty.
	PartsDir string
}

// Parts returns the folder of a directory target's part files.
func (t Target) Parts() string {
	if t.PartsDir != "" {
		return t.PartsDir
	}
	return filepath.Join(t.Path, "data")
}

// Removed returns the target for the rows a pipeline removes: OUT/removed/
// for a directory (part files directly inside), OUT.removed.<ext> beside a
// one-file target.
func (t Target) Removed() Target {
	switch t.Kind {
	case Discard:
		return t
	case Directory:
		dir := filepath.Join(t.Path, "removed")
		return Target{Path: dir, Kind: Directory, PartsDir: dir}
	case ParquetFile:
		return Target{Path: stem(t.Path) + ".removed.parquet", Kind: ParquetFile}
	default:
		return Target{Path: stem(t.Path) + ".removed" + strings.TrimPrefix(t.Path, stem(t.Path)), Kind: JSONLFile, Compression: t.Compression}
	}
}

// ErrExists is returned when the output already exists and overwriting was
// not asked for.
var ErrExists = errors.New("output already exists (use --overwrite to replace it)")

// ParseTarget tells the output kind from the path: a .parquet, .jsonl,
// .jsonl.gz or .jsonl.zst path is one file, any other is a directory.
func ParseTarget(path string) Target {
	t := Target{Path: filepath.Clean(path)}
	switch {
	case strings.HasSuffix(path, ".parquet"):
		t.Kind = ParquetFile
	case strings.HasSuffix(path, ".jsonl"), strings.HasSuffix(path, ".ndjson"):
		t.Kind = JSONLFile
	case strings.HasSuffix(path, ".jsonl.gz"), strings.HasSuffix(path, ".ndjson.gz"):
		t.Kind, t.Compression = JSONLFile, input.Gzip
	case strings.HasSuffix(path, ".jsonl.zst"), strings.HasSuffix(path, ".ndjson.zst"):
		t.Kind, t.Compression = JSONLFile, input.Zstd
	default:
		t.Kind = Directory
	}
	return t
}

// SidePath returns where a side output lives: inside a directory target,
// or beside a one-file target with the name as a suffix
// (OUT.parquet.manifest.json → OUT.manifest.json).
func (t Target) SidePath(name string) string {
	if t.Kind == Discard {
		return ""
	}
	if t.Kind == Directory {
		return filepath.Join(t.Path, name)
	}
	return stem(t.Path) + "." + name
}

// stem strips the data suffix from a one-file path.
func stem(p string) string {
	for _, s := range []string{".jsonl.gz", ".jsonl.zst", ".ndjson.gz", ".ndjson.zst", ".jsonl", ".ndjson", ".parquet"} {
		if strings.HasSuffix(p, s) {
			return strings.TrimSuffix(p, s)
		}
	}
	return p
}

// Prepare checks that the target may be written and clears what a previous
// run left when overwrite is set. Parent directories are created. A
// directory is only deleted if it looks like a sluice dataset.
func (t Target) Prepare(overwrite bool) error {
	switch t.Kind {
	case Discard:
		return nil
	case Directory:
		entries, err := os.ReadDir(t.Path)
		if errors.Is(err, os.ErrNotExist) {
			return os.MkdirAll(t.Path, 0o755)
		}
		if err != nil {
			return err
		}
		if len(entries) == 0 {
			return nil
		}
		if !overwrite {
			return fmt.Errorf("%s: %w", t.Path, ErrExists)
		}
		if !looksLikeDataset(t.Path) {
			return fmt.Errorf("%s: exists and is not a sluice dataset (no manifest.json or data/); refusing to delete it", t.Path)
		}
		if err := os.RemoveAll(t.Path); err != nil {
			return err
		}
		return os.MkdirAll(t.Path, 0o755)
	default:
		if st, err := os.Stat(t.Path); err == nil {
			if st.IsDir() {
				return fmt.Errorf("%s: is a directory", t.Path)
			}
			if !overwrite {
				return fmt.Errorf("%s: %w", t.Path, ErrExists)
			}
			for _, side := range []string{t.Path, t.SidePath("manifest.json"), t.SidePath("quarantine.jsonl"), t.Removed().Path} {
				if err := os.Remove(side); err != nil && !errors.Is(err, os.ErrNotExist) {
					return err
				}
			}
		}
		return os.MkdirAll(filepath.Dir(t.Path), 0o755)
	}
}

func looksLikeDataset(dir string) bool {
	for _, name := range []string{"manifest.json", "data"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	return false
}
