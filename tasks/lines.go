package tasks

import (
	"errors"
	"fmt"
	"io"

	"github.com/sluice-data/sluice/io/dataset"
	"github.com/sluice-data/sluice/io/input"
	"github.com/sluice-data/sluice/io/jsonl"
)

// lineSource reads the lines of task files one at a time, in order, for
// the commands that write (convert, split). Blank lines are skipped and
// counted by the reader.
type lineSource struct {
	files []input.File
	rd    *jsonl.ChunkReader
	c     *jsonl.Chunk
	i     int
}

func newLineSource(files []input.File, maxLineBytes int) *lineSource {
	return &lineSource{files: files, rd: jsonl.NewChunkReader(files, jsonl.ChunkOptions{Rows: 1024, Bytes: 1 << 20, MaxLineBytes: maxLineBytes})}
}

// next returns the next line and where it is; ok is false at the end.
// The line is valid until the next call.
func (s *lineSource) next() (ref jsonl.LineRef, line []byte, ok bool, err error) {
	for s.c == nil || s.i >= s.c.Len() {
		if s.c != nil {
			s.c.Release()
			s.c = nil
		}
		c, err := s.rd.Next()
		if errors.Is(err, io.EOF) {
			return ref, nil, false, nil
		}
		if err != nil {
			return ref, nil, false, err
		}
		s.c, s.i = c, 0
	}
	ref, line = s.c.Refs[s.i], s.c.Line(s.i)
	s.i++
	return ref, line, true, nil
}

func (s *lineSource) name(ref jsonl.LineRef) string { return s.files[ref.File].Label() }

// inputs describes the files read, for a manifest, and returns the first
// read error (a truncated compressed file), if any.
func (s *lineSource) inputs() ([]dataset.InputFile, error) {
	var firstErr error
	var out []dataset.InputFile
	for i, st := range s.rd.Stats() {
		f := s.files[i]
		in := dataset.InputFile{Path: f.Label(), Format: f.Format.String(), Compression: f.Compression.String(),
			Bytes: st.Bytes, Hash: fmt.Sprintf("%016x", st.Hash), Rows: st.Lines, BlankLines: st.BlankLines}
		if st.Err != nil {
			in.Error = st.Err.Error()
			if firstErr == nil {
				firstErr = st.Err
			}
		}
		out = append(out, in)
	}
	return out, firstErr
}

// fileFormats keeps each file's format: the one given, or the first one a
// line of the file shows.
type fileFormats struct {
	given Format
	seen  map[int32]Format
}

// mixed returns a mixed_format problem when a line of format f is in a
// file of another format.
func (ff *fileFormats) mixed(file int32, f Format) (problem, bool) {
	if f == Auto {
		return problem{}, false
	}
	cur := ff.given
	if cur == Auto {
		if ff.seen == nil {
			ff.seen = map[int32]Format{}
		}
		if cur = ff.seen[file]; cur == Auto {
			ff.seen[file] = f
			return problem{}, false
		}
	}
	if f != cur {
		return problemf(MixedFormat, "%s example in %s file", aFormat(f), aFormat(cur)), true
	}
	return problem{}, false
}

// firstError returns the first error among a line's problems.
func firstError(probs []problem) (problem, bool) {
	for _, p := range probs {
		if p.kind.IsError() {
			return p, true
		}
	}
	return problem{}, false
}

// aFormat names a format with its article, for problem texts.
func aFormat(f Format) string {
	if f == Instruction {
		return "an instruction"
	}
	return "a " + f.String()
}
