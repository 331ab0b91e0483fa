package pqio_test

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/internal/s3test"
	"github.com/sluice-data/sluice/io/blob"
	"github.com/sluice-data/sluice/io/pqio"
)

// TestRemoteParquetReadsTheFooterThenTheColumnsRead reads a Parquet
// object through a proxy that records every request: the first read is
// the footer, and a reader projected to a small column fetches that
// column's chunks, not the large one's.
func TestRemoteParquetReadsTheFooterThenTheColumnsRead(t *testing.T) {
	s := s3test.Start(t)
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	// Four row groups of a small text column and a large one.
	sch := arrow.NewSchema([]arrow.Field{
		{Name: "text", Type: arrow.BinaryTypes.String},
		{Name: "pad", Type: arrow.BinaryTypes.String},
	}, nil)
	var file []byte
	var pieces [][]byte
	for g := 0; g < 4; g++ {
		b := array.NewRecordBuilder(mem, sch)
		for i := 0; i < 500; i++ {
			b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("row %d of group %d", i, g))
			b.Field(1).(*array.StringBuilder).Append(noise(uint64(g*1000+i+1), 2000))
		}
		rec := b.NewRecordBatch()
		b.Release()
		p, err := pqio.EncodePiece(mem, rec, pqio.Options{}, nil)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
		pieces = append(pieces, p)
	}
	tmpl, err := pqio.EncodeEmpty(mem, sch, pqio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	st, err := pqio.NewStitcher(&buf, tmpl)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pieces {
		if err := st.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	file = buf.Bytes()
	if err := blob.WriteFile(context.Background(), s.URL("p.parquet"), file); err != nil {
		t.Fatal(err)
	}

	// The proxy records the byte ranges asked of the object.
	target, _ := url.Parse(s.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var ranges []string
	var fetched int64
	proxy.ModifyResponse = func(r *http.Response) error {
		if r.Request.Method == http.MethodGet && strings.HasSuffix(r.Request.URL.Path, "/p.parquet") {
			mu.Lock()
			ranges = append(ranges, r.Request.Header.Get("Range"))
			fetched += r.ContentLength
			mu.Unlock()
		}
		return nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: proxy}
	go srv.Serve(l)
	defer srv.Close()
	s3test.Use(t, "http://"+l.Addr().String(), s3test.AccessKey, s3test.SecretKey)

	r, err := pqio.Open(mem, s.URL("p.parquet"), 1024)
	if err != nil {
		t.Fatal(err)
	}
	if len(ranges) != 1 || !strings.HasPrefix(ranges[0], fmt.Sprintf("bytes=%d-", len(file)-64<<10)) {
		t.Errorf("opening fetched %v, want the last 64 KiB (the footer) alone", ranges)
	}
	if err := r.Project([]string{"text"}); err != nil {
		t.Fatal(err)
	}
	rows := 0
	for {
		rec, err := r.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			break
		}
		rows += int(rec.NumRows())
		if rec.NumCols() != 1 || !strings.HasPrefix(rec.Column(0).(*array.String).Value(0), "row ") {
			t.Errorf("read %v", rec.Schema())
		}
		rec.Release()
	}
	r.Close()
	t.Logf("the object is %d bytes; reading the text column fetched %d in %d requests: %v", len(file), fetched, len(ranges), ranges)
	if rows != 2000 {
		t.Errorf("read %d rows, want 2000", rows)
	}
	if int(fetched) > len(file)/4 {
		t.Errorf("a read of the small column fetched %d of the object's %d bytes (%d requests: %v)", fetched, len(file), len(ranges), ranges)
	}
	if len(ranges) < 1+4 {
		t.Errorf("%d requests: %v; want the footer and a chunk of each row group", len(ranges), ranges)
	}
}

// noise is n letters that do not compress.
func noise(seed uint64, n int) string {
	b := make([]byte, n)
	for i := range b {
		seed ^= seed << 13
		seed ^= seed >> 7
		seed ^= seed << 17
		b[i] = 'a' + byte(seed%26)
	}
	return string(b)
}
