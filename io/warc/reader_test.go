package warc

import (
	"bytes"
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

// testRecord is a record the tests write and expect back.
type testRecord struct {
	typ, url, body string
}

var testRecords = []testRecord{
	{"warcinfo", "", "software: sluice-test\r\nformat: WARC File Format 1.0\r\n"},
	{"request", "https://example.com/", "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"},
	{"response", "https://example.com/", "<html><body><p>Hello, world.</p></body></html>"},
	{"metadata", "https://example.com/", "fetchTimeMs: 12\r\n"},
	{"response", "https://example.org/a", "<html><body><p>Second page.</p></body></html>"},
	{"conversion", "https://example.org/a", "Second page."},
	{"resource", "https://example.org/logo.txt", "a text resource"},
	{"revisit", "https://example.com/", ""},
}

func fieldsFor(i int, r testRecord) []Field {
	f := []Field{{"WARC-Type", r.typ}, {"WARC-Date", fmt.Sprintf("2024-03-0%dT10:00:00Z", i%9+1)},
		{"WARC-Record-ID", fmt.Sprintf("<urn:uuid:%08d-0000-0000-0000-000000000000>", i)}}
	if r.url != "" {
		f = append(f, Field{"WARC-Target-URI", r.url})
	}
	switch r.typ {
	case "response":
		f = append(f, Field{"Content-Type", "application/http; msgtype=response"},
			Field{"WARC-Identified-Content-Language", "eng"})
	case "conversion":
		f = append(f, Field{"Content-Type", "text/plain"}, Field{"WARC-Identified-Content-Language", "eng"})
	case "warcinfo":
		f = append(f, Field{"Content-Type", "application/warc-fields"})
	default:
		f = append(f, Field{"Content-Type", "text/plain"})
	}
	return f
}

func blockFor(r testRecord) []byte {
	if r.typ == "response" {
		return HTTPBlock(200, []Field{{"Content-Type", "text/html; charset=utf-8"}}, []byte(r.body))
	}
	return []byte(r.body)
}

// encodings of the test file: plain, one gzip member per record, and one
// gzip stream for the whole file.
func encodeAll(t testing.TB, recs []testRecord, layout string) []byte {
	t.Helper()
	var plain bytes.Buffer
	var out bytes.Buffer
	w := NewWriter(&out, layout == "member")
	for i, r := range recs {
		if err := w.Write(fieldsFor(i, r), blockFor(r)); err != nil {
			t.Fatal(err)
		}
		plain.Write(AppendRecord(nil, fieldsFor(i, r), blockFor(r)))
	}
	if layout == "stream" {
		var gz bytes.Buffer
		zw := gzip.NewWriter(&gz)
		zw.Write(plain.Bytes())
		zw.Close()
		return gz.Bytes()
	}
	return out.Bytes()
}

// readAll reads every record, returning the good ones (type and block) and
// the errors.
func readAll(t testing.TB, data []byte) (good []string, bad []*RecordError, streamErr error) {
	t.Helper()
	return readLimited(t, data, 0)
}

func wantAll(recs []testRecord) []string {
	var want []string
	for _, r := range recs {
		want = append(want, r.typ+"|"+string(blockFor(r)))
	}
	return want
}

func TestEveryRecordTypeInEveryLayout(t *testing.T) {
	for _, layout := range []string{"plain", "member", "stream"} {
		t.Run(layout, func(t *testing.T) {
			good, bad, serr := readAll(t, encodeAll(t, testRecords, layout))
			if len(bad) != 0 || serr != nil {
				t.Fatalf("errors: %v %v", bad, serr)
			}
			if strings.Join(good, "\n") != strings.Join(wantAll(testRecords), "\n") {
				t.Fatalf("got\n%q\nwant\n%q", good, wantAll(testRecords))
			}
		})
	}
}

func TestRecordOffsetsAreMemberOffsets(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, true)
	var offsets []int64
	for i, r := range testRecords {
		offsets = append(offsets, int64(out.Len()))
		w.Write(fieldsFor(i, r), blockFor(r))
	}
	r, _ := NewReader(bytes.NewReader(out.Bytes()), Options{})
	for i := range testRecords {
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if rec.Offset != offsets[i] || rec.Number != int64(i+1) {
			t.Fatalf("record %d: offset %d number %d, want %d", i, rec.Offset, rec.Number, offsets[i])
		}
		// A reader started at the member offset reads this record first.
		r2, _ := NewReader(bytes.NewReader(out.Bytes()[offsets[i]:]), Options{})
		rec2, err := r2.Next()
		if err != nil || rec2.Get("WARC-Record-ID") != fieldsFor(i, testRecords[i])[2].Value {
			t.Fatalf("record %d from its offset: %v", i, err)
		}
	}
}

func TestTruncatedLastRecord(t *testing.T) {
	recs := testRecords[:5]
	for _, layout := range []string{"plain", "member", "stream"} {
		t.Run(layout, func(t *testing.T) {
			data := encodeAll(t, recs, layout)
			var cut []byte
			if layout == "member" {
				// Cut the last member in half.
				last := len(encodeAll(t, recs[:4], layout))
				cut = data[:last+(len(data)-last)/2]
			} else {
				cut = data[:len(data)-20]
			}
			good, bad, serr := readAll(t, cut)
			want := wantAll(recs[:4])
			if layout == "stream" {
				// A gzip stream cut short loses the bytes its decoder had
				// not yet flushed; every record before them is intact.
				want = want[:len(good)]
			}
			if strings.Join(good, "\n") != strings.Join(want, "\n") || len(good) < 3 {
				t.Fatalf("good records %q", good)
			}
			if len(bad) != 1 || !errors.Is(bad[0], ErrTruncated) {
				t.Fatalf("bad %v", bad)
			}
			if bad[0].Number != int64(len(good)+1) {
				t.Fatalf("bad record number %d", bad[0].Number)
			}
			if serr == nil || !errors.Is(serr, ErrTruncated) {
				t.Fatalf("stream error %v", serr)
			}
			if layout == "member" && bad[0].Offset != int64(len(encodeAll(t, recs[:4], layout))) {
				t.Fatalf("offset %d, want the last member's", bad[0].Offset)
			}
		})
	}
}

func TestWrongContentLengthIsQuarantinedAndReadingGoesOn(t *testing.T) {
	for _, delta := range []int{-7, +9, +100000} {
		for _, layout := range []string{"plain", "member"} {
			t.Run(fmt.Sprintf("%s%+d", layout, delta), func(t *testing.T) {
				var out bytes.Buffer
				var plain []byte
				for i, r := range testRecords {
					b := AppendRecord(nil, fieldsFor(i, r), blockFor(r))
					if i == 2 {
						n := len(blockFor(r))
						b = bytes.Replace(b, []byte(fmt.Sprintf("Content-Length: %d\r\n", n)),
							[]byte(fmt.Sprintf("Content-Length: %d\r\n", n+delta)), 1)
					}
					if layout == "member" {
						zw := gzip.NewWriter(&out)
						zw.Write(b)
						zw.Close()
					} else {
						plain = append(plain, b...)
					}
				}
				if layout == "plain" {
					out.Write(plain)
				}
				good, bad, _ := readAll(t, out.Bytes())
				want := wantAll(testRecords)
				want = append(want[:2:2], want[3:]...)
				if strings.Join(good, "\n") != strings.Join(want, "\n") {
					t.Fatalf("good\n%q\nwant\n%q", good, want)
				}
				if len(bad) != 1 || bad[0].Number != 3 {
					t.Fatalf("bad %v", bad)
				}
				if delta != 100000 && !errors.Is(bad[0], ErrBadLength) {
					t.Fatalf("cause %v", bad[0].Err)
				}
			})
		}
	}
}

func TestCorruptHeadersAndGarbage(t *testing.T) {
	rec := func(i int) []byte { return AppendRecord(nil, fieldsFor(i, testRecords[i]), blockFor(testRecords[i])) }
	cases := []struct {
		name string
		data []byte
		want error
	}{
		{"garbage before a record", append([]byte("this is not WARC\r\n"), rec(2)...), ErrNotWARC},
		{"no content length", append([]byte("WARC/1.0\r\nWARC-Type: response\r\n\r\nxyz\r\n\r\n"), rec(2)...), ErrBadHeader},
		{"bad content length", append([]byte("WARC/1.0\r\nContent-Length: ten\r\n\r\n0123456789\r\n\r\n"), rec(2)...), ErrBadHeader},
		{"line without colon", append([]byte("WARC/1.0\r\nWARC-Type response\r\nContent-Length: 0\r\n\r\n\r\n\r\n"), rec(2)...), ErrBadHeader},
		{"header never ends", append(rec(2), []byte("WARC/1.0\r\nWARC-Type: x\r\n")...), ErrTruncated},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			good, bad, _ := readAll(t, c.data)
			if len(good) != 1 || good[0] != wantAll(testRecords[2:3])[0] {
				t.Fatalf("good %q", good)
			}
			if len(bad) != 1 || !errors.Is(bad[0], c.want) {
				t.Fatalf("bad %v, want %v", bad, c.want)
			}
			if bad[0].Raw == nil || !strings.Contains(bad[0].Error(), "at byte") {
				t.Fatalf("error lacks position or raw bytes: %v", bad[0])
			}
		})
	}
}

func TestCorruptGzipMemberIsSkipped(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, true)
	var offsets []int64
	for i, r := range testRecords {
		offsets = append(offsets, int64(out.Len()))
		w.Write(fieldsFor(i, r), blockFor(r))
	}
	data := bytes.Clone(out.Bytes())
	// Scribble over the middle of the third member's deflate data.
	mid := (offsets[2] + offsets[3]) / 2
	for i := mid - 4; i < mid+4; i++ {
		data[i] ^= 0x5a
	}
	good, bad, serr := readAll(t, data)
	want := wantAll(testRecords)
	want = append(want[:2:2], want[3:]...)
	if strings.Join(good, "\n") != strings.Join(want, "\n") {
		t.Fatalf("good\n%q\nwant\n%q", good, want)
	}
	if len(bad) != 1 || bad[0].Offset != offsets[2] {
		t.Fatalf("bad %v, want one at %d", bad, offsets[2])
	}
	if serr == nil || !errors.Is(serr, ErrCorruptGzip) {
		t.Fatalf("stream error %v", serr)
	}
}

func TestEmptyAndBlankFiles(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Close()
	for name, data := range map[string][]byte{"empty": nil, "blank": []byte("\r\n\r\n"), "empty gzip": gz.Bytes()} {
		good, bad, serr := readAll(t, data)
		if len(good)+len(bad) != 0 || serr != nil {
			t.Fatalf("%s: %v %v %v", name, good, bad, serr)
		}
	}
}

func TestTooLargeRecordIsSkipped(t *testing.T) {
	var data []byte
	for i, r := range testRecords[1:4] {
		data = append(data, AppendRecord(nil, fieldsFor(i+1, r), blockFor(r))...)
	}
	r, _ := NewReader(bytes.NewReader(data), Options{MaxRecordBytes: 60})
	var got []string
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		var re *RecordError
		if errors.As(err, &re) {
			got = append(got, "error:"+re.Err.Error())
			continue
		}
		got = append(got, rec.Get("WARC-Type"))
	}
	if len(got) != 3 || got[0] != "request" || !strings.HasPrefix(got[1], "error:record larger") || got[2] != "metadata" {
		t.Fatalf("got %q", got)
	}
}

func TestBatchesHaveTheChosenTypes(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	data := encodeAll(t, testRecords, "member")
	r, _ := NewReader(bytes.NewReader(data), Options{})
	br := NewBatchReader(mem, r, BatchOptions{Types: []string{"response", "conversion"}, Rows: 2})
	defer br.Release()
	var rows []string
	for {
		rec, bad, err := br.Next()
		if err == io.EOF {
			break
		}
		if err != nil || len(bad) > 0 {
			t.Fatal(err, bad)
		}
		if rec == nil {
			continue
		}
		if rec.NumRows() > 2 {
			t.Fatalf("batch of %d rows", rec.NumRows())
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			var cells []string
			for j, col := range rec.Columns() {
				if rec.Schema().Field(j).Name == ColPayload && col.IsValid(i) {
					cells = append(cells, string(col.(*array.Binary).Value(i)))
					continue
				}
				cells = append(cells, col.ValueStr(i))
			}
			rows = append(rows, strings.Join(cells, " | "))
		}
		rec.Release()
	}
	want := []string{
		"https://example.com/ | response | 2024-03-03T10:00:00Z | <urn:uuid:00000002-0000-0000-0000-000000000000> | text/html; charset=utf-8 | 200 | <html><body><p>Hello, world.</p></body></html> | (null) | eng",
		"https://example.org/a | response | 2024-03-05T10:00:00Z | <urn:uuid:00000004-0000-0000-0000-000000000000> | text/html; charset=utf-8 | 200 | <html><body><p>Second page.</p></body></html> | (null) | eng",
		"https://example.org/a | conversion | 2024-03-06T10:00:00Z | <urn:uuid:00000005-0000-0000-0000-000000000000> | text/plain | (null) | (null) | Second page. | eng",
	}
	if strings.Join(rows, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(rows, "\n"), strings.Join(want, "\n"))
	}
	if br.Skipped() != 5 {
		t.Fatalf("skipped %d", br.Skipped())
	}
}

func TestHTTPChunkedAndGzipBodies(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte("compressed body"))
	zw.Close()
	cases := map[string]struct {
		block, body string
		status      int
	}{
		"chunked": {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n", "hello world", 200},
		"gzip":    {"HTTP/1.1 404 Not Found\r\nContent-Encoding: gzip\r\n\r\n" + gz.String(), "compressed body", 404},
		"broken":  {"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello", "zz\r\nhello", 200},
		"no http": {"<html>raw</html>", "<html>raw</html>", 0},
	}
	for name, c := range cases {
		resp := ParseHTTPResponse([]byte(c.block), 1<<20)
		if string(resp.Body) != c.body || resp.Status != c.status {
			t.Errorf("%s: status %d body %q", name, resp.Status, resp.Body)
		}
	}
}

func TestBadRecordsCountTowardsBatchLimits(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	// Seven records whose Content-Length is one byte short, then one good
	// response: the bad ones must not all wait for a row to ride with.
	var data []byte
	for i := 0; i < 7; i++ {
		data = append(data, "WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 4\r\n\r\nabcde\r\n\r\n"...)
	}
	data = append(data, AppendRecord(nil, fieldsFor(2, testRecords[2]), blockFor(testRecords[2]))...)
	r, _ := NewReader(bytes.NewReader(data), Options{})
	br := NewBatchReader(mem, r, BatchOptions{Rows: 3})
	defer br.Release()
	var shapes []string
	var numbers []int64
	for {
		rec, bad, err := br.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		rows := 0
		if rec != nil {
			rows = int(rec.NumRows())
			numbers = append(numbers, br.RecordNumbers()...)
			rec.Release()
		}
		for _, e := range bad {
			if !errors.Is(e, ErrBadLength) {
				t.Fatalf("cause %v", e.Err)
			}
			numbers = append(numbers, e.Number)
		}
		shapes = append(shapes, fmt.Sprintf("%d+%d", rows, len(bad)))
	}
	if got := strings.Join(shapes, " "); got != "0+3 0+3 1+1" {
		t.Fatalf("batches (rows+bad) %s, want 0+3 0+3 1+1", got)
	}
	if fmt.Sprint(numbers) != "[1 2 3 4 5 6 8 7]" {
		t.Fatalf("record numbers %v", numbers)
	}
}

func TestHTTPCompressedBodyCutShort(t *testing.T) {
	page := "<html><body><p>" + strings.Repeat("A page longer than the crawler kept. ", 400) + "</p></body></html>"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(page))
	zw.Close()
	var fl bytes.Buffer
	fw, _ := flate.NewWriter(&fl, flate.BestSpeed)
	fw.Write([]byte(page))
	fw.Close()
	for enc, body := range map[string][]byte{"gzip": gz.Bytes(), "deflate": fl.Bytes()} {
		block := "HTTP/1.1 200 OK\r\nContent-Encoding: " + enc + "\r\n\r\n" + string(body[:len(body)/2])
		resp := ParseHTTPResponse([]byte(block), 1<<20)
		if len(resp.Body) == 0 || !strings.HasPrefix(page, string(resp.Body)) {
			t.Errorf("%s: body %q is not a start of the page", enc, resp.Body[:min(40, len(resp.Body))])
		}
	}
	// Data that is not compressed at all stays as it was, with an error.
	block := "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n<html>not compressed</html>"
	if resp := ParseHTTPResponse([]byte(block), 1<<20); string(resp.Body) != "<html>not compressed</html>" || !errors.Is(resp.Err, ErrBadEncoding) {
		t.Errorf("body %q, error %v", resp.Body, resp.Err)
	}
}
