package provenance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/cespare/xxhash/v2"
	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/layout"
	"github.com/sluice-data/sluice/io/pqio"
)

// The kinds of problems Verify finds.
const (
	Missing    = "missing"    // a file the manifest lists is not there
	Changed    = "changed"    // its bytes, size or rows are not the manifest's
	Extra      = "extra"      // a part file the manifest does not list
	Incomplete = "incomplete" // a file cut short or that does not decode
	Counts     = "counts"     // the manifest's numbers do not add up
)

// Problem is one thing about an output that is not as its manifest says.
type Problem struct {
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	Detail string `json:"detail"`
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s: %s", p.Kind, p.Path, p.Detail) }

// VerifyOptions tune Verify.
type VerifyOptions struct {
	// Deep also decodes every page of every Parquet file (and decompresses
	// compressed JSONL) and counts the rows it holds.
	Deep bool
	// Workers is how many files are checked at once; 0 for every core.
	Workers int
	Mem     memory.Allocator
}

// Verification is what Verify found.
type Verification struct {
	Manifest  string    `json:"manifest"`
	VersionID string    `json:"version_id"`
	Files     int       `json:"files"` // data, removed and side files checked
	Bytes     int64     `json:"bytes"` // bytes hashed
	Rows      int64     `json:"rows"`  // kept rows
	Removed   int64     `json:"removed"`
	Shards    int       `json:"shards,omitempty"` // shard manifests checked (a launched output)
	Deep      bool      `json:"deep"`
	Problems  []Problem `json:"problems"`
}

// OK reports whether nothing was found wrong.
func (v *Verification) OK() bool { return len(v.Problems) == 0 }

func (v *Verification) add(kind, path, format string, a ...any) {
	v.Problems = append(v.Problems, Problem{Kind: kind, Path: path, Detail: fmt.Sprintf(format, a...)})
}

// Verify checks the sluice output at path (a dataset directory, a
// one-file output or its manifest) against its manifest: every data,
// removed and side file is there with the size and xxhash64 recorded,
// Parquet footers hold the rows recorded, the counts add up (rows_in +
// inserted == rows_out + removed + quarantined), the rows of the files it
// lists are the counts' (a manifest that lists no data files holds no
// rows), the recorded version
// id is the one the outputs give, no file the manifest does not list as
// data or removed lies anywhere under a dataset's data/ or removed/, and,
// for a launched output, the shard manifests add up to the merged one. It
// returns an error only when the manifest itself cannot be read.
func Verify(ctx context.Context, path string, opts VerifyOptions) (*Verification, error) {
	m, manifest, root, err := dataset.Open(path)
	if err != nil {
		return nil, err
	}
	if opts.Mem == nil {
		opts.Mem = memory.DefaultAllocator
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.NumCPU()
	}
	v := &Verification{Manifest: manifest, VersionID: dataset.IDOf(m), Deep: opts.Deep, Problems: []Problem{}}
	if err := m.Counts.Check(); err != nil {
		v.add(Counts, manifest, "%v", strings.TrimPrefix(err.Error(), "manifest: "))
	}
	if m.VersionID != "" && m.VersionID != dataset.VersionID(m) {
		v.add(Changed, manifest, "records version %s, but the outputs it lists give %s: the manifest was edited", m.VersionID, dataset.VersionID(m))
	}
	dir := root
	var jobs []fileJob
	listed := map[string]bool{}
	for _, f := range m.Outputs {
		rel := Resolve(m, f.Path)
		listed[rel] = true
		jobs = append(jobs, fileJob{rel: rel, path: filepath.Join(dir, rel), want: f, data: true})
	}
	for _, f := range m.Removed {
		rel := Resolve(m, f.Path)
		listed[rel] = true
		jobs = append(jobs, fileJob{rel: rel, path: filepath.Join(dir, rel), want: f})
	}
	rows := maps.Clone(listed) // the files whose rows are the dataset's
	results := checkFiles(ctx, jobs, opts)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var keptRows, removedRows int64
	for i, r := range results {
		v.Files++
		v.Bytes += r.bytes
		for _, p := range r.problems {
			v.Problems = append(v.Problems, p)
		}
		if jobs[i].data {
			keptRows += jobs[i].want.Rows
		} else {
			removedRows += jobs[i].want.Rows
		}
	}
	v.Rows, v.Removed = keptRows, removedRows
	if keptRows != m.Counts.RowsOut {
		v.add(Counts, manifest, "the %d data files it lists hold %d rows, the counts say rows_out %d", len(m.Outputs), keptRows, m.Counts.RowsOut)
	}
	if removedRows != m.Counts.Removed {
		v.add(Counts, manifest, "the %d removed files it lists hold %d rows, the counts say removed %d", len(m.Removed), removedRows, m.Counts.Removed)
	}
	v.checkSides(m, dir, listed)
	if filepath.Base(manifest) == layout.ManifestName { // a dataset directory
		v.checkExtra(dir, rows)
	}
	if err := v.checkShards(m, dir); err != nil {
		return nil, err
	}
	sort.SliceStable(v.Problems, func(i, j int) bool { return v.Problems[i].Path < v.Problems[j].Path })
	return v, nil
}

// Resolve returns the path of an output file the manifest records,
// relative to the output's root: the entry of m.Files it ends with (the
// manifest records each file where the run wrote it, as the run was
// given the output path), or its base name.
func Resolve(m *dataset.Manifest, recorded string) string {
	p := filepath.ToSlash(filepath.Clean(recorded))
	best := ""
	for _, f := range m.Files {
		fs := filepath.ToSlash(filepath.Clean(f))
		if (p == fs || strings.HasSuffix(p, "/"+fs)) && len(fs) > len(best) {
			best = fs
		}
	}
	if best != "" {
		return filepath.FromSlash(best)
	}
	dir := filepath.Base(filepath.Dir(recorded))
	if dir == layout.DataDir || dir == layout.RemovedDir {
		return filepath.Join(dir, filepath.Base(recorded))
	}
	return filepath.Base(recorded)
}

// checkSides checks the side outputs (quarantines, reports) and the other
// files the manifest lists: each must be there; the quarantines must hold
// one line per quarantined row.
func (v *Verification) checkSides(m *dataset.Manifest, dir string, listed map[string]bool) {
	var quarantined int64
	sawQuarantine := false
	keys := make([]string, 0, len(m.Side))
	for k := range m.Side {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		rel := Resolve(m, m.Side[k])
		listed[rel] = true
		path := filepath.Join(dir, rel)
		v.Files++
		if !strings.HasPrefix(k, "quarantine") {
			if _, err := os.Stat(path); err != nil {
				v.add(Missing, path, "the manifest lists it as its %s", k)
			}
			continue
		}
		n, err := countLines(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				v.add(Missing, path, "the manifest lists it as its %s", k)
			} else {
				v.add(Incomplete, path, "%v", err)
			}
			continue
		}
		sawQuarantine = true
		quarantined += n
	}
	if sawQuarantine && quarantined != m.Counts.Quarantined {
		v.add(Counts, filepath.Join(dir, layout.QuarantineName), "the quarantine holds %d lines, the counts say quarantined %d", quarantined, m.Counts.Quarantined)
	}
	for _, f := range m.Files {
		if listed[f] {
			continue
		}
		listed[f] = true
		path := filepath.Join(dir, f)
		if _, err := os.Stat(path); err != nil {
			v.add(Missing, path, "the manifest lists it")
		}
	}
}

// checkExtra finds the files under data/ and removed/, in any subfolder,
// that the manifest does not list as data or removed files: readers of
// the dataset would read them as rows of it. Hidden files and folders
// (a run's staging) are no part of the dataset.
func (v *Verification) checkExtra(dir string, listed map[string]bool) {
	for _, sub := range []string{layout.DataDir, layout.RemovedDir} {
		top := filepath.Join(dir, sub)
		filepath.WalkDir(top, func(path string, e fs.DirEntry, err error) error {
			switch {
			case err != nil:
				if path != top {
					v.add(Incomplete, path, "%v", err)
				}
				return nil
			case path != top && layout.IsHidden(e.Name()):
				if e.IsDir() {
					return filepath.SkipDir
				}
				return nil
			case e.IsDir():
				return nil
			}
			rel, _ := filepath.Rel(dir, path)
			if !listed[rel] {
				v.add(Extra, path, "not listed in the manifest; readers of %s/ would read it", sub)
			}
			return nil
		})
	}
}

// checkShards checks a launched output's shard manifests
// (manifest-NNNNN.json, listed in the merged manifest): each must add up,
// its files must be the merged manifest's, and together they must give the
// merged counts.
func (v *Verification) checkShards(m *dataset.Manifest, dir string) error {
	var shards []string
	for _, f := range m.Files {
		if strings.HasPrefix(f, "manifest-") && strings.HasSuffix(f, ".json") && !strings.Contains(f, string(filepath.Separator)) {
			shards = append(shards, f)
		}
	}
	if len(shards) == 0 {
		return nil
	}
	sort.Strings(shards)
	hashes := map[string]string{}
	for _, f := range append(append([]dataset.OutputFile(nil), m.Outputs...), m.Removed...) {
		hashes[Resolve(m, f.Path)] = f.Hash
	}
	var sum dataset.Counts
	for _, f := range shards {
		path := filepath.Join(dir, f)
		b, err := os.ReadFile(path)
		if err != nil {
			continue // reported missing by checkSides
		}
		var sm dataset.Manifest
		if err := json.Unmarshal(b, &sm); err != nil {
			v.add(Incomplete, path, "not a shard manifest: %v", err)
			continue
		}
		v.Shards++
		if err := sm.Counts.Check(); err != nil {
			v.add(Counts, path, "%v", strings.TrimPrefix(err.Error(), "manifest: "))
		}
		for _, o := range append(append([]dataset.OutputFile(nil), sm.Outputs...), sm.Removed...) {
			rel := Resolve(m, o.Path)
			if h, ok := hashes[rel]; !ok {
				v.add(Changed, path, "lists %s, which the merged manifest does not", rel)
			} else if h != o.Hash {
				v.add(Changed, path, "records %s with xxhash64 %s, the merged manifest %s", rel, o.Hash, h)
			}
		}
		sum.Add(sm.Counts)
	}
	c := m.Counts
	if v.Shards == len(shards) && (sum.RowsIn != c.RowsIn || sum.RowsOut != c.RowsOut || sum.Removed != c.Removed ||
		sum.Quarantined != c.Quarantined || sum.Inserted != c.Inserted) {
		v.add(Counts, filepath.Join(dir, layout.ManifestName),
			"the %d shard manifests add up to rows_in %d, rows_out %d, removed %d, quarantined %d; the merged one says %d, %d, %d, %d",
			len(shards), sum.RowsIn, sum.RowsOut, sum.Removed, sum.Quarantined, c.RowsIn, c.RowsOut, c.Removed, c.Quarantined)
	}
	return nil
}

// fileJob is one data or removed file to check.
type fileJob struct {
	rel, path string
	want      dataset.OutputFile
	data      bool
}

type fileResult struct {
	bytes    int64
	problems []Problem
}

// checkFiles checks the files on opts.Workers goroutines; the results are
// in the order of jobs.
func checkFiles(ctx context.Context, jobs []fileJob, opts VerifyOptions) []fileResult {
	results := make([]fileResult, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(opts.Workers, max(len(jobs), 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = checkFile(ctx, jobs[i], opts)
			}
		}()
	}
	for i := range jobs {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// checkFile compares one file with what the manifest records of it.
func checkFile(ctx context.Context, j fileJob, opts VerifyOptions) (res fileResult) {
	bad := func(kind, format string, a ...any) {
		detail := strings.TrimPrefix(fmt.Sprintf(format, a...), j.path+": ")
		res.problems = append(res.problems, Problem{Kind: kind, Path: j.path, Detail: detail})
	}
	st, err := os.Stat(j.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			bad(Missing, "the manifest lists it (%d rows, %d bytes)", j.want.Rows, j.want.Bytes)
		} else {
			bad(Missing, "%v", err)
		}
		return res
	}
	kind := dataset.ParseTarget(j.path).Kind
	t := dataset.ParseTarget(j.path)
	h, lines, err := hashFile(j.path, kind == dataset.JSONLFile && t.Compression == input.None)
	res.bytes = st.Size()
	if err != nil {
		bad(Incomplete, "%v", err)
		return res
	}
	sum := fmt.Sprintf("%016x", h)
	switch {
	case st.Size() < j.want.Bytes:
		bad(Incomplete, "%d bytes, the manifest records %d: cut short", st.Size(), j.want.Bytes)
	case st.Size() != j.want.Bytes:
		bad(Changed, "%d bytes, the manifest records %d", st.Size(), j.want.Bytes)
	case sum != j.want.Hash:
		bad(Changed, "xxhash64 %s, the manifest records %s: its bytes changed", sum, j.want.Hash)
	}
	switch kind {
	case dataset.ParquetFile:
		rows, err := parquetRows(ctx, j.path, opts)
		if err != nil {
			bad(Incomplete, "%v", err)
		} else if rows != j.want.Rows {
			bad(Changed, "%d rows, the manifest records %d", rows, j.want.Rows)
		}
	case dataset.JSONLFile:
		if lines < 0 && opts.Deep {
			lines, err = countLines(j.path)
			if err != nil {
				bad(Incomplete, "%v", err)
				return res
			}
		}
		if lines >= 0 && lines != j.want.Rows {
			bad(Changed, "%d lines, the manifest records %d rows", lines, j.want.Rows)
		}
	}
	return res
}

// hashFile returns the xxhash64 of the file and, when lines is set, the
// number of lines it holds (-1 otherwise).
func hashFile(path string, lines bool) (uint64, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, -1, err
	}
	defer f.Close()
	h := xxhash.New()
	n := int64(-1)
	if lines {
		n = 0
	}
	buf := make([]byte, 1<<20)
	for {
		k, err := f.Read(buf)
		h.Write(buf[:k])
		if lines {
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		}
		if err == io.EOF {
			return h.Sum64(), n, nil
		}
		if err != nil {
			return 0, -1, err
		}
	}
}

// countLines counts the lines of a text file, decompressed when it is.
func countLines(path string) (int64, error) {
	r, err := input.Open(input.File{Path: path, Compression: dataset.ParseTarget(path).Compression})
	if err != nil {
		return 0, err
	}
	defer r.Close()
	var n int64
	buf := make([]byte, 1<<20)
	for {
		k, err := r.Read(buf)
		n += int64(bytes.Count(buf[:k], []byte{'\n'}))
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("%s: %w", path, err)
		}
	}
}

// parquetRows returns the rows a Parquet file's footer records or, with
// Deep, the rows its pages decode to.
func parquetRows(ctx context.Context, path string, opts VerifyOptions) (rows int64, err error) {
	defer func() {
		if r := recover(); r != nil { // a corrupt page can panic the decoder
			err = fmt.Errorf("%s: does not decode: %v", path, r)
		}
	}()
	r, err := pqio.Open(opts.Mem, path, 64<<10)
	if err != nil {
		return 0, err
	}
	defer r.Close()
	if !opts.Deep {
		return r.NumRows(), nil
	}
	footer := r.NumRows()
	for {
		rec, err := r.Next(ctx)
		if err != nil {
			return rows, err
		}
		if rec == nil {
			break
		}
		rows += rec.NumRows()
		rec.Release()
	}
	if rows != footer {
		return rows, fmt.Errorf("%s: its pages hold %d rows, its footer says %d", path, rows, footer)
	}
	return rows, nil
}
