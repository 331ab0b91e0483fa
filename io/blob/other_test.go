package blob_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/internal/blobtest"
	"github.com/sluice-data/sluice/io/blob"
)

// TestOtherStores reads, lists, writes, copies and deletes gs:// and
// az:// objects on their emulators, as s3:// ones, and names the URL of a
// missing bucket.
func TestOtherStores(t *testing.T) {
	for _, start := range []func(testing.TB) *blobtest.Emulator{blobtest.StartGCS, blobtest.StartAzurite} {
		e := start(t)
		ctx := context.Background()
		big := bytes.Repeat([]byte("0123456789abcdef"), (20<<20)/16+5)
		w, err := blob.Create(ctx, e.URL("dir/big.bin"))
		if err != nil {
			t.Fatal(err)
		}
		w.Write(big)
		if err := w.Close(); err != nil {
			t.Fatalf("%s: %v", e.Scheme, err)
		}
		ra, err := blob.OpenReaderAt(ctx, e.URL("dir/big.bin"))
		if err != nil || ra.Size() != int64(len(big)) {
			t.Fatalf("%s: %v %v", e.Scheme, ra, err)
		}
		buf := make([]byte, 10)
		if _, err := ra.ReadAt(buf, 1<<20+3); err != nil || !bytes.Equal(buf, big[1<<20+3:1<<20+13]) {
			t.Errorf("%s: ReadAt = %q %v", e.Scheme, buf, err)
		}
		r, err := blob.NewReader(ctx, e.URL("dir/big.bin"), 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		all, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(all, big) {
			t.Errorf("%s: read %d bytes, %v", e.Scheme, len(all), err)
		}
		for _, k := range []string{"dir/a.jsonl", "dir/sub/b.jsonl", "other/c.jsonl"} {
			if err := blob.WriteFile(ctx, e.URL(k), []byte(k)); err != nil {
				t.Fatal(err)
			}
		}
		objs, err := blob.Glob(ctx, e.URL("dir/*.jsonl"))
		if err != nil || len(objs) != 1 || objs[0].URL != e.URL("dir/a.jsonl") {
			t.Errorf("%s: Glob = %v %v", e.Scheme, objs, err)
		}
		objs, err = blob.List(ctx, e.URL("dir/"))
		if err != nil || len(objs) != 3 {
			t.Errorf("%s: List = %v %v", e.Scheme, objs, err)
		}
		if err := blob.Copy(ctx, e.URL("copy.jsonl"), e.URL("dir/a.jsonl")); err != nil {
			t.Errorf("%s: Copy: %v", e.Scheme, err)
		}
		if err := blob.Delete(ctx, e.URL("copy.jsonl")); err != nil {
			t.Errorf("%s: Delete: %v", e.Scheme, err)
		}
		if _, err := blob.Stat(ctx, e.URL("copy.jsonl")); blob.KindOf(err) != blob.NotFound {
			t.Errorf("%s: Stat of a deleted object: %v", e.Scheme, err)
		}
		if e.Scheme == "az" {
			blobtest.UseAzure(t, e.Endpoint, "d3Jvbmcta2V5LW5vdC10aGUtcmVhbC1vbmU=")
			err := blob.WriteFile(ctx, e.URL("x"), []byte("x"))
			if blob.KindOf(err) != blob.BadCredentials || strings.Contains(err.Error(), "d3Jvbmcta2V5") {
				t.Errorf("az: a wrong key: kind %d: %v", blob.KindOf(err), err)
			}
			blobtest.UseAzure(t, e.Endpoint, blobtest.AzureKey)
		}
		missing := e.Scheme + "://no-such-bucket/out"
		if err := blob.CheckBucket(ctx, missing); blob.KindOf(err) != blob.NoBucket || !strings.Contains(err.Error(), missing) {
			t.Errorf("%s: a missing bucket: kind %d: %v (%v)", e.Scheme, blob.KindOf(err), err, errors.Unwrap(err))
		}
	}
}
