package warc

import (
	"bytes"
	"errors"
	"io"
	"strconv"

	"github.com/klauspost/compress/flate"
	"github.com/klauspost/compress/gzip"
)

// HTTPResponse is the parsed block of a response record.
type HTTPResponse struct {
	Status      int // 0 when the status line is malformed
	ContentType string
	Body        []byte
}

// ParseHTTPResponse splits the block of a response record into status,
// headers and body. A chunked transfer encoding is undone, and so is a gzip
// or deflate content encoding, up to limit bytes; a compressed body cut
// short (crawlers truncate large records) gives what it holds before the
// cut; when undoing either fails otherwise the body is left as it was. A
// block without a well-formed status line and header is returned whole as
// the body with status 0, so nothing is lost.
func ParseHTTPResponse(block []byte, limit int64) HTTPResponse {
	line, rest := cutLine(block)
	if !bytes.HasPrefix(line, []byte("HTTP/")) {
		return HTTPResponse{Body: block}
	}
	sp := bytes.IndexByte(line, ' ')
	if sp < 0 || len(line) < sp+4 {
		return HTTPResponse{Body: block}
	}
	status, err := strconv.Atoi(string(line[sp+1 : sp+4]))
	if err != nil || status < 100 || status > 999 {
		return HTTPResponse{Body: block}
	}
	resp := HTTPResponse{Status: status}
	var chunked bool
	var encoding string
	for {
		if len(rest) == 0 {
			return HTTPResponse{Body: block} // the header never ends
		}
		line, rest = cutLine(rest)
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 {
			continue
		}
		name, value := bytes.TrimSpace(line[:colon]), bytes.TrimSpace(line[colon+1:])
		switch {
		case bytes.EqualFold(name, []byte("Content-Type")):
			resp.ContentType = string(value)
		case bytes.EqualFold(name, []byte("Transfer-Encoding")):
			chunked = bytes.Contains(bytes.ToLower(value), []byte("chunked"))
		case bytes.EqualFold(name, []byte("Content-Encoding")):
			encoding = string(bytes.ToLower(value))
		}
	}
	resp.Body = rest
	if chunked {
		if b, ok := dechunk(resp.Body, limit); ok {
			resp.Body = b
		}
	}
	switch encoding {
	case "gzip", "x-gzip":
		if zr, err := gzip.NewReader(bytes.NewReader(resp.Body)); err == nil {
			if b, ok := inflate(zr, limit); ok {
				resp.Body = b
			}
		}
	case "deflate":
		if b, ok := inflate(flate.NewReader(bytes.NewReader(resp.Body)), limit); ok {
			resp.Body = b
		}
	}
	return resp
}

// inflate reads up to limit decompressed bytes from r. A stream that ends
// early gives the bytes before its end; ok is false for corrupt data.
func inflate(r io.Reader, limit int64) (b []byte, ok bool) {
	b, err := io.ReadAll(io.LimitReader(r, limit))
	if err == nil || errors.Is(err, io.ErrUnexpectedEOF) && len(b) > 0 {
		return b, true
	}
	return nil, false
}

// dechunk undoes the chunked transfer encoding.
func dechunk(b []byte, limit int64) ([]byte, bool) {
	var out []byte
	for {
		line, rest := cutLine(b)
		if semi := bytes.IndexByte(line, ';'); semi >= 0 {
			line = line[:semi]
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil || n < 0 || n > int64(len(rest)) || int64(len(out))+n > limit {
			return nil, false
		}
		if n == 0 {
			return out, true
		}
		out = append(out, rest[:n]...)
		b = rest[n:]
		b = bytes.TrimPrefix(b, []byte("\r"))
		b = bytes.TrimPrefix(b, []byte("\n"))
	}
}
