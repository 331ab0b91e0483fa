package dataset

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/sluice-data/sluice/io/layout"
)

// Output is a run's output in the making. Begin checks that the target may
// be written and locks it; the run's writers write into a staging
// directory beside (or, for a dataset directory, inside) the target; Commit
// moves the new files into place once the run succeeded, removes the files
// of the previous output that the new one does not replace (only those its
// manifest lists), and writes the manifest last. Abort removes the staging
// directory: a failed or interrupted run leaves the previous output whole.
//
// sluice deletes only files it wrote: a directory is replaced only when its
// manifest says it is a sluice dataset, and then only the files that
// manifest lists; a file the manifest does not list is never removed or
// overwritten.
type Output struct {
	final   Target
	staged  Target
	root    string // the directory the output's files live in
	staging string // where the new files are written, "" for Discard and Stdout
	lock    *lock
	old     map[string]bool // files of the previous output, relative to root
	created []string        // directories Begin created, removed again by Abort when empty
	remote  *remote         // an output in an object store; see remote
	dest    destination     // where the output goes; see destination
	// ctx is the run's: Commit refuses to begin once it is cancelled
	// (see beginCommit); commits, when set, is told of the commit.
	ctx     context.Context
	commits *Commits
	// written, when set, tells whether a file without a manifest beside
	// it is sluice's all the same (see ArtifactSpec.Written).
	written func(path string) bool
}

// Begin prepares to write t, a local path or an object-store URL (see
// remote). It refuses, before any work: a URL of another scheme; an
// existing output unless overwrite is set; with overwrite, a
// directory or file that no sluice manifest claims; and an output another
// run is writing (naming that run). What a killed run left (its staging
// directory) is removed. ctx is the run's: once it is cancelled Commit
// refuses to begin, and a commit that began ignores it (see Commits).
func Begin(ctx context.Context, t Target, overwrite bool) (*Output, error) {
	return beginOutput(ctx, t, overwrite, nil)
}

func beginOutput(ctx context.Context, t Target, overwrite bool, written func(string) bool) (*Output, error) {
	o := &Output{final: t, staged: t, ctx: ctx, commits: commitsOf(ctx), written: written}
	if t.Kind == Discard || t.Kind == Stdout {
		return o, nil
	}
	o, err := o.begin(t, overwrite)
	if err == nil {
		o.step(StepBegun)
	}
	return o, err
}

// begin claims t, a local path or an object-store URL alike: the
// destination checks the place, locks the output, removes what a killed
// run left, claims the directory or the file and makes the staging area.
// On error what it made is undone.
func (o *Output) begin(t Target, overwrite bool) (*Output, error) {
	d := o.destination()
	claim := d.claimFile
	if t.Kind == Directory {
		claim = d.claimDirectory
	}
	for _, step := range []func() error{d.open, d.lock, d.removeLeftovers, func() error { return claim(overwrite) }, d.stage} {
		if err := step(); err != nil {
			o.Abort()
			return nil, err
		}
	}
	return o, nil
}

// Target returns where the run writes: the staging copy of the target.
func (o *Output) Target() Target { return o.staged }

// Final returns the target the output is moved to by Commit.
func (o *Output) Final() Target { return o.final }

// hiddenPrefix starts the names of the hidden files of a one-file output:
// ".<stem>." beside OUT.parquet; "." inside a dataset directory.
func (o *Output) hiddenPrefix() string {
	if o.final.Kind == Directory {
		return "."
	}
	return "." + path.Base(filepath.ToSlash(o.final.stem())) + "."
}

func (o *Output) lockPath() string {
	return filepath.Join(o.root, o.hiddenPrefix()+layout.LockSuffix[1:])
}

func (o *Output) mkdirs(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	o.created = append(o.created, missing...)
	return nil
}

// removeLeftovers removes the staging directories of killed runs; the
// lock is held, so no live run is writing them.
func (o *Output) removeLeftovers() error {
	old, _ := filepath.Glob(filepath.Join(o.root, globEscape(o.hiddenPrefix()+layout.StagingPrefix[1:])+"*"))
	for _, dir := range old {
		if err := os.RemoveAll(dir); err != nil {
			return fmt.Errorf("removing what an interrupted run left: %w", err)
		}
	}
	return nil
}

// claimDirectory decides whether a dataset directory may be written.
func (o *Output) claimDirectory(overwrite bool) error {
	path := o.final.Path
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	busy := false
	for _, e := range entries {
		if !o.isOwnHidden(e.Name()) {
			busy = true
		}
	}
	if !busy {
		return nil
	}
	switch layout.DirKind(path) {
	case layout.Dataset:
		if !overwrite {
			return fmt.Errorf("%s: %w", path, ErrExists)
		}
		return o.readOld(filepath.Join(path, layout.ManifestName), "")
	case layout.Incomplete:
		return refusef("%s: holds part files but no sluice manifest (an incomplete dataset, or not sluice's); refusing to write into it: remove it yourself or choose another output", path)
	default:
		return refusef("%s: exists and is not a sluice dataset (no manifest.json naming the %s format); refusing to write into it", path, layout.Format)
	}
}

// claimFile decides whether a one-file output may be written.
func (o *Output) claimFile(overwrite bool) error {
	t := o.final
	if st, err := os.Stat(t.Path); err == nil && st.IsDir() {
		return refusef("%s: is a directory", t.Path)
	}
	manifest := t.SidePath(layout.ManifestName)
	_, merr := os.Stat(manifest)
	_, derr := os.Stat(t.Path)
	switch {
	case merr == nil:
		if !layout.IsSluiceManifest(manifest) {
			return refusef("%s: exists and was not written by sluice; refusing to replace it", manifest)
		}
		if err := o.readOld(manifest, filepath.Base(t.Path)); err != nil {
			return err
		}
		if !overwrite {
			return fmt.Errorf("%s: %w", t.Path, ErrExists)
		}
		return nil
	case derr == nil && o.written != nil && o.written(t.Path):
		if !overwrite {
			return fmt.Errorf("%s: %w", t.Path, ErrExists)
		}
		o.old = map[string]bool{filepath.Base(t.Path): true}
	case derr == nil:
		return refusef("%s: exists and was not written by sluice (no %s lists it); refusing to replace it: remove it yourself or choose another output", t.Path, filepath.Base(manifest))
	}
	return nil
}

// readOld reads the files the previous output's manifest lists. A one-file
// output's manifest must list the file itself (want), else it belongs to
// another output of the same stem.
func (o *Output) readOld(manifest, want string) error {
	m, err := ReadManifest(manifest)
	if err != nil {
		return fmt.Errorf("%s: %w", manifest, err)
	}
	o.old = map[string]bool{}
	for _, f := range ownFiles(m) {
		o.old[f] = true
	}
	if want != "" && !o.old[want] {
		other := "another output"
		if len(m.Outputs) > 0 {
			other = m.Outputs[0].Path
		}
		return refusef("%s: belongs to %s, not %s; choose another output name", manifest, other, filepath.Join(o.root, want))
	}
	o.old[filepath.Base(manifest)] = true
	return nil
}

// isOwnHidden reports whether name is the lock or a staging directory of
// this output.
func (o *Output) isOwnHidden(name string) bool {
	p := o.hiddenPrefix()
	return name == p+layout.LockSuffix[1:] || strings.HasPrefix(name, p+layout.StagingPrefix[1:])
}

// Commit moves the new output into place and writes m as its manifest,
// last. Paths in m that name staged files are rewritten to their final
// place, and m lists every file of the output (Files) so that a later
// --overwrite removes exactly those. Before anything of the previous
// output is touched, the manifest is encoded (a value JSON cannot hold,
// such as NaN, fails here) and the files in the way are checked: a file
// the previous manifest does not list stops the commit. A failure then
// leaves the previous output as it was. Commit refuses to begin once the
// run's context is cancelled, and once begun it runs to the end. A local
// output and one in an object store commit alike; only where the files
// go differs (see destination).
func (o *Output) Commit(m *Manifest) error {
	defer o.release()
	if o.staging == "" {
		return nil
	}
	if err := o.beginCommit(); err != nil {
		return err
	}
	d := o.destination()
	manifestName := path.Base(filepath.ToSlash(o.final.SidePath(layout.ManifestName)))
	files, err := d.staged(manifestName)
	if err != nil {
		return err
	}
	if err := o.checkInTheWay(d, files); err != nil {
		return err
	}
	manifest, err := o.encodeManifest(m, files)
	if err != nil {
		return err
	}
	if err := o.replace(d, files, manifestName); err != nil {
		return err
	}
	o.step(StepMoved)
	if manifest != nil {
		if err := d.write(manifestName, manifest); err != nil {
			return err
		}
	}
	d.finish()
	o.endCommit()
	return nil
}

// checkInTheWay refuses a commit that would replace a file the previous
// output's manifest does not list.
func (o *Output) checkInTheWay(d destination, files []string) error {
	have, err := d.existing(files)
	if err != nil {
		return err
	}
	for _, rel := range files {
		if have[rel] && !o.old[rel] {
			return refusef("%s: exists and was not written by sluice; nothing was replaced (the new output is discarded)", joinPath(o.root, rel))
		}
	}
	return nil
}

// replace removes the previous manifest, puts the new files in place and
// removes the previous output's files that they do not replace.
func (o *Output) replace(d destination, files []string, manifestName string) error {
	if o.old != nil {
		// From here until the new manifest is written the output reads as
		// incomplete, never as a whole dataset of mixed files.
		if err := d.remove(manifestName); err != nil {
			return err
		}
	}
	if err := d.place(files); err != nil {
		return err
	}
	kept := map[string]bool{manifestName: true}
	for _, rel := range files {
		kept[rel] = true
	}
	for rel := range o.old {
		if !kept[rel] {
			if err := d.remove(rel); err != nil {
				return err
			}
		}
	}
	return nil
}

// destination is where a commit puts an output's files, each named by
// its path relative to the output's folder, with slashes: a local folder
// (localDestination) or a prefix in an object store (remoteDestination).
type destination interface {
	// open checks that the output's place may be written and makes its
	// folder; lock takes the output's lock; removeLeftovers removes what
	// killed runs staged; claimDirectory and claimFile decide whether the
	// output may be written (see Begin); stage makes the staging area.
	open() error
	lock() error
	removeLeftovers() error
	claimDirectory(overwrite bool) error
	claimFile(overwrite bool) error
	stage() error
	// staged returns the staged files, in order, the manifest aside.
	staged(manifestName string) ([]string, error)
	// existing tells which of files are in the output's folder.
	existing(files []string) (map[string]bool, error)
	// place moves the staged files into place.
	place(files []string) error
	// remove removes a file of the output; one already gone is no error.
	remove(rel string) error
	// write writes a whole file (the manifest) into place.
	write(rel string, data []byte) error
	// finish tidies up after a commit that completed.
	finish()
}

// destination returns where the output goes: the one choice between a
// local folder and an object store, made by the target's path.
func (o *Output) destination() destination {
	if o.dest == nil {
		if o.final.IsRemote() {
			o.dest = &remoteDestination{o: o}
		} else {
			o.dest = localDestination{o}
		}
	}
	return o.dest
}

// localDestination commits into a local folder: the staging directory
// is in it, so placing a file is a rename.
type localDestination struct{ o *Output }

func (d localDestination) local(rel string) string {
	return filepath.Join(d.o.root, filepath.FromSlash(rel))
}

func (d localDestination) open() error {
	t := d.o.final
	if err := checkLocal(t.Path); err != nil {
		return refusedError{err.Error()}
	}
	d.o.root = t.Path
	if t.Kind != Directory {
		d.o.root = filepath.Dir(t.Path)
	}
	if st, err := os.Stat(t.Path); err == nil && t.Kind == Directory && !st.IsDir() {
		return refusef("%s: is a file, not a folder: a dataset directory is written there; choose another output (a name ending in .parquet or .jsonl is a one-file output)", t.Path)
	}
	if err := d.o.mkdirs(d.o.root); err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			return refusef("%s: a part of the path is a file, not a folder; choose another output", t.Path)
		}
		return err
	}
	return nil
}

func (d localDestination) lock() (err error) {
	d.o.lock, err = acquire(d.o.lockPath())
	return err
}

func (d localDestination) removeLeftovers() error              { return d.o.removeLeftovers() }
func (d localDestination) claimDirectory(overwrite bool) error { return d.o.claimDirectory(overwrite) }
func (d localDestination) claimFile(overwrite bool) error      { return d.o.claimFile(overwrite) }

func (d localDestination) stage() (err error) {
	o := d.o
	if o.staging, err = os.MkdirTemp(o.root, o.hiddenPrefix()+layout.StagingPrefix[1:]); err != nil {
		return err
	}
	t := o.final
	if t.Kind == Directory {
		o.staged = Target{Path: o.staging, Kind: Directory}
	} else {
		o.staged = Target{Path: filepath.Join(o.staging, filepath.Base(t.Path)), Kind: t.Kind, Compression: t.Compression}
	}
	return nil
}

func (d localDestination) staged(manifestName string) ([]string, error) {
	return stagedFiles(d.o.staging, manifestName)
}

func (d localDestination) existing(files []string) (map[string]bool, error) {
	have := map[string]bool{}
	for _, rel := range files {
		if _, err := os.Lstat(d.local(rel)); err == nil {
			have[rel] = true
		}
	}
	return have, nil
}

func (d localDestination) place(files []string) error {
	for _, rel := range files {
		dest := d.local(rel)
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return err
		}
		if err := os.Rename(filepath.Join(d.o.staging, filepath.FromSlash(rel)), dest); err != nil {
			return err
		}
	}
	return nil
}

func (d localDestination) remove(rel string) error {
	if err := os.Remove(d.local(rel)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

func (d localDestination) write(rel string, data []byte) error { return WriteFile(d.local(rel), data) }

func (d localDestination) finish() {
	for _, dir := range []string{layout.DataDir, layout.RemovedDir} {
		os.Remove(filepath.Join(d.o.root, dir)) // only when left empty
	}
	d.o.created = nil
}

// stagedFiles lists the files under the staging directory, relative to it
// and with slashes, the manifest aside, in order.
func stagedFiles(staging, manifestName string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(staging, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(staging, path)
		if err == nil && rel != manifestName {
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	sort.Strings(files)
	return files, err
}

// encodeManifest completes m for the files of the new output and encodes
// it; nil when m is nil. It touches nothing on disk.
func (o *Output) encodeManifest(m *Manifest, files []string) ([]byte, error) {
	if m == nil {
		return nil, nil
	}
	o.finalize(m, files)
	b, err := EncodeManifest(m)
	if err != nil {
		return nil, fmt.Errorf("%s: the manifest cannot be written (%w); nothing was replaced (the new output is discarded)",
			o.final.SidePath(layout.ManifestName), err)
	}
	return b, nil
}

// finalize rewrites the staged paths of m to their final place and lists
// the output's files.
func (o *Output) finalize(m *Manifest, files []string) {
	move := func(p string) string {
		rel, err := filepath.Rel(o.staging, p)
		if err != nil || strings.HasPrefix(rel, "..") {
			return p
		}
		return joinPath(o.root, filepath.ToSlash(rel))
	}
	for i := range m.Outputs {
		m.Outputs[i].Path = move(m.Outputs[i].Path)
	}
	for i := range m.Removed {
		m.Removed[i].Path = move(m.Removed[i].Path)
	}
	for k, v := range m.Side {
		m.Side[k] = move(v)
	}
	m.Files = files
}

// Abort discards the new output: the staging directory and the
// directories Begin created, when they are left empty. The previous output
// is untouched. After a successful Commit it does nothing, so callers may
// defer it.
func (o *Output) Abort() {
	if o.remote != nil {
		o.abortRemote()
	}
	if o.staging != "" {
		os.RemoveAll(o.staging)
		o.staging = ""
	}
	o.release()
	for _, d := range o.created {
		os.Remove(d) // only when empty
	}
	o.created = nil
}

func (o *Output) release() {
	o.releaseRemote()
	if o.staging != "" {
		os.RemoveAll(o.staging)
		o.staging = ""
	}
	if o.lock != nil {
		o.lock.release()
		o.lock = nil
	}
}

// globEscape escapes the glob metacharacters of a literal name.
func globEscape(s string) string {
	r := strings.NewReplacer(`*`, `\*`, `?`, `\?`, `[`, `\[`, `\`, `\\`)
	return r.Replace(s)
}

// Remove removes the sluice output whose manifest is at manifest: the
// files it lists, then the manifest. Anything else beside them stays.
func Remove(manifest string) error {
	m, err := ReadManifest(manifest)
	if err != nil {
		return fmt.Errorf("%s: %w", manifest, err)
	}
	root := filepath.Dir(manifest)
	for _, f := range ownFiles(m) {
		if err := os.Remove(filepath.Join(root, f)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return os.Remove(manifest)
}

// ownFiles returns the files m lists that may be its own: relative paths
// inside the output's directory, none hidden (a manifest naming ../x or
// /etc/x is not believed).
func ownFiles(m *Manifest) []string {
	var own []string
	for _, f := range m.Files {
		clean := filepath.Clean(f)
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) || layout.IsHidden(clean) {
			continue
		}
		own = append(own, clean)
	}
	return own
}

// ErrRefused marks an output sluice will not write as asked (an input, a
// directory that is not a sluice dataset, a file another output owns, an
// existing output without --overwrite): the user's to change, exit code 2.
var ErrRefused = errors.New("output refused")

type refusedError struct{ msg string }

func (e refusedError) Error() string        { return e.msg }
func (e refusedError) Is(target error) bool { return target == ErrRefused }

func refusef(format string, a ...any) error { return refusedError{fmt.Sprintf(format, a...)} }

// Refusef returns an ErrRefused with the message format gives: for the
// outputs that are checked outside this package (a launch's folder).
func Refusef(format string, a ...any) error { return refusef(format, a...) }
