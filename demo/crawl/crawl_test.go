package crawl

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/sluice-data/sluice/io/warc"
)

func TestTheCrawlReadsBackWithOneDamagedRecord(t *testing.T) {
	r, err := warc.NewReader(bytes.NewReader(WARC()), warc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	bad := 0
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		var re *warc.RecordError
		if errors.As(err, &re) {
			if !errors.Is(re, warc.ErrBadLength) {
				t.Fatalf("unexpected damage: %v", re)
			}
			bad++
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, rec.Get("WARC-Type"))
	}
	if bad != 1 || len(types) != len(crawl) || types[0] != "warcinfo" || r.StreamErr() != nil {
		t.Fatalf("records %v, bad %d, stream error %v", types, bad, r.StreamErr())
	}
}
