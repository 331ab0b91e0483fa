package provenance

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
)

// Rerun is how to rebuild a version: the command line to run and where,
// and what stands in the way.
type Rerun struct {
	Manifest string
	M        *dataset.Manifest
	Root     string // the folder of the version's files
	// Args is the recorded command line (program first) with its output
	// replaced by the new one, and without --overwrite: the recorded run
	// was told to replace its own output, not the new one (see
	// Overwrite).
	Args []string
	// Dir is the working directory of the recorded run, where Args must
	// run for its relative paths to mean what they meant ("" when not
	// recorded).
	Dir string
	// Output is where the rebuilt version will be: the new output, or the
	// place in it of a version the command wrote inside its output (the
	// demo's decontaminated/, say).
	Output string
	// Changed lists what differs from the recorded run: inputs whose
	// bytes changed or that are gone, and the tool version.
	Changed []string
}

// PlanRerun prepares the rebuild of the version at path into newOut with
// the tool at version tool: it checks every input the manifest records
// against its recorded size and xxhash64 and the tool version against the
// recorded one, and replaces the output (-o, --output) of the recorded
// command line with newOut. An input named "(built in)" is part of the
// tool, checked by its version.
func PlanRerun(path, newOut, tool string) (*Rerun, error) {
	m, manifest, root, err := dataset.Open(path)
	if err != nil {
		return nil, err
	}
	if len(m.Command) < 2 {
		return nil, fmt.Errorf("%s: records no command line to run again", manifest)
	}
	if m.Command[1] == "rerun" {
		return nil, fmt.Errorf("%s: records %q as the command that made it, and a rerun writes no version of its own: refusing to rerun it",
			manifest, strings.Join(m.Command[1:], " "))
	}
	r := &Rerun{Manifest: manifest, M: m, Root: root, Output: newOut}
	if st, err := os.Stat(m.WorkDir); err == nil && st.IsDir() {
		r.Dir = m.WorkDir
	}
	if m.Version != tool {
		r.Changed = append(r.Changed, fmt.Sprintf("made by sluice %s, this is %s", m.Version, tool))
	}
	r.Changed = append(r.Changed, r.checkInputs()...)
	args, old, err := replaceOutput(m.Command, newOut)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", manifest, err)
	}
	r.Args = withoutOverwrite(args)
	// A version written inside the run's output (the demo writes several)
	// is rebuilt at the same place inside the new one.
	if old != "" {
		absOld, absRoot := old, root
		if !filepath.IsAbs(absOld) && r.Dir != "" {
			absOld = filepath.Join(r.Dir, absOld)
		}
		absOld, _ = filepath.Abs(absOld)
		absRoot, _ = filepath.Abs(absRoot)
		if dataset.ParseTarget(old).Kind != dataset.Directory {
			absRoot, _ = filepath.Abs(filepath.Join(root, filepath.Base(old)))
		}
		if rel, err := filepath.Rel(absOld, absRoot); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			r.Output = filepath.Join(newOut, rel)
		}
	}
	return r, nil
}

// checkInputs compares the inputs with what the manifest records.
func (r *Rerun) checkInputs() []string {
	var changed []string
	limited := limitOf(r.M) > 0
	entries := map[string]int{}
	for _, in := range r.M.Inputs {
		entries[in.Path]++
	}
	done := map[string]bool{}
	for _, in := range r.M.Inputs {
		if done[in.Path] {
			continue
		}
		done[in.Path] = true
		if strings.HasSuffix(in.Path, "(built in)") {
			continue
		}
		path := in.Path
		if !filepath.IsAbs(path) && r.Dir != "" {
			path = filepath.Join(r.Dir, path)
		}
		st, err := os.Stat(path)
		if err != nil {
			changed = append(changed, fmt.Sprintf("input %s: %v", in.Path, err))
			continue
		}
		if entries[in.Path] > 1 {
			// A file read in parts (a launch splits large files): the
			// parts' bytes add up to the file's.
			var total int64
			for _, e := range r.M.Inputs {
				if e.Path == in.Path {
					total += e.Bytes
				}
			}
			if total != st.Size() {
				changed = append(changed, fmt.Sprintf("input %s: %d bytes, the manifest records %d", in.Path, st.Size(), total))
			}
			continue
		}
		if limited && st.Size() > in.Bytes {
			// A run cut short by --limit read (and recorded) the head of
			// the file: that head must be as it was. A format that records
			// no bytes under a limit leaves it to the rebuild's files.
			if in.Bytes == 0 {
				continue
			}
			h, err := input.HashHead(path, in.Bytes)
			if err != nil {
				changed = append(changed, fmt.Sprintf("input %s: %v", in.Path, err))
			} else if got := fmt.Sprintf("%016x", h); got != in.Hash {
				changed = append(changed, fmt.Sprintf("input %s: its first %d bytes have xxhash64 %s, the manifest records %s", in.Path, in.Bytes, got, in.Hash))
			}
			continue
		}
		if st.Size() != in.Bytes {
			changed = append(changed, fmt.Sprintf("input %s: %d bytes, the manifest records %d", in.Path, st.Size(), in.Bytes))
			continue
		}
		h, err := input.HashFile(path)
		if err != nil {
			changed = append(changed, fmt.Sprintf("input %s: %v", in.Path, err))
		} else if got := fmt.Sprintf("%016x", h); got != in.Hash {
			changed = append(changed, fmt.Sprintf("input %s: xxhash64 %s, the manifest records %s", in.Path, got, in.Hash))
		}
	}
	return changed
}

// replaceOutput returns args with the value of its -o/--output flag
// replaced by out (or -o out added when it has none: a pipeline file
// names the output) and the value it had.
func replaceOutput(args []string, out string) ([]string, string, error) {
	res := append([]string(nil), args...)
	for i := 1; i < len(res); i++ {
		a := res[i]
		if a == "--" {
			break
		}
		for _, name := range []string{"-o", "--o", "-output", "--output"} {
			switch {
			case a == name && i+1 < len(res):
				old := res[i+1]
				res[i+1] = out
				return res, old, nil
			case strings.HasPrefix(a, name+"="):
				res[i] = name + "=" + out
				return res, strings.TrimPrefix(a, name+"="), nil
			}
		}
	}
	return append(res, "-o", out), "", nil
}

// Overwrite lets the rebuild replace the new output when it is a sluice
// output: it adds --overwrite to Args.
func (r *Rerun) Overwrite() {
	end := slices.Index(r.Args, "--")
	if end < 0 {
		end = len(r.Args)
	}
	r.Args = slices.Insert(r.Args, end, "--overwrite")
}

// withoutOverwrite returns args without their --overwrite flag.
func withoutOverwrite(args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if i > 0 && strings.HasPrefix(a, "-") && name == "overwrite" {
			continue
		}
		out = append(out, a)
	}
	return out
}

// Reproduced compares the rebuilt version with the old one: the same
// data and removed files (rows, bytes, xxhash64, in order) and the same
// counts. It lists every difference.
func Reproduced(old, rebuilt *dataset.Manifest) (bool, []string) {
	var diffs []string
	files := func(kind string, a, b []dataset.OutputFile) {
		if len(a) != len(b) {
			diffs = append(diffs, fmt.Sprintf("%d %s files, %d before", len(b), kind, len(a)))
		}
		for i := 0; i < min(len(a), len(b)); i++ {
			if a[i].Hash != b[i].Hash || a[i].Rows != b[i].Rows || a[i].Bytes != b[i].Bytes {
				diffs = append(diffs, fmt.Sprintf("%s: %d rows, %d bytes, xxhash64 %s; before %s: %d rows, %d bytes, xxhash64 %s",
					b[i].Path, b[i].Rows, b[i].Bytes, b[i].Hash, a[i].Path, a[i].Rows, a[i].Bytes, a[i].Hash))
			}
		}
	}
	files("data", old.Outputs, rebuilt.Outputs)
	files("removed", old.Removed, rebuilt.Removed)
	if old.Counts != rebuilt.Counts {
		diffs = append(diffs, fmt.Sprintf("counts %+v, before %+v", rebuilt.Counts, old.Counts))
	}
	return len(diffs) == 0, diffs
}

// limitOf returns the --limit a run recorded in its options, 0 for none.
func limitOf(m *dataset.Manifest) int64 {
	opts, _ := m.Options.(map[string]any)
	n, _ := opts["limit"].(float64)
	return int64(n)
}
