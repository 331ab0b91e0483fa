package blob_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sluice-data/sluice/internal/s3test"
	"github.com/sluice-data/sluice/io/blob"
)

func TestParseJoinDir(t *testing.T) {
	for _, c := range []struct{ in, bucket, key string }{
		{"s3://b/k/x.jsonl", "s3://b", "k/x.jsonl"},
		{"s3://b", "s3://b", ""},
		{"gs://b/", "gs://b", ""},
		{"az://c/a/b/", "az://c", "a/b/"},
	} {
		b, k, err := blob.Parse(c.in)
		if err != nil || b != c.bucket || k != c.key {
			t.Errorf("Parse(%q) = %q %q %v, want %q %q", c.in, b, k, err, c.bucket, c.key)
		}
	}
	for _, bad := range []string{"s3://", "s3:///k", "http://x/y", "/local/path"} {
		if _, _, err := blob.Parse(bad); err == nil {
			t.Errorf("Parse(%q) gave no error", bad)
		}
	}
	if got := blob.Join("s3://b/out/", "data", "part-00000.parquet"); got != "s3://b/out/data/part-00000.parquet" {
		t.Errorf("Join = %q", got)
	}
	if got := blob.Join("s3://b", "x"); got != "s3://b/x" {
		t.Errorf("Join = %q", got)
	}
	if got := blob.Dir("s3://b/out/data/p.parquet"); got != "s3://b/out/data" {
		t.Errorf("Dir = %q", got)
	}
	if got := blob.Dir("s3://b/top.parquet"); got != "s3://b" {
		t.Errorf("Dir = %q", got)
	}
	if got := blob.Clean("s3://b/out//x/"); got != "s3://b/out/x" {
		t.Errorf("Clean = %q", got)
	}
	if !blob.IsURL("s3://b/k") || !blob.IsURL("gs://b") || !blob.IsURL("az://c/k") || blob.IsURL("http://x") || blob.IsURL("s3:/b") {
		t.Error("IsURL wrong")
	}
}

func TestReadWriteListOnServer(t *testing.T) {
	s := s3test.Start(t)
	ctx := context.Background()
	// Larger than one upload part, so the writer uploads several parts.
	big := bytes.Repeat([]byte("0123456789abcdef"), (40<<20)/16+3)
	w, err := blob.Create(ctx, s.URL("dir/big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	for off := 0; off < len(big); off += 1 << 20 {
		if _, err := w.Write(big[off:min(off+1<<20, len(big))]); err != nil {
			t.Fatal(err)
		}
	}
	if ok, _ := blob.Exists(ctx, s.URL("dir/big.bin")); ok {
		t.Fatal("the object exists before Close")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	a, err := blob.Stat(ctx, s.URL("dir/big.bin"))
	if err != nil || a.Size != int64(len(big)) {
		t.Fatalf("Stat = %+v, %v; want size %d", a, err, len(big))
	}
	r, err := blob.NewReader(ctx, s.URL("dir/big.bin"), 5, 10)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	r.Close()
	if string(got) != "56789abcde" {
		t.Errorf("range read = %q", got)
	}
	ra, err := blob.OpenReaderAt(ctx, s.URL("dir/big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	for _, off := range []int64{0, 17, int64(len(big)) - 100, int64(len(big)) - 8} {
		buf := make([]byte, 8)
		if _, err := ra.ReadAt(buf, off); err != nil || !bytes.Equal(buf, big[off:off+8]) {
			t.Errorf("ReadAt(%d) = %q %v, want %q", off, buf, err, big[off:off+8])
		}
	}
	buf := make([]byte, 16)
	if n, err := ra.ReadAt(buf, int64(len(big))-4); n != 4 || err != io.EOF {
		t.Errorf("ReadAt past the end = %d %v, want 4 EOF", n, err)
	}

	for _, k := range []string{"dir/a.jsonl", "dir/b.jsonl.gz", "dir/sub/c.jsonl", "dirx/d.jsonl"} {
		if err := blob.WriteFile(ctx, s.URL(k), []byte(k)); err != nil {
			t.Fatal(err)
		}
	}
	objs, err := blob.List(ctx, s.URL("dir/"))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.URL)
	}
	want := []string{s.URL("dir/a.jsonl"), s.URL("dir/b.jsonl.gz"), s.URL("dir/big.bin"), s.URL("dir/sub/c.jsonl")}
	if strings.Join(keys, " ") != strings.Join(want, " ") {
		t.Errorf("List = %v, want %v", keys, want)
	}
	objs, err = blob.Glob(ctx, s.URL("dir/*.jsonl*"))
	if err != nil || len(objs) != 2 || objs[0].URL != s.URL("dir/a.jsonl") || objs[1].URL != s.URL("dir/b.jsonl.gz") {
		t.Errorf("Glob = %v, %v", objs, err)
	}
	objs, err = blob.Glob(ctx, s.URL("dir*/*.jsonl"))
	if err != nil || len(objs) != 2 || objs[1].URL != s.URL("dirx/d.jsonl") {
		t.Errorf("Glob across prefixes = %v, %v", objs, err)
	}

	if err := blob.Copy(ctx, s.URL("copy/a.jsonl"), s.URL("dir/a.jsonl")); err != nil {
		t.Fatal(err)
	}
	if b, err := blob.ReadFile(ctx, s.URL("copy/a.jsonl")); err != nil || string(b) != "dir/a.jsonl" {
		t.Errorf("copy reads %q, %v", b, err)
	}
	if err := blob.Delete(ctx, s.URL("copy/a.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := blob.Delete(ctx, s.URL("copy/a.jsonl")); err != nil {
		t.Errorf("deleting a missing object: %v", err)
	}
	_, err = blob.Stat(ctx, s.URL("copy/a.jsonl"))
	if blob.KindOf(err) != blob.NotFound || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), s.URL("copy/a.jsonl")) {
		t.Errorf("Stat of a deleted object: %v", err)
	}

	// An aborted upload leaves no object.
	w, err = blob.Create(ctx, s.URL("dir/aborted.bin"))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(big[:20<<20])
	w.Abort()
	if ok, err := blob.Exists(ctx, s.URL("dir/aborted.bin")); ok || err != nil {
		t.Errorf("after Abort: exists %v, %v", ok, err)
	}
}

func TestErrorsNameURLNotSecret(t *testing.T) {
	s := s3test.Start(t)
	ctx := context.Background()
	_, err := blob.Stat(ctx, "s3://no-such-bucket/x.jsonl")
	if k := blob.KindOf(err); k != blob.NoBucket && k != blob.NotFound {
		t.Errorf("missing bucket: kind %d: %v", k, err)
	}
	err = blob.CheckBucket(ctx, "s3://no-such-bucket/out")
	if blob.KindOf(err) != blob.NoBucket || !strings.Contains(err.Error(), "s3://no-such-bucket/out") || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("CheckBucket of a missing bucket: %v", err)
	}

	s3test.Use(t, s.Endpoint, s3test.AccessKey, "wrong-secret-value")
	err = blob.CheckBucket(ctx, s.URL("x"))
	if blob.KindOf(err) != blob.BadCredentials || !strings.Contains(err.Error(), s.URL("x")) {
		t.Errorf("wrong secret: %v", err)
	}
	if strings.Contains(err.Error(), "wrong-secret-value") {
		t.Errorf("the error prints the secret: %v", err)
	}
	s3test.Use(t, s.Endpoint, "unknown-key", "wrong-secret-value")
	if err := blob.WriteFile(ctx, s.URL("y"), []byte("x")); blob.KindOf(err) != blob.BadCredentials {
		t.Errorf("unknown key: %v", err)
	}
}

// TestRetriesThrottling puts a proxy before the server that answers the
// first tries of every request with 503 SlowDown or 500: the requests
// succeed after backing off.
func TestRetriesThrottling(t *testing.T) {
	s := s3test.Start(t)
	target, _ := url.Parse(s.Endpoint)
	proxy := httputil.NewSingleHostReverseProxy(target)
	var calls, refused atomic.Int64
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		if n%3 != 0 { // two of three tries fail
			refused.Add(1)
			w.Header().Set("Content-Type", "application/xml")
			if n%2 == 0 {
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
			} else {
				w.WriteHeader(http.StatusInternalServerError)
				io.WriteString(w, `<Error><Code>InternalError</Code><Message>We encountered an internal error.</Message></Error>`)
			}
			return
		}
		proxy.ServeHTTP(w, r)
	})}
	l := listen(t)
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	s3test.Use(t, "http://"+l.Addr().String(), s3test.AccessKey, s3test.SecretKey)
	ctx := context.Background()
	if err := blob.WriteFile(ctx, s.URL("retry.txt"), []byte("hello")); err != nil {
		t.Fatal(err)
	}
	b, err := blob.ReadFile(ctx, s.URL("retry.txt"))
	if err != nil || string(b) != "hello" {
		t.Fatalf("read %q, %v", b, err)
	}
	if refused.Load() < 4 {
		t.Errorf("only %d requests were refused", refused.Load())
	}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return l
}
