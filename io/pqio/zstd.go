package pqio

import (
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/klauspost/compress/zstd"
)

// Parquet writers pick their codec from arrow-go's registry, one codec per
// compression for the whole process, and hand it nothing but the page and
// the writer's compression level. So that one writer can compress its
// pages its own way without changing what any other writer does, the zstd
// entry of the registry is pageCodec: arrow-go's own zstd codec, except for
// pages whose level carries checksumFreeLevel, which writerProps adds when
// Options ask for frames without checksums (the default). The registry is
// filled once, at initialization, before any writer or reader can be
// looking codecs up in it.

// checksumFreeLevel is added to a writer's compression level to ask for
// zstd frames without checksums. Real levels are far smaller.
const checksumFreeLevel = 1 << 24

// withoutChecksums marks a compression level as asking for frames without
// checksums.
func withoutChecksums(level int) int { return level + checksumFreeLevel }

// checksumFree reports whether level asks for frames without checksums,
// and returns the compression level it carries.
func checksumFree(level int) (int, bool) {
	if level > checksumFreeLevel/2 {
		return level - checksumFreeLevel, true
	}
	return level, false
}

// pageCodec compresses the pages of writers that ask for it with zstd
// frames that carry no checksum: a page is already covered by the file's
// own structure, and hashing every byte a second time costs a few percent
// of the write. Every other page, and all decoding and streaming, is left
// to arrow-go's codec, so writers that do not ask write what arrow-go
// writes.
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

// pageCodecRegistered reports whether pageCodec is the zstd codec arrow-go
// uses, which nothing but a later RegisterCodec can change.
func pageCodecRegistered() bool {
	c, err := compress.GetCodec(compress.Codecs.Zstd)
	_, ok := c.(*pageCodec)
	return err == nil && ok
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

func (c *pageCodec) EncodeLevel(dst, src []byte, level int) []byte {
	level, ok := checksumFree(level)
	if !ok {
		return c.Codec.EncodeLevel(dst, src, level)
	}
	l := zstd.SpeedDefault
	if level != compress.DefaultCompressionLevel {
		l = zstd.EncoderLevelFromZstd(level)
	}
	p := c.pool(l)
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
	level, _ = checksumFree(level)
	return c.Codec.(compress.StreamingCodec).NewWriterLevel(w, level)
}
