package blob

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ReaderAt reads an object by ranges: each ReadAt is one range request,
// safe to call from several goroutines at once, so a Parquet reader fetches
// its footer first and then only the column chunks it needs, several in
// flight. The object's last bytes (where Parquet keeps its footer) are
// fetched once and kept.
type ReaderAt struct {
	ctx  context.Context
	url  string
	size int64
	pos  int64 // for Seek and Read

	tailOnce sync.Once
	tail     []byte
	tailErr  error
}

// tailBytes is how much of an object's end ReaderAt keeps: a Parquet
// footer and its length.
const tailBytes = 64 << 10

// OpenReaderAt opens the object at u for range reads.
func OpenReaderAt(ctx context.Context, u string) (*ReaderAt, error) {
	a, err := Stat(ctx, u)
	if err != nil {
		return nil, err
	}
	return &ReaderAt{ctx: ctx, url: u, size: a.Size}, nil
}

// Size returns the object's size in bytes.
func (r *ReaderAt) Size() int64 { return r.size }

// ReadAt reads len(p) bytes from off, as io.ReaderAt.
func (r *ReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: read at negative offset %d", r.url, off)
	}
	if off >= r.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	want := int64(len(p))
	short := false
	if off+want > r.size {
		want, short = r.size-off, true
	}
	tailStart := r.size - min(r.size, tailBytes)
	if off >= tailStart {
		r.tailOnce.Do(func() { r.tail, r.tailErr = r.fetch(tailStart, r.size-tailStart) })
		if r.tailErr != nil {
			return 0, r.tailErr
		}
		n := copy(p[:want], r.tail[off-tailStart:])
		if short {
			return n, io.EOF
		}
		return n, nil
	}
	rc, err := NewReader(r.ctx, r.url, off, want)
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	n, err := io.ReadFull(rc, p[:want])
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return n, fmt.Errorf("%s: the object ended at %d, before the %d bytes its size promised (it changed while read?)", r.url, off+int64(n), r.size)
	}
	if err == nil && short {
		err = io.EOF
	}
	return n, err
}

func (r *ReaderAt) fetch(off, n int64) ([]byte, error) {
	rc, err := NewReader(r.ctx, r.url, off, n)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	buf := make([]byte, n)
	if _, err := io.ReadFull(rc, buf); err != nil {
		return nil, fmt.Errorf("%s: reading bytes %d to %d: %w", r.url, off, off+n, err)
	}
	return buf, nil
}

// Seek sets where Read reads next, as io.Seeker.
func (r *ReaderAt) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.pos
	case io.SeekEnd:
		offset += r.size
	default:
		return 0, fmt.Errorf("%s: bad whence %d", r.url, whence)
	}
	if offset < 0 {
		return 0, fmt.Errorf("%s: seek to negative offset %d", r.url, offset)
	}
	r.pos = offset
	return offset, nil
}

// Read reads from the position Seek set, as io.Reader.
func (r *ReaderAt) Read(p []byte) (int, error) {
	n, err := r.ReadAt(p, r.pos)
	r.pos += int64(n)
	if err == io.EOF && n > 0 {
		err = nil
	}
	return n, err
}

// Close releases nothing: every ReadAt is its own request.
func (r *ReaderAt) Close() error { return nil }
