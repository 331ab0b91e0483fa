package dataset

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/layout"
	"github.com/zeebo/xxh3"
)

// VersionIDLength is the number of hex digits of a version id.
const VersionIDLength = 12

// Parent is a sluice output that a run read as input: where it was and
// its version id when it was read.
type Parent struct {
	VersionID string `json:"version_id"`
	// Path is the parent's dataset directory, or its one-file output, as
	// the run's input paths name it.
	Path string `json:"path"`
}

// VersionID returns the version id of the dataset m describes: the first
// VersionIDLength hex digits of an xxh3-128 hash over its data files and
// removed files (each one's rows, bytes and xxhash64, in order) and its
// counts. Paths, dates and the command are left out: a dataset moved
// elsewhere keeps its id, and a rebuild that writes the same bytes gets
// the same one.
func VersionID(m *Manifest) string {
	var b strings.Builder
	b.WriteString("sluice-version/1\n")
	for _, f := range m.Outputs {
		fmt.Fprintf(&b, "data %d %d %s\n", f.Rows, f.Bytes, f.Hash)
	}
	for _, f := range m.Removed {
		fmt.Fprintf(&b, "removed %d %d %s\n", f.Rows, f.Bytes, f.Hash)
	}
	c := m.Counts
	fmt.Fprintf(&b, "counts %d %d %d %d %d\n", c.RowsIn, c.RowsOut, c.Removed, c.Quarantined, c.Inserted)
	h := xxh3.HashString128(b.String()).Bytes()
	return fmt.Sprintf("%x", h[:])[:VersionIDLength]
}

// IDOf returns m's version id: the one it records, or, for a manifest
// written before sluice recorded them, the one its outputs give.
func IDOf(m *Manifest) string {
	if m.VersionID != "" {
		return m.VersionID
	}
	return VersionID(m)
}

// stamp fills in what WriteManifest records of every output: its version
// id, its parents (the sluice outputs among its inputs) and the working
// directory the run's relative paths are relative to.
func stamp(m *Manifest) {
	m.VersionID = VersionID(m)
	if m.Parents == nil {
		m.Parents = ParentsOf(m.Inputs)
	}
	if m.WorkDir == "" {
		m.WorkDir, _ = os.Getwd()
	}
}

// ParentsOf returns the sluice outputs the input files belong to, in the
// order of the inputs, each once: a part file of a dataset directory
// (DIR/data/part-*.parquet, or DIR/removed/...) belongs to DIR when DIR's
// manifest lists it; a one-file output to the manifest beside it that lists
// it. Inputs that are no sluice output have no parent.
func ParentsOf(inputs []InputFile) []Parent {
	var parents []Parent
	seen := map[string]bool{}
	cache := map[string]*Manifest{}
	for _, in := range inputs {
		root, m := OwnerOf(in.Path, cache)
		if m == nil || seen[root] {
			continue
		}
		seen[root] = true
		parents = append(parents, Parent{VersionID: IDOf(m), Path: root})
	}
	return parents
}

// OwnerOf returns the sluice output a file belongs to: its path (a
// dataset directory or a one-file output) and its manifest, or "" and nil.
// cache, when not nil, keeps the manifests read by their path.
func OwnerOf(file string, cache map[string]*Manifest) (string, *Manifest) {
	if file == "" || file == "-" || checkLocal(file) != nil {
		return "", nil
	}
	if st, err := os.Stat(file); err != nil || !st.Mode().IsRegular() {
		return "", nil
	}
	read := func(path string) *Manifest {
		if m, ok := cache[path]; ok {
			return m
		}
		var m *Manifest
		if layout.IsSluiceManifest(path) {
			m, _ = ReadManifest(path)
		}
		if cache != nil {
			cache[path] = m
		}
		return m
	}
	lists := func(m *Manifest, rel string) bool {
		return m != nil && (slices.Contains(m.Files, rel) || slices.Contains(m.Files, filepath.ToSlash(rel)))
	}
	dir := filepath.Dir(file)
	if b := filepath.Base(dir); b == layout.DataDir || b == layout.RemovedDir {
		root := filepath.Dir(dir)
		if m := read(filepath.Join(root, layout.ManifestName)); lists(m, filepath.Join(b, filepath.Base(file))) {
			return root, m
		}
	}
	t := ParseTarget(file)
	if t.Kind == ParquetFile || t.Kind == JSONLFile {
		if m := read(t.SidePath(layout.ManifestName)); lists(m, filepath.Base(file)) {
			return t.Path, m
		}
	}
	return "", nil
}

// Open finds the manifest of the sluice output at path (see Locate) and
// reads it; it returns the manifest, its path and the output's root.
func Open(path string) (m *Manifest, manifest, root string, err error) {
	if manifest, root, err = Locate(path); err != nil {
		return nil, "", "", err
	}
	if m, err = ReadManifest(manifest); err != nil {
		return nil, "", "", fmt.Errorf("%s: %w", manifest, err)
	}
	return m, manifest, root, nil
}

// Locate finds the manifest of the sluice output at path: a dataset
// directory, its manifest.json, a one-file output, or the manifest beside
// one. It returns the manifest's path and the output's root (the folder
// the manifest's Files are relative to).
func Locate(path string) (manifest, root string, err error) {
	if blob.IsURL(path) {
		return "", "", locateRemote(path)
	}
	if checkLocal(path) != nil {
		return "", "", fmt.Errorf("%s: only local paths can be read here", path)
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", "", err
	}
	switch {
	case st.IsDir():
		manifest = filepath.Join(path, layout.ManifestName)
		if _, err := os.Stat(manifest); err != nil {
			if layout.DirKind(path) == layout.Incomplete {
				return "", "", fmt.Errorf("%s: has part files but no manifest.json: an incomplete dataset (a run that did not finish)", path)
			}
			return "", "", fmt.Errorf("%s: not a sluice dataset (no manifest.json)", path)
		}
	case strings.HasSuffix(path, layout.ManifestName):
		manifest = path
	default:
		manifest = ParseTarget(path).SidePath(layout.ManifestName)
		if _, err := os.Stat(manifest); err != nil {
			return "", "", fmt.Errorf("%s: not a sluice output (no %s beside it)", path, filepath.Base(manifest))
		}
	}
	if !layout.IsSluiceManifest(manifest) {
		return "", "", fmt.Errorf("%s: not a sluice manifest (no \"format\": %q)", manifest, layout.Format)
	}
	return manifest, filepath.Dir(manifest), nil
}
