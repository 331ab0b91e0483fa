package fasttext

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"unsafe"
)

// Trained is a model that Train made, ready to be written as a .bin file.
type Trained struct {
	args   TrainArgs
	dict   *trainDict
	input  []float32
	output []float32
	stats  TrainStats
}

// Stats returns what training saw and how long it took.
func (m *Trained) Stats() TrainStats { return m.stats }

// WriteTo writes the model in fastText's .bin format (version 12), the
// file `fasttext supervised` writes.
func (m *Trained) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	cw := &countWriter{w: bw}
	le := binary.LittleEndian
	var buf [8]byte
	i32 := func(v int32) { le.PutUint32(buf[:4], uint32(v)); cw.Write(buf[:4]) }
	i64 := func(v int64) { le.PutUint64(buf[:8], uint64(v)); cw.Write(buf[:8]) }
	a, d := &m.args, m.dict
	i32(fileMagic)
	i32(fileVersion)
	for _, v := range []int{a.Dim, a.WS, a.Epoch, a.MinCount, a.Neg, a.WordNgrams, int(a.Loss), modelSupervised, a.Bucket, a.MinN, a.MaxN, a.LRUpdateRate} {
		i32(int32(v))
	}
	i64(int64(math.Float64bits(a.T)))
	i32(int32(len(d.words)))
	i32(d.nwords)
	i32(d.nlabels)
	i64(d.ntokens)
	i64(-1) // no pruned buckets
	for i, w := range d.words {
		cw.Write([]byte(w))
		buf[0] = 0
		cw.Write(buf[:1])
		i64(d.counts[i])
		buf[0] = 0
		if int32(i) >= d.nwords {
			buf[0] = 1
		}
		cw.Write(buf[:1])
	}
	writeMatrix := func(data []float32, rows int64) {
		buf[0] = 0 // not quantized
		cw.Write(buf[:1])
		i64(rows)
		i64(int64(a.Dim))
		writeFloats(cw, data)
	}
	writeMatrix(m.input, int64(d.nwords)+int64(a.Bucket))
	writeMatrix(m.output, int64(d.nlabels))
	if cw.err != nil {
		return cw.n, cw.err
	}
	return cw.n, bw.Flush()
}

func writeFloats(w io.Writer, data []float32) {
	if nativeLittleEndian {
		raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(data))), 4*len(data))
		w.Write(raw)
		return
	}
	var b [4]byte
	for _, v := range data {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		w.Write(b[:])
	}
}

type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	c.err = err
	return n, err
}

// Save writes the model to path through a temporary file in the same
// directory, renamed into place once complete.
func (m *Trained) Save(path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	_, err = m.WriteTo(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Model returns the trained model loaded for prediction, as LoadFile
// would load the file Save writes.
func (m *Trained) Model() (*Model, error) {
	var b bytes.Buffer
	if _, err := m.WriteTo(&b); err != nil {
		return nil, err
	}
	return LoadBytes(b.Bytes())
}

// Args returns the arguments the model was trained with, as checked:
// Bucket is 0 when there are neither word nor character n-grams.
func (m *Trained) Args() TrainArgs { return m.args }
