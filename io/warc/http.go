package warc

import (
	"bytes"
	"errors"
	"fmt"
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
	// Err is set when the body cannot be given as the page: its content
	// encoding does not decode or is not one the reader knows (wrapping
	// ErrBadEncoding), or it is over the limit once decoded (wrapping
	// ErrTooLarge). Body is then the body as it came, still encoded.
	Err error
}

// ParseHTTPResponse splits the block of a response record into status,
// headers and body. A chunked transfer encoding is undone, and so is a gzip
// or deflate content encoding; a body over limit bytes once decoded sets
// Err. A compressed body cut short (crawlers truncate large records) gives
// what it holds before the cut. A chunked encoding that does not parse is
// left as it was (crawlers often store the body de-chunked and keep the
// header); a content encoding that does not decode sets Err, and so does a
// compression the reader does not know (br, zstd, compress). A block
// without a well-formed status line and header is returned whole as the
// body with status 0, so nothing is lost.
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
		b, err := dechunk(resp.Body, limit)
		if err != nil {
			resp.Err = err
			return resp
		}
		resp.Body = b
	}
	b, err := decode(encoding, resp.Body, limit)
	switch {
	case err != nil:
		resp.Err = fmt.Errorf("Content-Encoding %s: %w", encoding, err)
	case int64(len(b)) > limit:
		resp.Err = fmt.Errorf("%w: HTTP body of %d bytes, limit %d", ErrTooLarge, len(b), limit)
	default:
		resp.Body = b
	}
	return resp
}

// decode undoes the content encoding of body. A compression it does not
// know is an error; a value that names no compression at all (servers send
// "utf-8", "none", "text") leaves the body as it is.
func decode(encoding string, body []byte, limit int64) ([]byte, error) {
	switch encoding {
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadEncoding, err)
		}
		return inflate(zr, limit)
	case "deflate":
		return inflate(flate.NewReader(bytes.NewReader(body)), limit)
	case "br", "zstd", "compress", "x-compress":
		return nil, fmt.Errorf("%w: encoding not supported", ErrBadEncoding)
	}
	return body, nil
}

// inflate reads the decompressed bytes from r, at most limit of them. A
// stream that ends early gives the bytes before its end.
func inflate(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	switch {
	case int64(len(b)) > limit:
		return nil, fmt.Errorf("%w: HTTP body over %d bytes once decoded", ErrTooLarge, limit)
	case err == nil, errors.Is(err, io.ErrUnexpectedEOF) && len(b) > 0:
		return b, nil
	}
	return nil, fmt.Errorf("%w: %w", ErrBadEncoding, err)
}

// dechunk undoes the chunked transfer encoding. A body that is not
// chunked after all comes back as it is; one over limit bytes is an error.
func dechunk(b []byte, limit int64) ([]byte, error) {
	body := b
	out := []byte{}
	for {
		line, rest := cutLine(b)
		if semi := bytes.IndexByte(line, ';'); semi >= 0 {
			line = line[:semi]
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(line)), 16, 64)
		if err != nil || n < 0 || n > int64(len(rest)) {
			return body, nil
		}
		if int64(len(out))+n > limit {
			return nil, fmt.Errorf("%w: chunked HTTP body over %d bytes", ErrTooLarge, limit)
		}
		if n == 0 {
			return out, nil
		}
		out = append(out, rest[:n]...)
		b = rest[n:]
		b = bytes.TrimPrefix(b, []byte("\r"))
		b = bytes.TrimPrefix(b, []byte("\n"))
	}
}
