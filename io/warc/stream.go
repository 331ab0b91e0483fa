package warc

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/gzip"
)

// gap is returned by stream.Read where decompression failed: the bytes
// after it come from the next gzip member that could be found. The bytes
// before it are good back to decompressed offset from: a member cut short
// by the end of the file gives good bytes up to the cut, but a member that
// fails its CRC or size check, or whose deflate data is corrupt, spoils
// every byte it gave.
type gap struct {
	err  error
	from int64
}

func (g *gap) Error() string { return g.err.Error() }

// member marks where a gzip member begins: at decompressed offset dec and
// raw file offset raw.
type member struct{ dec, raw int64 }

// stream yields the decompressed bytes of a plain or gzip file and keeps
// track of where its gzip members begin.
type stream struct {
	cr      countingReader
	br      *bufio.Reader
	gz      *gzip.Reader // nil for a plain file
	dec     int64        // decompressed bytes produced
	checked int64        // decompressed bytes of members that passed their CRC and size checks
	members []member     // members that began at or after the parser's position
	lastErr error        // the stream's first decompression error
	done    bool
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func newStream(r io.Reader) (*stream, error) {
	s := &stream{cr: countingReader{r: r}}
	s.br = bufio.NewReaderSize(&s.cr, 256<<10)
	head, _ := s.br.Peek(2)
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		s.members = append(s.members, member{0, 0})
		zr, err := gzip.NewReader(s.br)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorruptGzip, err)
		}
		zr.Multistream(false)
		s.gz = zr
	}
	return s, nil
}

// rawPos is the raw offset of the next byte the decompressor will read.
func (s *stream) rawPos() int64 { return s.cr.n - int64(s.br.Buffered()) }

// Read reads decompressed bytes. It returns a *gap error once at each place
// where a gzip member could not be decompressed, and io.EOF at the end.
func (s *stream) Read(p []byte) (int, error) {
	if s.done {
		return 0, io.EOF
	}
	if s.gz == nil {
		n, err := s.br.Read(p)
		s.dec += int64(n)
		if err == io.EOF {
			s.done = true
		}
		return n, err
	}
	for !s.done {
		n, err := s.gz.Read(p)
		s.dec += int64(n)
		switch {
		case err == nil:
			return n, nil
		case err == io.EOF:
			// The member ended and passed its checks.
			s.checked = s.dec
			if err := s.nextMember(false); err != nil || n > 0 {
				return n, err
			}
			continue
		}
		// A corrupt or truncated member: give back what came before it,
		// then look for the next member.
		g := &gap{fmt.Errorf("%w: %w", ErrCorruptGzip, err), s.members[len(s.members)-1].dec}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			g = &gap{fmt.Errorf("%w: gzip stream ends in the middle of a member", ErrTruncated), s.dec}
		}
		if s.lastErr == nil {
			s.lastErr = g.err
		}
		if rerr := s.nextMember(true); rerr != nil && rerr != io.EOF {
			return n, rerr
		}
		return n, g
	}
	return 0, io.EOF
}

// nextMember starts the next gzip member. After a corrupt member (scan) it
// looks for the next gzip header byte by byte. It returns io.EOF when the
// file ends, and marks the stream done.
func (s *stream) nextMember(scan bool) error {
	for {
		head, _ := s.br.Peek(3)
		if len(head) == 0 {
			s.done = true
			return nil
		}
		if len(head) == 3 && head[0] == 0x1f && head[1] == 0x8b && head[2] == 8 {
			start := s.rawPos()
			if err := s.gz.Reset(s.br); err == nil {
				s.gz.Multistream(false)
				s.members = append(s.members, member{s.dec, start})
				return nil
			} else if !scan {
				return s.trailing(fmt.Errorf("%w: %w", ErrCorruptGzip, err))
			}
			continue // Reset consumed at least the magic bytes
		}
		if !scan {
			return s.trailing(fmt.Errorf("%w: data after the last gzip member", ErrCorruptGzip))
		}
		if _, err := s.br.ReadByte(); err != nil {
			s.done = true
			return nil
		}
	}
}

// trailing handles bytes after a member that are not a gzip member: the
// stream reports a gap and goes on scanning for a member.
func (s *stream) trailing(e error) error {
	if s.lastErr == nil {
		s.lastErr = e
	}
	if err := s.nextMember(true); err != nil {
		return err
	}
	return &gap{e, s.dec}
}

// memberAt returns the raw offset of the gzip member holding decompressed
// offset dec, and forgets members that end before it.
func (s *stream) memberAt(dec int64) int64 {
	i := 0
	for i+1 < len(s.members) && s.members[i+1].dec <= dec {
		i++
	}
	s.members = s.members[i:]
	if len(s.members) == 0 {
		return dec
	}
	return s.members[0].raw
}
