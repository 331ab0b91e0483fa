// Package dataset writes what a command produces: the kept rows as a
// dataset directory or a single file, the quarantine of unreadable lines,
// and the manifest that accounts for every row. Files are written under a
// temporary name and renamed when complete, so a crash never leaves a half
// file that looks whole; the manifest is written last.
package dataset

import (
	"io"
	"path/filepath"
	"strings"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/layout"
)

// Kind is the shape of an output path.
type Kind uint8

// The output kinds.
const (
	Directory   Kind = iota // OUT/data/part-NNNNN.parquet ...
	ParquetFile             // OUT.parquet
	JSONLFile               // OUT.jsonl, OUT.jsonl.gz, OUT.jsonl.zst
	Discard                 // nothing is written: commands that only report (token counts, say)
	Stdout                  // "-": JSONL rows on standard output, quarantined lines on standard error
	File                    // one file that holds no rows (a report, a model, a table ...): see Artifact
)

// Target is a parsed output path.
type Target struct {
	Path        string
	Kind        Kind
	Compression input.Compression // JSONL files only
	// PartsDir is where a directory target's part files go; Path/data
	// when empty.
	PartsDir string
	// Stream and Errs receive a Stdout target's rows and quarantined lines.
	Stream, Errs io.Writer
	// upload, when set, is told of each part file the writer finished
	// (an object-store output's local staging; see remote).
	upload func(path string)
}

// Parts returns the folder of a directory target's part files.
func (t Target) Parts() string {
	if t.PartsDir != "" {
		return t.PartsDir
	}
	return joinPath(t.Path, "data")
}

// joinPath joins a path or an object-store URL with a name.
func joinPath(p, name string) string {
	if blob.IsURL(p) {
		return blob.Join(p, name)
	}
	return filepath.Join(p, name)
}

// Removed returns the target for the rows a pipeline removes: OUT/removed/
// for a directory (part files directly inside), OUT.removed.<ext> beside a
// one-file target.
func (t Target) Removed() Target {
	switch t.Kind {
	case Discard, Stdout, File:
		return Target{Kind: Discard}
	case Directory:
		dir := joinPath(t.Path, "removed")
		return Target{Path: dir, Kind: Directory, PartsDir: dir, upload: t.upload}
	case ParquetFile:
		return Target{Path: stem(t.Path) + ".removed.parquet", Kind: ParquetFile}
	default:
		return Target{Path: stem(t.Path) + ".removed" + strings.TrimPrefix(t.Path, stem(t.Path)), Kind: JSONLFile, Compression: t.Compression}
	}
}

// ErrExists is returned when the output already exists and overwriting was
// not asked for. It is an ErrRefused.
var ErrExists error = refusedError{"output already exists (use --overwrite to replace it)"}

// ParseTarget tells the output kind from the path: a .parquet, .jsonl,
// .jsonl.gz or .jsonl.zst path is one file, any other is a directory.
func ParseTarget(path string) Target {
	t := Target{Path: filepath.Clean(path)}
	switch {
	case blob.IsURL(path):
		t.Path = blob.Clean(path)
	case checkLocal(path) != nil:
		t.Path = path // a URL, kept as given so that Check and Begin refuse it
	}
	switch {
	case path == "-":
		t.Kind = Stdout
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
	if t.Kind == Discard || t.Kind == Stdout {
		return ""
	}
	if t.Kind == Directory {
		return joinPath(t.Path, name)
	}
	return t.stem() + "." + name
}

// stem is the path of a one-file target without its data suffix
// (OUT.parquet → OUT); an artifact of another kind keeps its whole name
// (report.html → report.html, so its manifest is
// report.html.manifest.json), so that two artifacts of one name and
// different extensions (a model and its training text) never share one.
func (t Target) stem() string { return stem(t.Path) }

// stem strips the data suffix from a one-file path.
func stem(p string) string {
	for _, s := range []string{".jsonl.gz", ".jsonl.zst", ".ndjson.gz", ".ndjson.zst", ".jsonl", ".ndjson", ".parquet"} {
		if strings.HasSuffix(p, s) {
			return strings.TrimSuffix(p, s)
		}
	}
	return p
}

// checkLocal refuses the URL of an object store as an output path.
func checkLocal(path string) error {
	return input.CheckLocal(path)
}

// Paths returns the paths the target writes: the target itself first,
// then, for a one-file output, the side files beside it (the manifest,
// and for a one-file dataset the quarantine and the removed rows). A
// directory's files all lie inside its path; Discard and Stdout write
// none.
func (t Target) Paths() []string {
	switch t.Kind {
	case Discard, Stdout:
		return nil
	case File:
		return []string{t.Path, t.SidePath(layout.ManifestName)}
	case ParquetFile, JSONLFile:
		return []string{t.Path, t.SidePath(layout.ManifestName), t.SidePath("quarantine.jsonl"), t.Removed().Path}
	}
	return []string{t.Path}
}

// Check refuses, before any work, an output that cannot be written: a URL
// other than an object store's, and one that is an input, contains an input, or lies
// in a directory that is read as input (the next run would read the
// output back as input).
func (t Target) Check(in input.Set) error {
	if t.Kind == Discard || t.Kind == Stdout {
		return nil
	}
	if err := input.CheckPath(t.Path); err != nil {
		return refusedError{err.Error()}
	}
	outs := t.Paths()
	canonOuts := make([]string, len(outs))
	for i, out := range outs {
		canonOuts[i] = input.Canonical(out)
	}
	co := canonOuts[0]
	for _, f := range in.Files {
		if f.IsStream() {
			continue
		}
		cf := input.Canonical(f.Path)
		for i, c := range canonOuts {
			if cf == c {
				return refusef("output %s is also an input; write the output elsewhere", outs[i])
			}
		}
		if t.Kind == Directory && within(cf, co) {
			return refusef("output %s contains the input %s; write the output elsewhere", t.Path, f.Path)
		}
	}
	for _, d := range in.Dirs {
		cd := input.Canonical(d)
		switch {
		case co == cd:
			return refusef("output %s is also an input directory; write the output elsewhere", t.Path)
		case within(co, cd):
			return refusef("output %s lies in the input directory %s, so it would be read as input by the next run; write the output elsewhere", t.Path, d)
		case within(cd, co):
			return refusef("output %s contains the input directory %s; write the output elsewhere", t.Path, d)
		}
	}
	return nil
}

// within reports whether path lies strictly inside dir (both canonical).
func within(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
