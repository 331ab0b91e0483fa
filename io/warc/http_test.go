package warc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
)

// response returns a response record whose HTTP body is body, sent with
// the given header field.
func response(field Field, body []byte) []byte {
	block := HTTPBlock(200, []Field{{"Content-Type", "text/html"}, field}, body)
	return AppendRecord(nil, fieldsFor(2, testRecords[2]), block)
}

func TestUndecodableHTTPBodiesAreQuarantined(t *testing.T) {
	page := []byte("<html><body><p>" + strings.Repeat("A page of text. ", 400) + "</p></body></html>")
	var gz, fl bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(page)
	zw.Close()
	fw, _ := flate.NewWriter(&fl, flate.BestSpeed)
	fw.Write(page)
	fw.Close()
	badCRC := bytes.Clone(gz.Bytes())
	binary.LittleEndian.PutUint32(badCRC[len(badCRC)-8:], 12345)
	garbage := bytes.Repeat([]byte{0xff, 0x13, 0x80, 0x7f}, 64)
	chunked := []byte(fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(page), page))
	const limit = 1000 // below len(page)
	cases := []struct {
		name  string
		field Field
		body  []byte
		want  error  // nil: kept
		in    string // in the error
	}{
		{"gzip", Field{"Content-Encoding", "gzip"}, gz.Bytes(), nil, ""},
		{"deflate", Field{"Content-Encoding", "deflate"}, fl.Bytes(), nil, ""},
		{"corrupt deflate", Field{"Content-Encoding", "deflate"}, garbage, ErrBadEncoding, "deflate"},
		{"corrupt gzip", Field{"Content-Encoding", "gzip"}, garbage, ErrBadEncoding, "gzip"},
		{"gzip failing its crc", Field{"Content-Encoding", "gzip"}, badCRC, ErrBadEncoding, "gzip"},
		{"unknown encoding", Field{"Content-Encoding", "br"}, garbage, ErrBadEncoding, "br"},
		{"gzip over the limit", Field{"Content-Encoding", "gzip"}, gz.Bytes(), ErrTooLarge, "gzip"},
		{"deflate over the limit", Field{"Content-Encoding", "deflate"}, fl.Bytes(), ErrTooLarge, "deflate"},
		{"chunked over the limit", Field{"Transfer-Encoding", "chunked"}, chunked, ErrTooLarge, "chunked"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			data := slicesConcat(records(1, 2), response(c.field, c.body), records(4, 6))
			lim := int64(1 << 20)
			if c.want == ErrTooLarge {
				lim = limit
			}
			br := NewBatchReader(mem, mustReader(t, data), BatchOptions{MaxRecordBytes: lim})
			defer br.Release()
			var bodies []string
			var bad []*RecordError
			for {
				rec, b, err := br.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				bad = append(bad, b...)
				if rec != nil {
					col := rec.Column(rec.Schema().FieldIndices(ColPayload)[0]).(*array.Binary)
					for i := 0; i < col.Len(); i++ {
						bodies = append(bodies, string(col.Value(i)))
					}
					rec.Release()
				}
			}
			wantRows := 3
			if c.want != nil {
				wantRows = 2
				if len(bad) != 1 || !errors.Is(bad[0], c.want) || !strings.Contains(bad[0].Error(), c.in) ||
					bad[0].Number != 2 || !bytes.HasPrefix(bad[0].Raw, []byte("WARC/1.0\r\n")) {
					t.Fatalf("bad %v, want one %v naming %q", bad, c.want, c.in)
				}
			} else if len(bad) != 0 || bodies[0] != string(page) {
				t.Fatalf("bad %v, body %.40q", bad, bodies[0])
			}
			if len(bodies) != wantRows {
				t.Fatalf("%d rows, want %d", len(bodies), wantRows)
			}
		})
	}
}

func mustReader(t *testing.T, data []byte) *Reader {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}
