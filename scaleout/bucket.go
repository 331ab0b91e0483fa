package scaleout

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/layout"
)

// A launch on an object-store output (s3://, gs://, az://) keeps the
// same files under the output's prefix as on a file system, and needs no
// file system its tasks share: a task downloads the intermediates of the
// phases before its own into a local folder of its own, works there,
// uploads its files (the intermediates of its phase; a write task's
// parts, quarantine and shard manifest straight to their place in the
// dataset), and writes its marker last. Leases are objects created only
// where none is, and a task's log is uploaded to OUT/_logs when it ends.

// IsRemote reports whether the plan's output is in an object store.
func (p *Plan) IsRemote() bool { return blob.IsURL(p.Out) }

// workPath returns a path under the folder the task's intermediates
// live in: the output's _work folder, or for an object-store output the
// task's local copy of it.
func (p *Plan) workPath(elem ...string) string {
	if p.local != "" {
		return filepath.Join(append([]string{p.local, "_work"}, elem...)...)
	}
	return p.path(append([]string{"_work"}, elem...)...)
}

// rel returns the path of u relative to the output, with slashes.
func (p *Plan) rel(u string) string { return strings.TrimPrefix(u, p.Out+"/") }

// list returns the objects under the output whose relative path starts
// with prefix.
func (p *Plan) list(ctx context.Context, prefix string) ([]blob.Object, error) {
	return blob.List(ctx, p.Out+"/"+prefix)
}

// deletePrefix deletes the objects under the output whose relative path
// starts with prefix and that keep says to delete (all, when nil).
func (p *Plan) deletePrefix(ctx context.Context, prefix string, keep func(rel string) bool) error {
	objs, err := p.list(ctx, prefix)
	if err != nil {
		return err
	}
	for _, o := range objs {
		if keep != nil && keep(p.rel(o.URL)) {
			continue
		}
		if err := blob.Delete(ctx, o.URL); err != nil {
			return err
		}
	}
	return nil
}

// fetchWork downloads the intermediates under OUT/_work (the markers and
// the spilled inputs aside: a task reads its shard's from the store) into
// the task's local folder, p.local.
func (p *Plan) fetchWork(ctx context.Context) error {
	objs, err := p.list(ctx, "_work/")
	if err != nil {
		return err
	}
	for _, o := range objs {
		rel := p.rel(o.URL)
		if strings.HasPrefix(rel, "_work/markers/") || hiddenPath(rel) || isSpill(rel) {
			continue
		}
		if err := download(ctx, o.URL, filepath.Join(p.local, filepath.FromSlash(rel))); err != nil {
			return err
		}
	}
	return nil
}

// pushWork uploads the files of the task's local work folder dir to
// their place under OUT/_work.
func (p *Plan) pushWork(ctx context.Context, dir string) error {
	return filepath.WalkDir(dir, func(local string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && local == dir {
			return filepath.SkipDir // the task wrote no intermediates
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(p.local, local)
		if err != nil {
			return err
		}
		return blob.Upload(ctx, local, p.path(filepath.ToSlash(rel)))
	})
}

// download copies the object at u to the local file at dst, whole or
// not at all.
func download(ctx context.Context, u, dst string) error {
	r, err := blob.NewReader(ctx, u, 0, -1)
	if err != nil {
		return err
	}
	defer r.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.ReadFrom(r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), dst)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("downloading %s: %w", u, err)
	}
	return nil
}

func hiddenPath(rel string) bool {
	for _, e := range strings.Split(rel, "/") {
		if layout.IsHidden(e) {
			return true
		}
	}
	return false
}

// put moves the local file src to dst in the output: a rename on a file
// system, an upload (then the local copy removed) to an object store.
func put(ctx context.Context, src, dst string) error {
	if !blob.IsURL(dst) {
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.Rename(src, dst)
	}
	if err := blob.Upload(ctx, src, dst); err != nil {
		return err
	}
	return os.Remove(src)
}

// writeManifest writes a manifest to path, a local path or a URL (through
// a local file in the task's folder).
func (p *Plan) writeManifest(ctx context.Context, path string, m *dataset.Manifest) error {
	if !blob.IsURL(path) {
		return dataset.WriteManifest(path, m)
	}
	local := filepath.Join(p.local, "upload-"+blob.Base(path))
	if err := dataset.WriteManifest(local, m); err != nil {
		return err
	}
	return put(ctx, local, path)
}

// sizeOf returns the size of the file or object at path.
func sizeOf(ctx context.Context, path string) (int64, error) {
	if blob.IsURL(path) {
		a, err := blob.Stat(ctx, path)
		return a.Size, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// remoteOutputFiles lists the dataset's files under an object-store
// output, as outputFiles does under a directory.
func (p *Plan) remoteOutputFiles(ctx context.Context) ([]string, error) {
	objs, err := p.list(ctx, "")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, o := range objs {
		rel := p.rel(o.URL)
		if hiddenPath(rel) || strings.HasPrefix(rel, "_") || rel == layout.ManifestName {
			continue
		}
		files = append(files, rel)
	}
	return files, nil
}

// launchFiles are the patterns of the files a launch writes in its
// output, besides the files its manifest lists: the plan, the shards'
// parts, quarantines and manifests, and in its own folders the markers
// and leases (_work/markers), the tasks' intermediates
// (_work/<phase>/<task>/...), the task logs of every executor (_logs) and
// the job files (_jobs). Anything else there, a user's notes or logs, is
// not the launch's and stays.
var launchFiles = []string{PlanFile, "data/part-*-*.parquet", "removed/part-*-*.parquet", "quarantine-*.jsonl", "manifest-*.json",
	"_work/markers/*-[0-9][0-9][0-9][0-9][0-9].*", "_work/markers/" + workRemoved, "_work/markers/.*.tmp-*",
	"_logs/*-[0-9][0-9][0-9][0-9][0-9].attempt-[0-9]*.log", "_logs/*-[0-9]*_[0-9]*.log",
	"_jobs/[0-9][0-9]-*.sbatch", "_jobs/[0-9][0-9]-*.yaml", "_jobs/k8s-apply.sh", "_jobs/submitted.json", "_jobs/.*.tmp-*"}

// launchFolders are the launch's own folders, removed when a clear
// leaves them empty.
var launchFolders = []string{"_work/markers", "_work", "_logs", "_jobs"}

// isLaunchFile reports whether rel, a path relative to the output with
// slashes, is a file a launch writes (see launchFiles).
func isLaunchFile(rel string) bool {
	if isTaskWork(rel) {
		return true
	}
	for _, pattern := range launchFiles {
		if ok, _ := path.Match(pattern, rel); ok {
			return true
		}
	}
	return false
}

// isTaskWork reports whether rel lies in a task's folder of
// intermediates, _work/<phase>/<task>/.
func isTaskWork(rel string) bool {
	parts := strings.SplitN(rel, "/", 4)
	if len(parts) < 4 || parts[0] != "_work" || parts[1] == "markers" || parts[1] == "" || len(parts[2]) != 5 {
		return false
	}
	for _, c := range parts[2] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// clearRemote is Clear for an object-store output.
func clearRemote(ctx context.Context, out string) error {
	p := &Plan{Out: blob.Clean(out)}
	manifest := p.path(layout.ManifestName)
	if m, err := dataset.ReadManifestAt(manifest); err == nil {
		if err := blob.Delete(ctx, manifest); err != nil {
			return err
		}
		for _, f := range m.Files {
			f = path.Clean(filepath.ToSlash(f))
			if path.IsAbs(f) || f == ".." || strings.HasPrefix(f, "../") || hiddenPath(f) {
				continue
			}
			if err := blob.Delete(ctx, p.path(f)); err != nil {
				return err
			}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return p.deletePrefix(ctx, "", func(rel string) bool { return !isLaunchFile(rel) })
}

// logName returns the name of the next attempt's log of task i of ph
// under OUT/_logs of an object-store output.
func (p *Plan) remoteLogName(ctx context.Context, prefix string) (string, error) {
	objs, err := p.list(ctx, "_logs/"+prefix)
	if err != nil {
		return "", err
	}
	n := 0
	for _, o := range objs {
		var k int
		if _, err := fmt.Sscanf(strings.TrimPrefix(p.rel(o.URL), "_logs/"+prefix), "%d.log", &k); err == nil {
			n = max(n, k)
		}
	}
	return p.path("_logs", fmt.Sprintf("%s%d.log", prefix, n+1)), nil
}

// cleanRemote removes what an interrupted attempt of the task left in an
// object-store output.
func (t *task) cleanRemote() error {
	p, ctx, i := t.plan, t.ctx, t.index
	if err := p.deletePrefix(ctx, fmt.Sprintf("_work/%s/%05d/", t.phase.Name, i), nil); err != nil {
		return err
	}
	if t.phase.Kind != Write {
		return nil
	}
	for _, dir := range []string{"data", "removed"} {
		if err := p.deletePrefix(ctx, fmt.Sprintf("%s/part-%05d-", dir, i), nil); err != nil {
			return err
		}
	}
	for _, u := range []string{p.quarantinePath(i), p.shardManifestPath(i)} {
		if err := blob.Delete(ctx, u); err != nil {
			return err
		}
	}
	return nil
}
