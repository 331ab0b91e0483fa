package jsonl

import (
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/sluice-data/sluice/io/input"
)

// LineRef locates one input line.
type LineRef struct {
	File   int32 // index into the reader's files
	Line   int64 // 1-based line number
	Offset int64 // byte offset of the line in the decompressed stream
	Err    error // set when the line could not be read whole (too long)
}

// Chunk is a run of consecutive input lines, the unit that workers parse
// into one record batch. Lines may come from more than one file.
type Chunk struct {
	Data []byte
	Ends []int // Data[Ends[i-1]:Ends[i]] is line i
	Refs []LineRef
}

var chunkBuffers sync.Pool

// Release returns the chunk's memory for reuse by later chunks; the chunk
// must not be used afterwards.
func (c *Chunk) Release() {
	if c.Data != nil {
		chunkBuffers.Put(c.Data[:0])
	}
	c.Data, c.Ends, c.Refs = nil, nil, nil
}

// Len returns the number of lines in the chunk.
func (c *Chunk) Len() int { return len(c.Ends) }

// Line returns line i's bytes.
func (c *Chunk) Line(i int) []byte {
	start := 0
	if i > 0 {
		start = c.Ends[i-1]
	}
	return c.Data[start:c.Ends[i]]
}

// FileStat is what reading one input file found.
type FileStat struct {
	File       input.File
	Lines      int64 // non-blank lines, each of which becomes a row or a quarantine entry
	BlankLines int64
	Skipped    int64 // records of other types than the ones read (WARC)
	Bytes      int64 // raw bytes read
	Hash       uint64
	Err        error // a read error that ended the file early (truncated or corrupt stream)
}

// ChunkOptions sizes chunks.
type ChunkOptions struct {
	Rows         int // lines per chunk
	Bytes        int // soft limit on bytes per chunk
	MaxLineBytes int
}

// ChunkReader reads files one after the other and cuts their lines into
// chunks. It is not safe for concurrent use.
type ChunkReader struct {
	files  []input.File
	opts   ChunkOptions
	fi     int
	stream *input.Stream
	lines  *LineReader
	stats  []FileStat
	// Progress, if set, is called after each chunk with the raw bytes read
	// so far over all files.
	Progress func(rawBytes int64)
	doneRaw  int64
}

// NewChunkReader returns a reader over files.
func NewChunkReader(files []input.File, opts ChunkOptions) *ChunkReader {
	if opts.Rows <= 0 {
		opts.Rows = 4096
	}
	if opts.Bytes <= 0 {
		opts.Bytes = 16 << 20
	}
	return &ChunkReader{files: files, opts: opts, stats: make([]FileStat, len(files))}
}

// Stats returns per-file statistics; complete once Next has returned io.EOF.
func (r *ChunkReader) Stats() []FileStat { return r.stats }

// Next returns the next chunk, or io.EOF when every file is read. Errors
// reading a file (a truncated gzip stream, say) do not stop the reader: they
// are recorded in the file's FileStat and reading goes on with the next
// file. Only failing to open a file, and a file that changed while it was
// read (input.ErrChanged), are returned as errors.
func (r *ChunkReader) Next() (*Chunk, error) {
	c := &Chunk{}
	if b, ok := chunkBuffers.Get().([]byte); ok {
		c.Data = b
	} else {
		c.Data = make([]byte, 0, min(r.opts.Bytes+r.opts.Bytes/8, 64<<20))
	}
	for len(c.Ends) < r.opts.Rows && len(c.Data) < r.opts.Bytes {
		if r.stream == nil {
			if r.fi >= len(r.files) {
				break
			}
			if err := r.open(); err != nil {
				return nil, err
			}
			continue
		}
		line, err := r.lines.Next()
		if errors.Is(err, input.ErrChanged) {
			return nil, err // what was read is not the file: the run fails
		}
		st := &r.stats[r.fi]
		ref := LineRef{File: int32(r.fi), Line: r.lines.Line(), Offset: r.lines.Offset()}
		if errors.Is(err, ErrLineTooLong) {
			ref.Err = fmt.Errorf("%w: more than %d bytes", ErrLineTooLong, r.lines.max)
			err = nil
		}
		if line != nil || ref.Err != nil {
			if ref.Err == nil && isBlank(line) {
				st.BlankLines++
			} else {
				st.Lines++
				c.Data = append(c.Data, line...)
				c.Ends = append(c.Ends, len(c.Data))
				c.Refs = append(c.Refs, ref)
			}
		}
		if err != nil {
			if err != io.EOF {
				st.Err = fmt.Errorf("%s: %s stream broken after byte %d of the file (line %d): %w",
					r.files[r.fi].Path, r.files[r.fi].Compression, r.stream.RawBytes(), r.lines.Line(), err)
			}
			if err := r.closeFile(); err != nil {
				return nil, err
			}
		}
	}
	if r.Progress != nil {
		raw := r.doneRaw
		if r.stream != nil {
			raw += r.stream.RawBytes()
		}
		r.Progress(raw)
	}
	if len(c.Ends) == 0 && r.fi >= len(r.files) {
		return nil, io.EOF
	}
	return c, nil
}

// Stop ends the reading where it is: the file being read is closed, with
// the bytes read of it so far and their hash as its counts, and Next
// returns io.EOF from then on.
func (r *ChunkReader) Stop() {
	if r.stream != nil {
		st := &r.stats[r.fi]
		st.Bytes, st.Hash = r.stream.RawBytes(), r.stream.Hash()
		r.stream.Close()
		r.stream, r.lines = nil, nil
	}
	r.fi = len(r.files)
}

func (r *ChunkReader) open() error {
	f := r.files[r.fi]
	r.stats[r.fi].File = f
	s, err := input.Open(f)
	if err != nil {
		// An unreadable header: record it and go on with the next file.
		r.stats[r.fi].Err = err
		r.stats[r.fi].Bytes = f.Size
		r.fi++
		return nil
	}
	r.stream = s
	r.lines = NewLineReader(s, r.opts.MaxLineBytes)
	if !f.Span.IsZero() {
		r.lines.StartAt(f.Span.FirstLine, f.Span.Lo)
	}
	return nil
}

func (r *ChunkReader) closeFile() error {
	st := &r.stats[r.fi]
	if err := r.stream.Drain(); errors.Is(err, input.ErrChanged) {
		return err // it names the file
	} else if err != nil {
		return fmt.Errorf("%s: %w", r.files[r.fi].Path, err)
	}
	st.Bytes = r.stream.RawBytes()
	st.Hash = r.stream.Hash()
	r.doneRaw += st.Bytes
	r.stream.Close()
	r.stream, r.lines = nil, nil
	r.fi++
	return nil
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
