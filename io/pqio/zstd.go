package pqio

import (
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// pageCodec compresses Parquet pages with zstd frames that carry no
// checksum: a page is already covered by the file's own structure, and
// hashing every byte a second time costs a few percent of the write.
// Decoding and streaming are left to arrow-go's codec.
type pageCodec struct {
	compress.Codec
	mu    sync.Mutex
	pools map[zstd.EncoderLevel]*sync.Pool
}

func init() {
	base, err := compress.GetCodec(compress.Codecs.Zstd)
	if err != nil {
		panic(err) // arrow-go always registers zstd
	}
	compress.RegisterCodec(compress.Codecs.Zstd, &pageCodec{Codec: base, pools: map[zstd.EncoderLevel]*sync.Pool{}})
}

func (c *pageCodec) pool(level zstd.EncoderLevel) *sync.Pool {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pools[level]
	if !ok {
		p = &sync.Pool{New: func() any {
			enc, _ := zstd.NewWriter(nil, zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1),
				zstd.WithEncoderCRC(false), zstd.WithZeroFrames(true))
			return enc
		}}
		c.pools[level] = p
	}
	return p
}

func (c *pageCodec) Encode(dst, src []byte) []byte {
	return c.encode(dst, src, zstd.SpeedDefault)
}

func (c *pageCodec) EncodeLevel(dst, src []byte, level int) []byte {
	l := zstd.SpeedDefault
	if level != compress.DefaultCompressionLevel {
		l = zstd.EncoderLevelFromZstd(level)
	}
	return c.encode(dst, src, l)
}

func (c *pageCodec) encode(dst, src []byte, level zstd.EncoderLevel) []byte {
	p := c.pool(level)
	enc := p.Get().(*zstd.Encoder)
	defer p.Put(enc)
	return enc.EncodeAll(src, dst[:0])
}

// DecodeWithError keeps arrow-go's error-returning decode reachable
// through the wrapper.
func (c *pageCodec) DecodeWithError(dst, src []byte) ([]byte, error) {
	return compress.Decode(c.Codec, dst, src)
}

// The streaming methods forward to arrow-go's codec, so large pages can
// still be decoded as streams.

func (c *pageCodec) NewReader(r io.Reader) io.ReadCloser {
	return c.Codec.(compress.StreamingCodec).NewReader(r)
}

func (c *pageCodec) NewWriter(w io.Writer) io.WriteCloser {
	return c.Codec.(compress.StreamingCodec).NewWriter(w)
}

func (c *pageCodec) NewWriterLevel(w io.Writer, level int) (io.WriteCloser, error) {
	return c.Codec.(compress.StreamingCodec).NewWriterLevel(w, level)
}
