package scaleout

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/layout"
	"github.com/sluice-data/sluice/pipeline"
)

// The write phase: each shard runs the whole pipeline into its work
// directory, then moves its files into the dataset under names that carry
// the shard (data/part-<shard>-<n>.parquet, removed/part-<shard>-<n>.parquet,
// quarantine-<shard>.jsonl) and writes manifest-<shard>.json, which the
// merge reads.

func (t *task) dataName(dir, seq string) string {
	return t.plan.path(dir, fmt.Sprintf("part-%05d-%s.parquet", t.index, seq))
}

func (p *Plan) quarantinePath(s int) string { return p.path(fmt.Sprintf("quarantine-%05d.jsonl", s)) }

func (p *Plan) shardManifestPath(s int) string { return p.path(fmt.Sprintf("manifest-%05d.json", s)) }

func (t *task) write() error {
	s := t.index
	sts, err := t.shardStages(s, len(t.file.Stages))
	if err != nil {
		return err
	}
	target := dataset.Target{Path: filepath.Join(t.plan.workDir(t.phase, s), "out"), Kind: dataset.Directory}
	// The task's own work folder: what an earlier attempt left is its own.
	if err := os.RemoveAll(target.Path); err != nil {
		return err
	}
	m, err := t.pass(s, sts, target)
	if err != nil {
		return err
	}
	if t.clock != nil {
		t.clock.workEnd = time.Now() // moving the files into place is the task's overhead
	}
	if m == nil {
		m = &dataset.Manifest{Tool: "sluice", Version: t.version, Command: t.plan.Command, Started: now()}
	}
	move := func(files []dataset.OutputFile, dir string) error {
		for k := range files {
			dst := t.dataName(dir, fmt.Sprintf("%05d", k))
			if err := put(t.ctx, files[k].Path, dst); err != nil {
				return err
			}
			files[k].Path = dst
		}
		return nil
	}
	if err := t.holdsLease(); err != nil {
		return err
	}
	if err := move(m.Outputs, "data"); err != nil {
		return err
	}
	if err := move(m.Removed, "removed"); err != nil {
		return err
	}
	if q := m.Side["quarantine"]; q != "" {
		dst := t.plan.quarantinePath(s)
		if err := put(t.ctx, q, dst); err != nil {
			return err
		}
		m.Side["quarantine"] = dst
	}
	if err := t.plan.writeManifest(t.ctx, t.plan.shardManifestPath(s), m); err != nil {
		return err
	}
	return os.RemoveAll(target.Path)
}

// MergedOptions are the options a merged manifest records.
type MergedOptions struct {
	Settings
	Tasks  int      `json:"shards"`
	Phases []string `json:"phases"`
}

// merge sums the shard manifests into manifest.json. It fails if a shard's
// rows do not add up, if an input is missing or counted twice, if shards
// wrote different schemas, or if the totals do not add up.
func (t *task) merge() error {
	p := t.plan
	merged := &dataset.Manifest{Tool: "sluice", Version: t.version, Command: p.Command, Side: map[string]string{}}
	opts := MergedOptions{Settings: p.Settings, Tasks: len(p.Shards)}
	for _, ph := range p.Phases {
		opts.Phases = append(opts.Phases, ph.Name)
	}
	merged.Options = opts
	started := time.Now()
	if t, err := time.Parse(time.RFC3339Nano, p.Started); err == nil {
		started = t // the launch's start: the wall time holds every phase
	}
	var shardReports [][]json.RawMessage // by stage, for ReportMergers
	for s := range p.Shards {
		path := p.shardManifestPath(s)
		b, _, err := storeOf(path).read(path)
		if err != nil {
			return err
		}
		var m dataset.Manifest
		if err := json.Unmarshal(b, &m); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := m.Counts.Check(); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if st, err := time.Parse(time.RFC3339, m.Started); err == nil && st.Before(started) {
			started = st
		}
		if len(m.Inputs) == 0 {
			continue
		}
		if merged.Schema == nil {
			merged.Schema = m.Schema
		} else if !bytes.Equal(merged.Schema, m.Schema) {
			return fmt.Errorf("%s: shard %d's schema %s differs from shard 0's %s (give --schema, or --infer-rows all)", path, s, m.Schema, merged.Schema)
		}
		merged.Inputs = append(merged.Inputs, m.Inputs...)
		merged.Outputs = append(merged.Outputs, m.Outputs...)
		merged.Removed = append(merged.Removed, m.Removed...)
		merged.Errors = append(merged.Errors, m.Errors...)
		if q := m.Side["quarantine"]; q != "" {
			merged.Side[fmt.Sprintf("quarantine-%05d", s)] = q
		}
		if merged.Stages == nil {
			merged.Stages = make([]dataset.StageCounts, len(m.Stages))
			for i, sc := range m.Stages {
				merged.Stages[i] = dataset.StageCounts{Name: sc.Name, Config: sc.Config}
			}
			shardReports = make([][]json.RawMessage, len(m.Stages))
		}
		if len(m.Stages) != len(merged.Stages) {
			return fmt.Errorf("%s: %d stages, not %d", path, len(m.Stages), len(merged.Stages))
		}
		for i, sc := range m.Stages {
			ms := &merged.Stages[i]
			ms.Add(sc)
			if sc.Report != nil {
				reports, _ := ms.Report.([]any)
				ms.Report = append(reports, map[string]any{"shard": s, "report": sc.Report})
				raw, err := json.Marshal(sc.Report)
				if err != nil {
					return fmt.Errorf("%s: stage %s: %w", path, sc.Name, err)
				}
				shardReports[i] = append(shardReports[i], raw)
			}
		}
		merged.Counts.Add(m.Counts)
	}
	if len(merged.Inputs) != len(p.Inputs) {
		return fmt.Errorf("merge: the shard manifests list %d inputs, the plan %d", len(merged.Inputs), len(p.Inputs))
	}
	for i, in := range merged.Inputs {
		if in.Path != p.Inputs[i].Label() {
			return fmt.Errorf("merge: input %d is %s in the shard manifests, %s in the plan", i, in.Path, p.Inputs[i].Label())
		}
	}
	merged.Inputs = foldSlices(merged.Inputs, p.Inputs, p.SplitHashes)
	for i, spec := range t.file.Stages {
		if i >= len(merged.Stages) {
			break
		}
		st, err := t.build(i)
		if err != nil {
			return err
		}
		if rm, ok := st.(pipeline.ReportMerger); ok && i < len(shardReports) && len(shardReports[i]) > 0 {
			r, err := rm.MergeReports(shardReports[i])
			if err != nil {
				return fmt.Errorf("merge: stage %s: %w", spec.Name, err)
			}
			merged.Stages[i].Report = r
		}
		if sh, ok := st.(pipeline.Sharded); ok && sh.Sharding().Report != nil {
			r, err := sh.Sharding().Report(workspace{t: t, stage: i})
			if err != nil {
				return fmt.Errorf("merge: stage %s: %w", spec.Name, err)
			}
			merged.Stages[i].Report = r
		}
	}
	if err := merged.Counts.Check(); err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	merged.Started = started.UTC().Format(time.RFC3339)
	merged.WallSecs = time.Since(started).Seconds()
	var files []string
	var err error
	if p.IsRemote() {
		files, err = p.remoteOutputFiles(t.ctx)
	} else {
		files, err = outputFiles(p.Out)
	}
	if err != nil {
		return err
	}
	merged.Files = files
	if err := t.holdsLease(); err != nil {
		return err
	}
	manifest := p.path(layout.ManifestName)
	if err := p.writeManifest(t.ctx, manifest, merged); err != nil {
		return err
	}
	if err := p.verifyMerged(); err != nil {
		storeOf(manifest).remove(manifest)
		return fmt.Errorf("merge: the manifest written does not match the shards: %w", err)
	}
	return nil
}

// foldSlices makes one entry of the entries of a file's slices (plan
// inputs with RowGroups or a Span set, consecutive): rows, quarantined and
// blank lines add up; so do the bytes of JSONL slices, which each read
// their own bytes, and the hash is the file's (the plan's, for a file cut
// at lines).
func foldSlices(entries []dataset.InputFile, plan []input.File, hashes map[string]string) []dataset.InputFile {
	var out []dataset.InputFile
	for i, e := range entries {
		slice := plan[i].RowGroups[0] > 0 || plan[i].Span.Lo > 0
		if n := len(out); n > 0 && slice && out[n-1].Path == e.Path {
			last := &out[n-1]
			last.Rows += e.Rows
			last.Quarantined += e.Quarantined
			last.BlankLines += e.BlankLines
			if !plan[i].Span.IsZero() {
				last.Bytes += e.Bytes
			}
			if e.Error != "" {
				last.Error = strings.TrimPrefix(last.Error+"; "+e.Error, "; ")
			}
			continue
		}
		if h, ok := hashes[e.Path]; ok {
			e.Hash = h
		}
		out = append(out, e)
	}
	return out
}

// Clear removes a launch's output from dir: the files its merged manifest
// lists and the layout a launch writes (plan, work folder, shard parts,
// quarantines and manifests). Anything else in dir stays.
func Clear(dir string) error {
	if blob.IsURL(dir) {
		return clearRemote(context.Background(), dir)
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
		if err := dataset.Remove(filepath.Join(dir, "manifest.json")); err != nil {
			return err
		}
	}
	if err := removeLaunchFiles(dir); err != nil {
		return err
	}
	for _, sub := range []string{"data", "removed"} {
		os.Remove(filepath.Join(dir, sub)) // only when left empty
	}
	return nil
}

// removeLaunchFiles removes the files of dir that a launch writes (see
// launchFiles), then the folders that this leaves empty.
func removeLaunchFiles(dir string) error {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		rel = filepath.ToSlash(rel)
		top, _, _ := strings.Cut(rel, "/")
		switch {
		case d.IsDir() && !slices.Contains([]string{"_work", "_logs", "_jobs", "data", "removed"}, top):
			return filepath.SkipDir // a launch writes nothing there
		case d.IsDir() && isTaskWork(rel+"/"):
			files = append(files, p) // a task's own folder, removed whole
			return filepath.SkipDir
		case !d.IsDir() && isLaunchFile(rel):
			files = append(files, p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	emptied := map[string]bool{}
	for _, f := range files {
		if err := os.RemoveAll(f); err != nil {
			return err
		}
		for d := filepath.Dir(f); d != dir && strings.HasPrefix(d, dir); d = filepath.Dir(d) {
			emptied[d] = true
		}
	}
	for _, f := range launchFolders {
		emptied[filepath.Join(dir, f)] = true
	}
	folders := slices.Collect(maps.Keys(emptied))
	sort.Slice(folders, func(i, j int) bool { return len(folders[i]) > len(folders[j]) }) // the deepest first
	for _, d := range folders {
		os.Remove(d) // only when left empty
	}
	return nil
}

// outputFiles lists the files of a launch's output under dir, relative to
// it: what its merged manifest claims, the dataset's files only.
func outputFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || rel == "." {
			return err
		}
		if layout.IsHidden(rel) || strings.HasPrefix(rel, "_") {
			// Hidden files, and the launch's own bookkeeping (_plan.json,
			// _work/, _logs/, _jobs/), which Clear removes by name.
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && rel != "manifest.json" {
			files = append(files, rel)
		}
		return nil
	})
	return files, err
}
