package dataset

import (
	"context"
	"path/filepath"
	"sort"
)

// WriteFileSet writes files (names relative to dir, slash-separated) as
// one output in the folder dir: claimed like a dataset directory (an
// existing folder only when a sluice manifest claims it and overwrite is
// set; a folder sluice did not write never), staged, and committed whole
// with a manifest (dir/manifest.json) that lists them, so that a later
// run replaces exactly those files and nothing a user put beside them.
// m records the command; Commit fills in the files.
func WriteFileSet(ctx context.Context, dir string, files map[string][]byte, overwrite bool, m *Manifest) error {
	out, err := Begin(ctx, Target{Path: dir, Kind: Directory}, overwrite)
	if err != nil {
		return err
	}
	defer out.Abort()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := WriteFile(filepath.Join(out.Target().Path, filepath.FromSlash(name)), files[name]); err != nil {
			return err
		}
	}
	return out.Commit(m)
}
