package scaleout

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/dataset"
)

// store keeps a plan's bookkeeping files (markers and leases) by their
// path: a local path on the file system, an s3:// (gs://, az://) URL in
// the object store.
type store interface {
	// read returns a file's bytes and when it was last written;
	// fs.ErrNotExist when it is missing.
	read(path string) ([]byte, time.Time, error)
	// write writes a file whole or not at all, replacing any.
	write(path string, data []byte) error
	// create writes a file unless one is there (fs.ErrExist).
	create(path string, data []byte) error
	// remove removes a file; a missing one is no error.
	remove(path string) error
	// exists reports whether the file is there.
	exists(path string) bool
	// takeOver removes the stale lease at path if it still holds raw, and
	// reports whether it did.
	takeOver(path string, raw []byte, token string) (bool, error)
}

// storeOf returns the store of path.
func storeOf(path string) store {
	if blob.IsURL(path) {
		return bucketStore{}
	}
	return fileStore{}
}

// fileStore keeps the files on the file system.
type fileStore struct{}

func (fileStore) read(path string) ([]byte, time.Time, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, time.Time{}, err
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, time.Time{}, err
	}
	return b, st.ModTime(), nil
}

func (fileStore) write(path string, data []byte) error { return dataset.WriteFile(path, data) }

func (fileStore) create(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return createExclusive(path, data)
}

func (fileStore) remove(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func (fileStore) exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// takeOver moves the lease aside under a name of the taker's own, and
// makes sure what was moved is the stale lease read before, not a fresh
// one that took its place meanwhile (then it goes back).
func (fileStore) takeOver(path string, raw []byte, token string) (bool, error) {
	aside := path + ".stale-" + token
	if err := os.Rename(path, aside); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	moved, err := os.ReadFile(aside)
	if err != nil {
		return false, err
	}
	if !bytes.Equal(moved, raw) {
		os.Link(aside, path) // fails only if yet another lease is in place
		os.Remove(aside)
		return false, nil
	}
	os.Remove(aside)
	return true, nil
}

// bucketStore keeps the files as objects. A lease is created only where
// no object is (a conditional write) and renewed by overwriting it.
type bucketStore struct{}

// storeTimeout bounds one request of the bookkeeping, retries included.
const storeTimeout = 2 * time.Minute

func (bucketStore) read(u string) ([]byte, time.Time, error) {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	a, err := blob.Stat(ctx, u)
	if err != nil {
		return nil, time.Time{}, err
	}
	b, err := blob.ReadFile(ctx, u)
	if err != nil {
		return nil, time.Time{}, err
	}
	return b, a.ModTime, nil
}

func (bucketStore) write(u string, data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	return blob.WriteFile(ctx, u, data)
}

func (bucketStore) create(u string, data []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	w, err := blob.CreateNew(ctx, u)
	if err != nil {
		return err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(); errors.Is(err, blob.ErrExists) {
		return fmt.Errorf("%w: %w", fs.ErrExist, err)
	} else if err != nil {
		return err
	}
	return nil
}

func (bucketStore) remove(u string) error {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	return blob.Delete(ctx, u)
}

func (bucketStore) exists(u string) bool {
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	ok, _ := blob.Exists(ctx, u)
	return ok
}

// takeOver deletes the stale lease if it still holds raw. Two copies
// taking it over at once may both delete and create: the one whose
// lease was replaced finds another token at its next heartbeat, before
// it moves any file into the dataset, and gives the task up.
func (s bucketStore) takeOver(u string, raw []byte, _ string) (bool, error) {
	cur, _, err := s.read(u)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !bytes.Equal(cur, raw) {
		return false, nil
	}
	return true, s.remove(u)
}
