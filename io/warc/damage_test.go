package warc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
)

// records returns the plain bytes of testRecords[from:to], each written
// with its own index.
func records(from, to int) []byte {
	var b []byte
	for i := from; i < to; i++ {
		b = append(b, AppendRecord(nil, fieldsFor(i, testRecords[i]), blockFor(testRecords[i]))...)
	}
	return b
}

// gzipMembers compresses each part as its own gzip member and returns the
// file and the offset of each member.
func gzipMembers(parts ...[]byte) ([]byte, []int) {
	var out bytes.Buffer
	var offsets []int
	for _, p := range parts {
		offsets = append(offsets, out.Len())
		zw := gzip.NewWriter(&out)
		zw.Write(p)
		zw.Close()
	}
	return out.Bytes(), offsets
}

// readLimited reads every record of data with the given record limit (0
// for the default), returning the good ones (type and block) and the errors.
func readLimited(t testing.TB, data []byte, limit int64) (good []string, bad []*RecordError, streamErr error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), Options{MaxRecordBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10000; i++ {
		rec, err := r.Next()
		if err == io.EOF {
			return good, bad, r.StreamErr()
		}
		var re *RecordError
		if errors.As(err, &re) {
			bad = append(bad, re)
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		good = append(good, rec.Get("WARC-Type")+"|"+string(rec.Block))
	}
	t.Fatal("reader does not end")
	return
}

func TestRecordsAfterATooLargeRecord(t *testing.T) {
	big := AppendRecord(nil, []Field{{"WARC-Type", "resource"}}, bytes.Repeat([]byte("big body "), 200))
	// lying claims a body far longer than the bytes that follow.
	lying := []byte("WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: 1000000000\r\n\r\nshort body\r\n\r\n")
	// swallowing claims a body that runs into the next record.
	swallowing := bytes.Replace(big, []byte("Content-Length: 1800"), []byte("Content-Length: 1900"), 1)
	member := func(parts ...[]byte) []byte { data, _ := gzipMembers(parts...); return data }
	cases := []struct {
		name      string
		data      []byte
		good      []string
		streamErr error // nil: the file is sound apart from the record
		cause     error // of the record's error; ErrTooLarge when nil
	}{
		{"plain", slicesConcat(records(1, 3), big, records(3, 5)), wantAll(testRecords[1:5]), nil, nil},
		{"member", member(records(1, 3), big, records(3, 4), records(4, 5)), wantAll(testRecords[1:5]), nil, nil},
		// A Content-Length past the end of the file: the records after
		// the lying one are read.
		{"lying plain", slicesConcat(records(1, 3), lying, records(3, 5)), wantAll(testRecords[1:5]), nil, ErrBadLength},
		{"lying member", member(records(1, 3), lying, records(3, 5)), wantAll(testRecords[1:5]), nil, ErrBadLength},
		{"lying members", member(records(1, 3), lying, records(3, 4), records(4, 5)), wantAll(testRecords[1:5]), nil, ErrBadLength},
		{"lying last", slicesConcat(records(1, 3), lying), wantAll(testRecords[1:3]), ErrTruncated, nil},
		{"swallowing", slicesConcat(records(1, 3), swallowing, records(3, 5)), wantAll(testRecords[1:3]), ErrBadLength, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			good, bad, serr := readLimited(t, c.data, 1000)
			// The swallowing record ends in the middle of the next one: the
			// rest of that one is quarantined, and the record after it read.
			if c.name == "swallowing" {
				c.good = append(c.good, wantAll(testRecords[4:5])...)
			}
			if strings.Join(good, "\n") != strings.Join(c.good, "\n") {
				t.Fatalf("good\n%q\nwant\n%q", good, c.good)
			}
			cause := c.cause
			if cause == nil {
				cause = ErrTooLarge
			}
			if len(bad) == 0 || !errors.Is(bad[0], cause) || bad[0].Number != 3 {
				t.Fatalf("bad %v", bad)
			}
			if c.streamErr == nil && (serr != nil || len(bad) != 1) {
				t.Fatalf("file error %v, bad %v", serr, bad)
			}
			if c.streamErr != nil && !errors.Is(serr, c.streamErr) {
				t.Fatalf("file error %v, want %v", serr, c.streamErr)
			}
		})
	}
}

func slicesConcat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

// TestContentLengthPastTheEndResyncs checks that a record claiming more
// bytes than the file holds costs that record only, whether its claim is
// under the record limit or over it, in a plain file (reading goes on at
// the next "WARC/" line) and in a file of one gzip member per record (at
// the next member): it is reported where it starts, and the file is not
// damaged.
func TestContentLengthPastTheEndResyncs(t *testing.T) {
	claim := func(n int) []byte {
		return []byte(fmt.Sprintf("WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: %d\r\n\r\nshort body\r\n\r\n", n))
	}
	member := func(parts ...[]byte) []byte { data, _ := gzipMembers(parts...); return data }
	for _, n := range []int{5000, 1 << 30} {
		lying := claim(n)
		for name, data := range map[string][]byte{
			"plain":   slicesConcat(records(0, 2), lying, records(2, 5)),
			"members": member(records(0, 1), records(1, 2), lying, records(2, 3), records(3, 4), records(4, 5)),
		} {
			t.Run(fmt.Sprintf("%s claiming %d", name, n), func(t *testing.T) {
				good, bad, serr := readLimited(t, data, 1<<20)
				if strings.Join(good, "\n") != strings.Join(wantAll(testRecords[:5]), "\n") {
					t.Fatalf("good\n%q", good)
				}
				wantAt := int64(len(records(0, 2)))
				if name == "members" {
					_, offsets := gzipMembers(records(0, 1), records(1, 2), lying)
					wantAt = int64(offsets[2])
				}
				if len(bad) != 1 || !errors.Is(bad[0], ErrBadLength) || bad[0].Number != 3 || bad[0].Offset != wantAt {
					t.Fatalf("bad %v, want one at byte %d", bad, wantAt)
				}
				if serr != nil {
					t.Fatalf("file error %v", serr)
				}
			})
		}
	}
}

// TestSkippingATooLargeRecordStreams checks that the body of a record over
// the limit is read through, not into, the buffer.
func TestSkippingATooLargeRecordStreams(t *testing.T) {
	const size = 32 << 20
	head := fmt.Sprintf("WARC/1.0\r\nWARC-Type: resource\r\nContent-Length: %d\r\n\r\n", size)
	data := io.MultiReader(strings.NewReader(head), io.LimitReader(zeros{}, size),
		strings.NewReader("\r\n\r\n"), bytes.NewReader(records(2, 3)))
	r, err := NewReader(data, Options{MaxRecordBytes: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("first record: %v", err)
	}
	rec, err := r.Next()
	if err != nil || rec.Get("WARC-Type") != "response" {
		t.Fatalf("second record: %v", err)
	}
	if len(r.buf) > 1<<20 {
		t.Fatalf("buffer grew to %d bytes", len(r.buf))
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestGzipMemberFailingItsCheckIsQuarantined(t *testing.T) {
	parts := [][]byte{records(0, 1), records(1, 2), records(2, 3), records(3, 4)}
	data, offsets := gzipMembers(parts...)
	trailer := func(i int) int { // offset of member i's CRC
		if i+1 < len(offsets) {
			return offsets[i+1] - 8
		}
		return len(data) - 8
	}
	flip := func(at int) []byte { d := bytes.Clone(data); d[at] ^= 1; return d }
	whole, _ := gzipMembers(records(0, 4))
	cases := []struct {
		name    string
		data    []byte
		badAt   []int64 // offsets of the quarantined records
		goodIdx []int
	}{
		{"crc of a middle member", flip(trailer(2)), []int64{int64(offsets[2])}, []int{0, 1, 3}},
		{"size of a middle member", flip(trailer(1) + 4), []int64{int64(offsets[1])}, []int{0, 2, 3}},
		{"crc of the last member", flip(trailer(3)), []int64{int64(offsets[3])}, []int{0, 1, 2}},
		{"crc of a one-member file", func() []byte { d := bytes.Clone(whole); d[len(d)-8] ^= 1; return d }(),
			[]int64{0, 0, 0, 0}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			good, bad, serr := readAll(t, c.data)
			var want []string
			for _, i := range c.goodIdx {
				want = append(want, wantAll(testRecords[i:i+1])...)
			}
			if strings.Join(good, "\n") != strings.Join(want, "\n") {
				t.Fatalf("good\n%q\nwant\n%q", good, want)
			}
			var at []int64
			for _, e := range bad {
				if !errors.Is(e, ErrCorruptGzip) {
					t.Fatalf("cause %v", e)
				}
				at = append(at, e.Offset)
			}
			if fmt.Sprint(at) != fmt.Sprint(c.badAt) {
				t.Fatalf("bad at %v, want %v", at, c.badAt)
			}
			if !errors.Is(serr, ErrCorruptGzip) {
				t.Fatalf("file error %v", serr)
			}
		})
	}
}

func TestTruncatedPlainFileIsAFileError(t *testing.T) {
	full := records(0, 4)
	last := len(records(0, 3))
	cases := map[string]struct {
		data []byte
		good int
	}{
		"in the body":       {full[:len(full)-20], 3},
		"in the trailer":    {full[:len(full)-3] /* "\r\n\r" is left */, 4},
		"in the header":     {full[:last+30], 3},
		"after the header":  {full[:bytes.LastIndex(full, []byte("\r\n\r\n"+testRecords[3].body))+4], 3},
		"whole records":     {full, 4},
		"trailing newlines": {append(bytes.Clone(full), "\r\n\r\n"...), 4},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			good, bad, serr := readAll(t, c.data)
			if strings.Join(good, "\n") != strings.Join(wantAll(testRecords[:c.good]), "\n") {
				t.Fatalf("good %q", good)
			}
			if c.good == 4 {
				if len(bad) != 0 || serr != nil {
					t.Fatalf("bad %v, file error %v", bad, serr)
				}
				return
			}
			if len(bad) != 1 || !errors.Is(bad[0], ErrTruncated) || bad[0].Offset != int64(last) {
				t.Fatalf("bad %v", bad)
			}
			if !errors.Is(serr, ErrTruncated) {
				t.Fatalf("file error %v, want one for the cut record", serr)
			}
		})
	}
}
