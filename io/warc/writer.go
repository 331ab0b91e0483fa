package warc

import (
	"io"
	"strconv"

	"github.com/klauspost/compress/gzip"
)

// Writer writes WARC/1.0 records, each as its own gzip member when
// compressing (as Common Crawl does), so that a reader can start at any
// record's offset.
type Writer struct {
	w       io.Writer
	gzip    bool
	zw      *gzip.Writer
	scratch []byte
}

// NewWriter returns a writer to w; with perRecordGzip each record is one
// gzip member.
func NewWriter(w io.Writer, perRecordGzip bool) *Writer {
	return &Writer{w: w, gzip: perRecordGzip}
}

// Write writes one record: the fields (Content-Length is added) and the
// block, then the CRLF CRLF that ends a record.
func (w *Writer) Write(fields []Field, block []byte) error {
	w.scratch = AppendRecord(w.scratch[:0], fields, block)
	return w.WriteRaw(w.scratch)
}

// WriteRaw writes rec, the bytes of a whole record, as they are (and as
// one gzip member when compressing).
func (w *Writer) WriteRaw(rec []byte) error {
	if !w.gzip {
		_, err := w.w.Write(rec)
		return err
	}
	if w.zw == nil {
		zw, err := gzip.NewWriterLevel(w.w, gzip.DefaultCompression)
		if err != nil {
			return err
		}
		w.zw = zw
	} else {
		w.zw.Reset(w.w)
	}
	if _, err := w.zw.Write(rec); err != nil {
		return err
	}
	return w.zw.Close()
}

// AppendRecord appends a WARC/1.0 record with the fields, a Content-Length
// of len(block), the block and the closing CRLF CRLF to dst.
func AppendRecord(dst []byte, fields []Field, block []byte) []byte {
	dst = append(dst, "WARC/1.0\r\n"...)
	for _, f := range fields {
		dst = append(dst, f.Name...)
		dst = append(dst, ": "...)
		dst = append(dst, f.Value...)
		dst = append(dst, "\r\n"...)
	}
	dst = append(dst, "Content-Length: "...)
	dst = strconv.AppendInt(dst, int64(len(block)), 10)
	dst = append(dst, "\r\n\r\n"...)
	dst = append(dst, block...)
	return append(dst, "\r\n\r\n"...)
}

// HTTPBlock returns the block of a response record: a status line, the
// headers (Content-Length added) and the body.
func HTTPBlock(status int, headers []Field, body []byte) []byte {
	b := []byte("HTTP/1.1 " + strconv.Itoa(status) + " " + statusText(status) + "\r\n")
	for _, h := range headers {
		b = append(b, h.Name+": "+h.Value+"\r\n"...)
	}
	b = append(b, "Content-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"...)
	return append(b, body...)
}

func statusText(status int) string {
	switch status {
	case 200:
		return "OK"
	case 301:
		return "Moved Permanently"
	case 404:
		return "Not Found"
	}
	return "Status"
}
