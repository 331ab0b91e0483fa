package input

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// ErrChanged is the cause of the error of a file that changed while it
// was read: it shrank, grew or was written to between the moment sluice
// looked at it and the end of its reading.
var ErrChanged = errors.New("the file changed while it was read")

// stamp is what Stat saw of a local file: its size and modification time.
type stamp struct {
	size    int64
	modTime time.Time
}

// stampOf records what st says of a file.
func stampOf(st os.FileInfo) *stamp { return &stamp{size: st.Size(), modTime: st.ModTime()} }

// differs describes how st differs from s, or returns "".
func (s *stamp) differs(st os.FileInfo) string {
	switch {
	case st.Size() != s.size:
		return fmt.Sprintf("%d bytes when it was opened, %d now", s.size, st.Size())
	case !st.ModTime().Equal(s.modTime):
		return fmt.Sprintf("modified at %s since it was opened (at %s)", st.ModTime().Format(time.RFC3339Nano), s.modTime.Format(time.RFC3339Nano))
	}
	return ""
}

// CheckUnchanged returns an error wrapping ErrChanged when the local file
// f no longer has the size and modification time it had when Stat saw it.
// Readers that open a file by its path themselves (Parquet) call it once
// they have read it; Open checks the files it opens.
func CheckUnchanged(f File) error {
	if f.stamp == nil {
		return nil
	}
	st, err := os.Stat(f.Path)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", f.Label(), ErrChanged, err)
	}
	if d := f.stamp.differs(st); d != "" {
		return fmt.Errorf("%s: %w: %s", f.Label(), ErrChanged, d)
	}
	return nil
}

// guard reads a local file (or a span of it) and, at its end, checks that
// every byte expected was read and that the file still is as Stat saw it:
// a file cut short while it is read would otherwise look like a shorter
// file. Its error, once it has one, is returned by every later Read.
type guard struct {
	r    io.Reader
	fh   *os.File
	file File
	want int64 // the bytes the read should give: the file's size, or its span's
	n    int64
	err  error
}

func (g *guard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.r.Read(p)
	g.n += int64(n)
	if err == io.EOF {
		if cerr := g.check(); cerr != nil {
			g.err = cerr
			return n, cerr
		}
	}
	return n, err
}

// check compares what was read with what was expected.
func (g *guard) check() error {
	st, err := g.fh.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w: %w", g.file.Label(), ErrChanged, err)
	}
	if g.n != g.want {
		return fmt.Errorf("%s: %w: %d bytes expected, %d read (%d bytes now)", g.file.Label(), ErrChanged, g.want, g.n, st.Size())
	}
	if d := g.file.stamp.differs(st); d != "" {
		return fmt.Errorf("%s: %w: %s", g.file.Label(), ErrChanged, d)
	}
	return nil
}
