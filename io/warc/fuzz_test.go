package warc

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

// FuzzReader feeds arbitrary files to the reader: it must never panic or
// loop, every record it returns must be well-formed, and a plain file's
// records and errors must account for positions that only move forward.
func FuzzReader(f *testing.F) {
	for _, layout := range []string{"plain", "member", "stream"} {
		f.Add(encodeAll(f, testRecords, layout))
	}
	plain := encodeAll(f, testRecords[:3], "plain")
	f.Add(plain[:len(plain)-9])
	f.Add(bytes.Replace(plain, []byte("Content-Length: 4"), []byte("Content-Length: 9"), 1))
	f.Add([]byte("WARC/1.0\r\nContent-Length: 0\r\n\r\n\r\n\r\nWARC/1.1\nContent-Length: 3\n\nabc\n\n"))
	// Content-Lengths past the end of the file, over the record limit and
	// under it, before more records, plain and in gzip members.
	lying := []byte("WARC/1.0\r\nContent-Length: 1000000000\r\n\r\nshort\r\n\r\n")
	f.Add(bytes.Join([][]byte{plain, lying, plain}, nil))
	f.Add(bytes.Join([][]byte{lying, bytes.Replace(lying, []byte("1000000000"), []byte("70000"), 1), plain}, nil))
	members, _ := gzipMembers(plain, lying, plain)
	f.Add(members)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data), Options{MaxRecordBytes: 1 << 16})
		if err != nil {
			return
		}
		last := int64(-1)
		for i := 0; ; i++ {
			if i > len(data)+2 {
				t.Fatalf("more records than bytes")
			}
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			var re *RecordError
			if errors.As(err, &re) {
				if re.StreamOffset <= last {
					t.Fatalf("error offset %d after %d", re.StreamOffset, last)
				}
				last = re.StreamOffset
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			if rec.StreamOffset <= last {
				t.Fatalf("record offset %d after %d", rec.StreamOffset, last)
			}
			last = rec.StreamOffset
			if int64(len(rec.Block)) != rec.ContentLength {
				t.Fatalf("block of %d bytes, Content-Length %d", len(rec.Block), rec.ContentLength)
			}
		}
	})
}

// FuzzParseHeader checks that a header the writer makes parses back to the
// same fields, and that any input parses or fails without panicking.
func FuzzParseHeader(f *testing.F) {
	f.Add("WARC-Type", "response", []byte("WARC/1.0\r\nContent-Length: 5\r\n"))
	f.Add("X", "y z", []byte("WARC/1.1\nA: b\n c\nContent-Length: 0\n"))
	f.Fuzz(func(t *testing.T, name, value string, raw []byte) {
		ParseHeader(raw)
		if !isToken(name) || value != string(bytes.TrimSpace([]byte(value))) || bytes.ContainsAny([]byte(value), "\r\n") {
			return
		}
		rec := AppendRecord(nil, []Field{{name, value}}, []byte("abc"))
		h, err := ParseHeader(rec[:bytes.Index(rec, []byte("\r\n\r\n"))+2])
		if err != nil {
			t.Fatalf("written header does not parse: %v", err)
		}
		if h.Fields[0] != (Field{name, value}) || h.ContentLength != 3 {
			t.Fatalf("got %+v", h)
		}
	})
}

// isToken reports whether s is a valid field name: printable ASCII without
// a colon.
func isToken(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f || s[i] == ':' {
			return false
		}
	}
	return s != ""
}
