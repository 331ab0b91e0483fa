package input

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/layout"
)

// scanURL adds the objects an object-store argument names: the object
// itself (even when its name has glob characters); the objects a glob matches (a "*" stays within one "folder");
// or, for a prefix that is no object, the objects under it with a data
// suffix, as a directory scan does: hidden keys and side outputs are
// skipped, of a sluice dataset under it only data/ is read, and a
// dataset's part files without its manifest are refused unless
// opts.AllowIncomplete.
func scanURL(arg string, opts ScanOptions, add func(string), set *Set) error {
	ctx := context.Background()
	if _, _, err := blob.Parse(arg); err != nil {
		return err
	}
	if blob.HasMeta(arg) {
		if ok, err := blob.Exists(ctx, arg); err == nil && ok {
			add(arg) // an object's own name wins over the pattern it reads as
			return nil
		}
		objs, err := blob.Glob(ctx, arg)
		if err != nil {
			return err
		}
		if len(objs) == 0 {
			return fmt.Errorf("%s: no object matches", arg)
		}
		for _, o := range objs {
			add(o.URL)
		}
		return nil
	}
	if !strings.HasSuffix(arg, "/") {
		ok, err := blob.Exists(ctx, arg)
		if err != nil {
			return err
		}
		if ok {
			add(arg)
			return nil
		}
	}
	prefix := blob.Clean(arg)
	_, key, _ := blob.Parse(prefix)
	listed := prefix + "/"
	if key == "" {
		listed = prefix + "/" // the whole bucket
	}
	objs, err := blob.List(ctx, listed)
	if err != nil {
		return err
	}
	if len(objs) == 0 {
		if err := blob.CheckBucket(ctx, arg); err != nil {
			return err
		}
		return fmt.Errorf("%s: no such object, and no object under this prefix", arg)
	}
	set.Dirs = append(set.Dirs, prefix)
	rel := func(u string) string { return strings.TrimPrefix(u, listed) }
	// Dataset roots: the folders whose manifest.json is a sluice manifest.
	roots := map[string]bool{}
	for _, o := range objs {
		r := rel(o.URL)
		if path.Base(r) == layout.ManifestName && !hiddenKey(r) && isSluiceManifestURL(ctx, o.URL) {
			roots[path.Dir(r)] = true
		}
	}
	var found []string
	for _, o := range objs {
		r := rel(o.URL)
		if hiddenKey(r) || !hasScanSuffix(r) || layout.IsSideFile(path.Base(r)) {
			continue
		}
		root, inDataset := datasetRoot(r, roots)
		switch {
		case inDataset && !strings.HasPrefix(r, join(root, layout.DataDir)+"/"):
			continue // a dataset's removed rows and the like
		case !inDataset && path.Base(path.Dir(r)) == layout.DataDir && strings.HasPrefix(path.Base(r), "part-") && strings.HasSuffix(r, ".parquet"):
			if !opts.AllowIncomplete {
				ds := prefix
				if d := path.Dir(path.Dir(r)); d != "." {
					ds = prefix + "/" + d
				}
				return fmt.Errorf("%s: an incomplete sluice dataset (part files but no %s: a run that did not finish?); "+
					"read it anyway with --allow-incomplete", ds, layout.ManifestName)
			}
		}
		found = append(found, o.URL)
	}
	if len(found) == 0 {
		return fmt.Errorf("%s: holds no .jsonl, .jsonl.gz, .jsonl.zst, .parquet or .warc[.gz] object", arg)
	}
	sort.Strings(found)
	for _, f := range found {
		add(f)
	}
	return nil
}

// join joins two relative keys, "." being the top.
func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// datasetRoot returns the deepest dataset root that holds the relative key
// r.
func datasetRoot(r string, roots map[string]bool) (string, bool) {
	for d := path.Dir(r); ; d = path.Dir(d) {
		if roots[d] {
			return d, true
		}
		if d == "." || d == "/" {
			return "", false
		}
	}
}

// hiddenKey reports whether a relative key has a hidden element (sluice's
// staging and lock objects among them).
func hiddenKey(r string) bool {
	for _, e := range strings.Split(r, "/") {
		if layout.IsHidden(e) {
			return true
		}
	}
	return false
}

// isSluiceManifestURL reports whether the object at u is a manifest that
// sluice wrote (see layout.IsSluiceManifest).
func isSluiceManifestURL(ctx context.Context, u string) bool {
	r, err := blob.NewReader(ctx, u, 0, -1)
	if err != nil {
		return false
	}
	defer r.Close()
	var head struct {
		Format string `json:"format"`
	}
	return json.NewDecoder(io.LimitReader(r, 64<<20)).Decode(&head) == nil && head.Format == layout.Format
}

// statURL describes the object at u, telling its format by its first
// bytes as Stat does for a file.
func statURL(u string) (File, error) {
	ctx := context.Background()
	if _, _, err := blob.Parse(u); err != nil {
		return File{}, err
	}
	a, err := blob.Stat(ctx, u)
	if err != nil {
		return File{}, err
	}
	file := File{Path: u, Size: a.Size}
	var head []byte
	if a.Size > 0 {
		r, err := blob.NewReader(ctx, u, 0, min(a.Size, headBytes))
		if err != nil {
			return File{}, err
		}
		head, err = io.ReadAll(r)
		r.Close()
		if err != nil {
			return File{}, err
		}
	}
	if err := file.detect(head); err != nil {
		return File{}, err
	}
	return file, nil
}

// openURL opens an object for streaming: the whole of it, or its span.
func openURL(f File) (io.ReadCloser, error) {
	if f.Span.IsZero() {
		return blob.NewReader(context.Background(), f.Path, 0, -1)
	}
	if f.Compression != None || f.Span.Lo < 0 || f.Span.Hi < f.Span.Lo || f.Span.FirstLine < 1 {
		return nil, fmt.Errorf("%s: cannot read bytes %d to %d (line %d on) of a %s file", f.Label(), f.Span.Lo, f.Span.Hi, f.Span.FirstLine, f.Compression)
	}
	return blob.NewReader(context.Background(), f.Path, f.Span.Lo, f.Span.Hi-f.Span.Lo)
}
