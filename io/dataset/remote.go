package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/layout"
)

// remote is an output in an object store (s3://...). The run writes into
// a local staging directory as for a local output; each part file is
// uploaded, as soon as the writer closes it and while the next one is
// encoded, under a hidden staging prefix beside the output
// (.sluice-tmp-ID/), and its local copy removed. Commit uploads the rest,
// removes the previous manifest, copies the staged objects into place in
// the store, removes the previous output's files that the new one does
// not replace (only those its manifest lists) and writes the manifest
// last, once every object is confirmed. An interrupted or failed run
// deletes its staged objects; a killed one leaves them hidden, and the
// next run on the output deletes them. No manifest is written unless the
// whole output is in place.
type remote struct {
	ctx     context.Context
	cancel  context.CancelFunc
	root    string // URL of the folder the output's files live in
	staging string // URL prefix of the staged objects: root/.sluice-tmp-ID
	lock    *remoteLock

	mu       sync.Mutex
	wg       sync.WaitGroup
	sem      chan struct{}
	uploaded map[string]bool // relative paths staged in the store
	err      error
	// aborted is set by abortRemote: no upload starts after it, and one
	// that finishes after it deletes what it wrote.
	aborted bool
}

// Uploads of part files in flight at once (each a multipart upload with
// parts in parallel).
const filesInFlight = 4

// copyLimit is the largest object the store copies in one request (S3's
// limit is 5 GB); a larger file is uploaded to its final place at commit
// instead of being staged.
const copyLimit = 4 << 30

// IsRemote reports whether the target is in an object store.
func (t Target) IsRemote() bool { return blob.IsURL(t.Path) }

func (d *remoteDestination) open() error {
	o, t := d.o, d.o.final
	ctx, cancel := context.WithCancel(context.Background())
	r := &remote{ctx: ctx, cancel: cancel, sem: make(chan struct{}, filesInFlight), uploaded: map[string]bool{}}
	o.remote = r
	r.root = t.Path
	if t.Kind != Directory {
		r.root = blob.Dir(t.Path)
	}
	o.root = r.root
	if _, key, _ := blob.Parse(t.Path); key == "" && t.Kind != Directory {
		return refusef("%s: names a bucket, not an object", t.Path)
	}
	if err := blob.CheckBucket(ctx, t.Path); err != nil {
		return refusedError{err.Error()}
	}
	return nil
}

func (d *remoteDestination) lock() (err error) {
	r := d.o.remote
	r.lock, err = acquireRemote(r.ctx, blob.Join(r.root, d.o.hiddenPrefix()+layout.LockSuffix[1:]))
	return err
}

func (d *remoteDestination) removeLeftovers() error { return d.o.removeRemoteLeftovers() }
func (d *remoteDestination) claimDirectory(overwrite bool) error {
	return d.o.claimRemoteDirectory(overwrite)
}
func (d *remoteDestination) claimFile(overwrite bool) error { return d.o.claimRemoteFile(overwrite) }

// stage makes the local staging directory and names the hidden prefix
// the run's finished files are uploaded under.
func (d *remoteDestination) stage() (err error) {
	o, r, t := d.o, d.o.remote, d.o.final
	if o.staging, err = os.MkdirTemp("", "sluice-out-"); err != nil {
		return err
	}
	r.staging = blob.Join(r.root, o.hiddenPrefix()+layout.StagingPrefix[1:]+filepath.Base(o.staging)[len("sluice-out-"):])
	if t.Kind == Directory {
		o.staged = Target{Path: o.staging, Kind: Directory, upload: o.fileDone}
	} else {
		o.staged = Target{Path: filepath.Join(o.staging, blob.Base(t.Path)), Kind: t.Kind, Compression: t.Compression}
	}
	return nil
}

// removeRemoteLeftovers deletes the staged objects of killed runs; the
// lock is held, so no live run is writing them.
func (o *Output) removeRemoteLeftovers() error {
	objs, err := blob.List(o.remote.ctx, blob.Join(o.root, o.hiddenPrefix()+layout.StagingPrefix[1:]))
	if err != nil {
		return err
	}
	for _, obj := range objs {
		if err := blob.Delete(o.remote.ctx, obj.URL); err != nil {
			return fmt.Errorf("removing what an interrupted run left: %w", err)
		}
	}
	return nil
}

// listRoot returns the relative paths of the objects under the output's
// folder, hidden ones aside.
func (o *Output) listRoot() (map[string]bool, error) {
	objs, err := blob.List(o.remote.ctx, o.root+"/")
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, obj := range objs {
		rel := strings.TrimPrefix(obj.URL, o.root+"/")
		if !hiddenRel(rel) {
			out[rel] = true
		}
	}
	return out, nil
}

func hiddenRel(rel string) bool {
	for _, e := range strings.Split(rel, "/") {
		if layout.IsHidden(e) {
			return true
		}
	}
	return false
}

func (o *Output) claimRemoteDirectory(overwrite bool) error {
	p := o.final.Path
	have, err := o.listRoot()
	if err != nil || len(have) == 0 {
		return err
	}
	manifest := blob.Join(p, layout.ManifestName)
	if have[layout.ManifestName] {
		if m, err := readRemoteManifest(o.remote.ctx, manifest); err == nil {
			if !overwrite {
				return fmt.Errorf("%s: %w", p, ErrExists)
			}
			o.setOld(m, manifest)
			return nil
		}
	}
	for rel := range have {
		if path.Dir(rel) == layout.DataDir && strings.HasPrefix(path.Base(rel), "part-") && strings.HasSuffix(rel, ".parquet") {
			return refusef("%s: holds part files but no sluice manifest (an incomplete dataset, or not sluice's); refusing to write into it: remove it yourself or choose another output", p)
		}
	}
	return refusef("%s: holds objects and is not a sluice dataset (no manifest.json naming the %s format); refusing to write into it", p, layout.Format)
}

func (o *Output) claimRemoteFile(overwrite bool) error {
	t := o.final
	ctx := o.remote.ctx
	if objs, err := blob.List(ctx, t.Path+"/"); err != nil {
		return err
	} else if len(objs) > 0 {
		return refusef("%s: is a prefix with objects under it (a folder)", t.Path)
	}
	manifest := t.SidePath(layout.ManifestName)
	mok, err := blob.Exists(ctx, manifest)
	if err != nil {
		return err
	}
	dok, err := blob.Exists(ctx, t.Path)
	if err != nil {
		return err
	}
	switch {
	case mok:
		m, err := readRemoteManifest(ctx, manifest)
		if err != nil {
			return refusef("%s: exists and was not written by sluice; refusing to replace it", manifest)
		}
		o.setOld(m, manifest)
		if !o.old[blob.Base(t.Path)] {
			other := "another output"
			if len(m.Outputs) > 0 {
				other = m.Outputs[0].Path
			}
			return refusef("%s: belongs to %s, not %s; choose another output name", manifest, other, t.Path)
		}
		if !overwrite {
			return fmt.Errorf("%s: %w", t.Path, ErrExists)
		}
	case dok:
		return refusef("%s: exists and was not written by sluice (no %s lists it); refusing to replace it: remove it yourself or choose another output", t.Path, blob.Base(manifest))
	}
	return nil
}

func (o *Output) setOld(m *Manifest, manifest string) {
	o.old = map[string]bool{}
	for _, f := range ownFiles(m) {
		o.old[filepath.ToSlash(f)] = true
	}
	o.old[blob.Base(manifest)] = true
}

// ReadManifestAt reads the manifest at path, a local path or an
// object-store URL.
func ReadManifestAt(path string) (*Manifest, error) {
	if blob.IsURL(path) {
		return readRemoteManifest(context.Background(), path)
	}
	return ReadManifest(path)
}

// readRemoteManifest reads a sluice manifest from the store.
func readRemoteManifest(ctx context.Context, u string) (*Manifest, error) {
	b, err := blob.ReadFile(ctx, u)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: not a sluice manifest: %w", u, err)
	}
	if m.Format != layout.Format {
		return nil, fmt.Errorf("%s: not a sluice manifest (format %q, want %q)", u, m.Format, layout.Format)
	}
	return &m, nil
}

// fileDone is called by a writer with each part file it finished: the
// file is uploaded to the staging prefix in the background, and its local
// copy removed once the store has it.
func (o *Output) fileDone(local string) {
	r := o.remote
	if r == nil || o.staging == "" {
		return
	}
	rel, err := filepath.Rel(o.staging, local)
	if err != nil || strings.HasPrefix(rel, "..") {
		return
	}
	if st, err := os.Stat(local); err != nil || st.Size() > copyLimit {
		return // uploaded to its place at commit
	}
	rel = filepath.ToSlash(rel)
	r.mu.Lock()
	if r.aborted {
		r.mu.Unlock()
		return
	}
	r.wg.Add(1) // under mu, so never after abortRemote's Wait began
	r.mu.Unlock()
	go func() {
		defer r.wg.Done()
		select {
		case r.sem <- struct{}{}:
		case <-r.ctx.Done():
			return
		}
		defer func() { <-r.sem }()
		if r.ctx.Err() != nil {
			return
		}
		url := blob.Join(r.staging, rel)
		err := blob.Upload(r.ctx, local, url)
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.aborted { // finished or cut short as the run was aborted: not staged
			blob.Delete(context.Background(), url)
			return
		}
		if err != nil {
			if r.err == nil {
				r.err = err
			}
			return
		}
		r.uploaded[rel] = true
		os.Remove(local)
	}()
}

// parallel runs f on every item, a few at once, and returns the first
// error.
func parallel(items []string, n int, f func(string) error) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	sem := make(chan struct{}, n)
	for _, it := range items {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := f(it); err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

// remoteDestination commits into the store: the files a writer finished
// during the run are staged under the hidden prefix and copied into
// place; the rest (the last files, those too large to copy) are uploaded
// from the local staging directory. See remote.
type remoteDestination struct {
	o     *Output
	local []string // staged files still on local disk
}

func (d *remoteDestination) url(rel string) string { return blob.Join(d.o.root, rel) }

// staged waits for the uploads of the run to finish and lists what was
// staged, in the store and on local disk.
func (d *remoteDestination) staged(manifestName string) ([]string, error) {
	r := d.o.remote
	r.wg.Wait()
	if r.err != nil {
		return nil, r.err
	}
	var err error
	if d.local, err = stagedFiles(d.o.staging, manifestName); err != nil {
		return nil, err
	}
	files := append([]string{}, d.local...)
	for rel := range r.uploaded {
		files = append(files, rel)
	}
	sort.Strings(files)
	return files, nil
}

func (d *remoteDestination) existing([]string) (map[string]bool, error) { return d.o.listRoot() }

func (d *remoteDestination) place([]string) error {
	r := d.o.remote
	var staged []string
	for rel := range r.uploaded {
		staged = append(staged, rel)
	}
	sort.Strings(staged)
	if err := parallel(staged, 8, func(rel string) error {
		return blob.Copy(r.ctx, d.url(rel), blob.Join(r.staging, rel))
	}); err != nil {
		return err
	}
	return parallel(d.local, filesInFlight, func(rel string) error {
		return blob.Upload(r.ctx, filepath.Join(d.o.staging, filepath.FromSlash(rel)), d.url(rel))
	})
}

func (d *remoteDestination) remove(rel string) error { return blob.Delete(d.o.remote.ctx, d.url(rel)) }

func (d *remoteDestination) write(rel string, data []byte) error {
	return blob.WriteFile(d.o.remote.ctx, d.url(rel), data)
}

func (d *remoteDestination) finish() { d.o.deleteStaged() }

// deleteStaged deletes the objects under the staging prefix.
func (o *Output) deleteStaged() {
	r := o.remote
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A store may finish an upload whose request was cancelled a moment
	// after the client gave up on it: list again until a listing, a
	// little later, finds nothing left (a few seconds at most).
	for try := 0; try < 10; try++ {
		objs, err := blob.List(ctx, r.staging+"/")
		if err != nil {
			return
		}
		if len(objs) == 0 && try > 0 {
			return
		}
		var urls []string
		for _, obj := range objs {
			urls = append(urls, obj.URL)
		}
		parallel(urls, 8, func(u string) error { return blob.Delete(ctx, u) })
		time.Sleep(time.Duration(100*(try+1)) * time.Millisecond)
	}
}

// abortRemote stops the uploads and deletes what was staged.
func (o *Output) abortRemote() {
	r := o.remote
	r.mu.Lock()
	r.aborted = true
	r.mu.Unlock()
	r.cancel()
	r.wg.Wait()
	if r.staging != "" {
		o.deleteStaged()
	}
}

func (o *Output) releaseRemote() {
	if r := o.remote; r != nil && r.lock != nil {
		r.lock.release()
		r.lock = nil
	}
}

// remoteLock is an output's lock object: written when a run starts,
// rewritten every lockBeat while it runs, deleted when it ends. A lock
// object older than lockStale is a killed run's, and is taken over.
type remoteLock struct {
	url  string
	stop chan struct{}
	done chan struct{}
}

const (
	lockBeat  = 30 * time.Second
	lockStale = 3 * lockBeat
)

func acquireRemote(ctx context.Context, u string) (*remoteLock, error) {
	host, _ := os.Hostname()
	body := func() []byte {
		return fmt.Appendf(nil, "pid %d on %s since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	}
	for try := 0; ; try++ {
		w, err := blob.CreateNew(ctx, u)
		if err != nil {
			return nil, err
		}
		w.Write(body())
		err = w.Close()
		if err == nil {
			break
		}
		if !errors.Is(err, blob.ErrExists) || try > 0 {
			return nil, err
		}
		a, serr := blob.Stat(ctx, u)
		if serr == nil && time.Since(a.ModTime) < lockStale {
			holder, _ := blob.ReadFile(ctx, u)
			return nil, fmt.Errorf("%s: %w (%s); wait for it to finish or stop it", u, ErrLocked, strings.TrimSpace(string(holder)))
		}
		if err := blob.Delete(ctx, u); err != nil { // a killed run's
			return nil, err
		}
	}
	l := &remoteLock{url: u, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		t := time.NewTicker(lockBeat)
		defer t.Stop()
		for {
			select {
			case <-l.stop:
				return
			case <-t.C:
				blob.WriteFile(context.Background(), u, body())
			}
		}
	}()
	return l, nil
}

func (l *remoteLock) release() {
	close(l.stop)
	<-l.done
	blob.Delete(context.Background(), l.url)
}

// locateRemote tells what an object-store path holds, for the commands
// that read a dataset's files one by one (verify, log, diff, trace,
// rerun), which read local datasets only: a prefix without a manifest is
// an incomplete dataset (or none), one with a manifest is to be copied
// to a local path first.
func locateRemote(p string) error {
	ctx := context.Background()
	p = blob.Clean(p)
	t := ParseTarget(p)
	manifest := t.SidePath(layout.ManifestName)
	if strings.HasSuffix(p, "/"+layout.ManifestName) {
		manifest = p
	}
	ok, err := blob.Exists(ctx, manifest)
	if err != nil {
		return err
	}
	if ok {
		if _, err := readRemoteManifest(ctx, manifest); err != nil {
			return err
		}
		return fmt.Errorf("%s: a sluice output in an object store; this command reads local datasets only: copy it to a local path first", p)
	}
	parts, err := blob.Glob(ctx, blob.Join(p, layout.DataDir, "part-*.parquet"))
	if err != nil {
		return err
	}
	if len(parts) > 0 {
		return fmt.Errorf("%s: has part files but no manifest.json: an incomplete dataset (a run that did not finish)", p)
	}
	return fmt.Errorf("%s: not a sluice dataset (no manifest.json)", p)
}
