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

// Stamp is what a local file looked like when its reading began: its size
// and modification time.
type Stamp struct {
	size    int64
	modTime time.Time
}

// StampOf returns the stamp of the local file at path.
func StampOf(path string) (Stamp, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Stamp{}, err
	}
	return stampOf(st), nil
}

func stampOf(st os.FileInfo) Stamp { return Stamp{size: st.Size(), modTime: st.ModTime()} }

// differs describes how st differs from s, or returns "".
func (s Stamp) differs(st os.FileInfo) string {
	switch {
	case st.Size() != s.size:
		return fmt.Sprintf("%d bytes when its reading began, %d now", s.size, st.Size())
	case !st.ModTime().Equal(s.modTime):
		return fmt.Sprintf("modified at %s, after its reading began (it was last modified at %s)",
			st.ModTime().Format(time.RFC3339Nano), s.modTime.Format(time.RFC3339Nano))
	}
	return ""
}

// Check returns an error wrapping ErrChanged, naming f, when the file at
// f.Path no longer has the size and modification time of s. Readers that
// open a file by its path themselves (Parquet) take its stamp before they
// read it and check it once they have; Open checks the files it opens.
func (s Stamp) Check(f File) error {
	st, err := os.Stat(f.Path)
	if err != nil {
		return fmt.Errorf("%s: %w: %w", f.Label(), ErrChanged, err)
	}
	if d := s.differs(st); d != "" {
		return fmt.Errorf("%s: %w: %s", f.Label(), ErrChanged, d)
	}
	return nil
}

// guard reads a local file (or a span of it) and, at its end, checks that
// every byte expected was read and that the file still is as it was when
// it was opened: a file cut short while it is read would otherwise look
// like a shorter file. Its error, once it has one, is returned by every
// later Read.
type guard struct {
	r     io.Reader
	fh    *os.File
	file  File
	stamp Stamp
	want  int64 // the bytes the read should give: the file's size, or its span's
	n     int64
	err   error
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
	if d := g.stamp.differs(st); d != "" {
		return fmt.Errorf("%s: %w: %s", g.file.Label(), ErrChanged, d)
	}
	return nil
}
