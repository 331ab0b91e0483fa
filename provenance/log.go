package provenance

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sluice-data/sluice/io/dataset"
)

// Step is one version in a dataset's history: what made it, from what.
type Step struct {
	VersionID   string           `json:"version_id"`
	Path        string           `json:"path"`               // the output, as the child's manifest names it
	Manifest    string           `json:"manifest,omitempty"` // where its manifest was read
	Command     []string         `json:"command,omitempty"`
	ToolVersion string           `json:"tool_version,omitempty"`
	Date        string           `json:"date,omitempty"`
	Counts      dataset.Counts   `json:"counts"`
	Stages      []StageStep      `json:"stages"`
	Parents     []dataset.Parent `json:"parents"`
	// Problem tells why a parent's history stops here: it is gone, or
	// its path now holds another version.
	Problem string `json:"problem,omitempty"`
	// Depth is how many runs lie between this version and the one asked
	// for (0 for that one).
	Depth int `json:"depth"`
}

// StageStep is what one stage of a run did.
type StageStep struct {
	Name    string           `json:"name"`
	RowsIn  int64            `json:"rows_in"`
	RowsOut int64            `json:"rows_out"`
	Removed map[string]int64 `json:"removed"`
}

// Version is a version of the history, read: its step and manifest.
type Version struct {
	Step
	M    *dataset.Manifest
	Root string // the folder its Files are relative to
}

// Log returns the history of the sluice output at path, like git log: the
// output's own version first, then its parents depth first, each version
// once.
func Log(path string) ([]Step, error) {
	vs, err := History(path)
	if err != nil {
		return nil, err
	}
	steps := make([]Step, len(vs))
	for i, v := range vs {
		steps[i] = v.Step
	}
	return steps, nil
}

// History reads the versions of the history of the output at path, as
// Log lists them; a parent that is gone or rewritten has no manifest.
func History(path string) ([]*Version, error) {
	m, manifest, root, err := dataset.Open(path)
	if err != nil {
		return nil, err
	}
	var out []*Version
	seen := map[string]bool{}
	var walk func(display, manifest, root string, m *dataset.Manifest, depth int)
	walk = func(display, manifest, root string, m *dataset.Manifest, depth int) {
		abs, _ := filepath.Abs(manifest)
		if seen[abs] {
			return
		}
		seen[abs] = true
		v := &Version{Step: stepOf(display, manifest, m, depth), M: m, Root: root}
		out = append(out, v)
		for _, p := range m.Parents {
			pm, proot, pmanifest, problem := openParent(m, root, p)
			if problem != "" {
				out = append(out, &Version{Step: Step{VersionID: p.VersionID, Path: p.Path, Problem: problem,
					Stages: []StageStep{}, Parents: []dataset.Parent{}, Depth: depth + 1}})
				continue
			}
			walk(p.Path, pmanifest, proot, pm, depth+1)
		}
	}
	walk(path, manifest, root, m, 0)
	return out, nil
}

// openParent finds the manifest of a parent recorded in m, the manifest
// of the output at root. A relative path is relative to the working
// directory of m's run, so it is taken against that directory first;
// then against where that directory is now, if the output moved with it
// (see movedWorkDir); the current directory comes last. The first place
// that holds the recorded version wins; problem tells why none does.
func openParent(m *dataset.Manifest, root string, p dataset.Parent) (pm *dataset.Manifest, proot, manifest, problem string) {
	var candidates []string
	if filepath.IsAbs(p.Path) {
		candidates = []string{p.Path}
	} else {
		here, _ := filepath.Abs(p.Path)
		for _, dir := range []string{m.WorkDir, movedWorkDir(m, root)} {
			switch c := filepath.Join(dir, p.Path); {
			case dir == "":
			case c == here:
				candidates = append(candidates, p.Path) // named as the current directory names it
			default:
				candidates = append(candidates, c)
			}
		}
		candidates = append(candidates, p.Path)
	}
	for _, c := range candidates {
		if _, err := os.Stat(c); err != nil {
			continue
		}
		pm, mf, r, err := dataset.Open(c)
		if err != nil {
			problem = cmp.Or(problem, err.Error())
			continue
		}
		if id := dataset.IDOf(pm); id != p.VersionID {
			problem = cmp.Or(problem, fmt.Sprintf("%s now holds version %s: the version read is gone", c, id))
			continue
		}
		return pm, r, mf, ""
	}
	return nil, "", "", cmp.Or(problem, fmt.Sprintf("%s: not found", p.Path))
}

// movedWorkDir returns where the working directory of m's run is now, if
// the output at root was named by a relative path there and moved with
// it: root without the folders of that path ("" when it cannot tell).
func movedWorkDir(m *dataset.Manifest, root string) string {
	if len(m.Outputs) == 0 {
		return ""
	}
	recorded := filepath.Clean(m.Outputs[0].Path)
	rel := Resolve(m, recorded)
	if filepath.IsAbs(recorded) || !strings.HasSuffix(recorded, rel) {
		return ""
	}
	dir, err := filepath.Abs(root)
	if err != nil {
		return ""
	}
	prefix := strings.TrimSuffix(strings.TrimSuffix(recorded, rel), string(filepath.Separator))
	if prefix == "" {
		return dir
	}
	for _, elem := range strings.Split(filepath.ToSlash(prefix), "/") {
		if elem == ".." {
			return ""
		}
		dir = filepath.Dir(dir)
	}
	return dir
}

func stepOf(path, manifest string, m *dataset.Manifest, depth int) Step {
	s := Step{VersionID: dataset.IDOf(m), Path: path, Manifest: manifest, Command: m.Command, ToolVersion: m.Version,
		Date: m.Started, Counts: m.Counts, Stages: []StageStep{}, Parents: m.Parents, Depth: depth}
	if s.Parents == nil {
		s.Parents = []dataset.Parent{}
	}
	for _, st := range m.Stages {
		removed := st.Removed
		if removed == nil {
			removed = map[string]int64{}
		}
		s.Stages = append(s.Stages, StageStep{Name: st.Name, RowsIn: st.RowsIn, RowsOut: st.RowsOut, Removed: removed})
	}
	return s
}
