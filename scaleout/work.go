package scaleout

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/layout"
)

// workRemoved, among the markers, records that the merge removed the
// intermediates: a merge that must run again (manifest.json removed)
// needs the phases that wrote them to run again first.
const workRemoved = "intermediates-removed"

// removeWork removes the intermediates under OUT/_work once the merge is
// done: the tasks' folders (_work/<phase>/<task>/), not the markers,
// which a relaunch reads, nor anything else a user put there.
func (p *Plan) removeWork() error {
	work := p.path("_work")
	record := p.path("_work", "markers", workRemoved)
	if err := storeOf(record).write(record, []byte(now()+"\n")); err != nil {
		return err
	}
	if p.IsRemote() {
		return p.deletePrefix(context.Background(), "_work/", func(rel string) bool { return !isTaskWork(rel) })
	}
	var errs []error
	for _, ph := range p.Phases {
		dir := filepath.Join(work, ph.Name)
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // a phase that wrote nothing there
		}
		for _, e := range entries {
			if e.IsDir() && isTaskWork("_work/"+ph.Name+"/"+e.Name()+"/") {
				errs = append(errs, os.RemoveAll(filepath.Join(dir, e.Name())))
			}
		}
		os.Remove(dir) // only when left empty
	}
	return errors.Join(errs...)
}

// PrepareRelaunch readies a launched output for another launch, and
// returns what it changed, a line each. The stale lease a task stopped
// after it completed left is removed. When manifest.json is gone
// although the merge was done, the merge runs again; if the merge had
// removed the intermediates, the phases of the sharded stages, which
// write them, run again too.
func (p *Plan) PrepareRelaunch() ([]string, error) {
	notes, err := p.clearDoneLeases()
	if err != nil {
		return notes, err
	}
	merge := p.Phases[len(p.Phases)-1]
	if merge.Kind != Merge || p.isDone(merge, 0) {
		return notes, nil
	}
	if m := p.markerPath(merge, 0, done); storeOf(m).exists(m) {
		notes = append(notes, fmt.Sprintf("%s is gone: the merge runs again", p.path(layout.ManifestName)))
	}
	record := p.path("_work", "markers", workRemoved)
	books := storeOf(record)
	if !books.exists(record) {
		return notes, nil
	}
	var again []string
	for _, ph := range p.Phases {
		if ph.Kind == Write || ph.Kind == Merge {
			continue
		}
		for i := 0; i < ph.Tasks; i++ {
			if err := books.remove(p.markerPath(ph, i, done)); err != nil {
				return notes, err
			}
		}
		again = append(again, ph.Name)
	}
	if err := books.remove(record); err != nil {
		return notes, err
	}
	if len(again) > 0 {
		notes = append(notes, fmt.Sprintf("the merge removed the intermediates it needs: %s run again", strings.Join(again, ", ")))
	}
	return notes, nil
}

// verifyMerged reads manifest.json back and checks it against the shard
// manifests: the counts are their sums, the data and removed files are
// theirs, in shard order, and each is on disk with the size it records.
func (p *Plan) verifyMerged() error {
	path := p.path(layout.ManifestName)
	merged, err := dataset.ReadManifestAt(path)
	if err != nil {
		return err
	}
	var sum dataset.Counts
	var outputs, removed []dataset.OutputFile
	for s := range p.Shards {
		m, err := dataset.ReadManifestAt(p.shardManifestPath(s))
		if err != nil {
			return err
		}
		sum.Add(m.Counts)
		outputs = append(outputs, m.Outputs...)
		removed = append(removed, m.Removed...)
	}
	if merged.Counts != sum {
		return fmt.Errorf("%s: counts %+v, the shard manifests add up to %+v", path, merged.Counts, sum)
	}
	for _, c := range []struct {
		what         string
		merged, want []dataset.OutputFile
	}{{"data", merged.Outputs, outputs}, {"removed", merged.Removed, removed}} {
		if len(c.merged) != len(c.want) {
			return fmt.Errorf("%s: %d %s files, the shard manifests %d", path, len(c.merged), c.what, len(c.want))
		}
		for k, f := range c.merged {
			if f != c.want[k] {
				return fmt.Errorf("%s: %s file %d is %s, the shard manifests' %s", path, c.what, k, f.Path, c.want[k].Path)
			}
			size, err := sizeOf(context.Background(), f.Path)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if size != f.Bytes {
				return fmt.Errorf("%s: %s has %d bytes, the manifest says %d", path, f.Path, size, f.Bytes)
			}
		}
	}
	return nil
}

// ShardNote explains why the plan has fewer shards than tasks, or is
// empty when it has as many.
func (p *Plan) ShardNote(tasks int) string {
	shards := len(p.Shards)
	if shards >= tasks {
		return ""
	}
	files := map[string]bool{}
	var plain, compressed, parquet, warc int
	for _, f := range p.Inputs {
		if files[f.Path] {
			continue
		}
		files[f.Path] = true
		switch {
		case f.Format == input.Parquet:
			parquet++
		case f.Format == input.WARC:
			warc++
		case f.Compression != input.None:
			compressed++
		default:
			plain++
		}
	}
	head := fmt.Sprintf("--tasks %d, but the plan has %d %s", tasks, shards, plural(shards, "shard"))
	if len(files) == 0 {
		return head + ": there are no input files"
	}
	var why []string
	if compressed > 0 {
		why = append(why, fmt.Sprintf("%d compressed JSONL %s (gzip, zstd) %s not cut, one task a file; decompress %s or split %s into more files",
			compressed, plural(compressed, "file"), plural2(compressed, "is", "are"), plural2(compressed, "it", "them"), plural2(compressed, "it", "them")))
	}
	if warc > 0 {
		why = append(why, fmt.Sprintf("%d WARC %s %s read whole, one task a file", warc, plural(warc, "file"), plural2(warc, "is", "are")))
	}
	if parquet > 0 {
		why = append(why, fmt.Sprintf("%d Parquet %s %s cut only between row groups; write smaller row groups (sluice convert --batch-rows) or more files",
			parquet, plural(parquet, "file"), plural2(parquet, "is", "are")))
	}
	if plain > 0 {
		why = append(why, fmt.Sprintf("%d JSONL %s %s cut at line boundaries into slices of about equal bytes, and %s too few lines or a few very long ones",
			plain, plural(plain, "file"), plural2(plain, "is", "are"), plural2(plain, "has", "have")))
	}
	return head + ": " + strings.Join(why, "; ") + fmt.Sprintf("; each reduce phase runs %d %s too, one a shard", shards, plural(shards, "task"))
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func plural2(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// writeJSON writes v as indented JSON to path, whole or not at all.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return dataset.WriteFile(path, append(b, '\n'))
}
