package pipeline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/io/warc"
)

// writeWARC writes n response records (every third also with a conversion
// record), one gzip member each, and returns the member offsets.
func writeWARC(t *testing.T, dir, name string, n int) (string, []int64) {
	t.Helper()
	var out bytes.Buffer
	w := warc.NewWriter(&out, true)
	var offsets []int64
	for i := 0; i < n; i++ {
		url := fmt.Sprintf("https://site%d.example/page/%d", i%5, i)
		offsets = append(offsets, int64(out.Len()))
		body := fmt.Sprintf("<html><body><p>Page %d of the test crawl.</p></body></html>", i)
		w.Write([]warc.Field{{Name: "WARC-Type", Value: "response"}, {Name: "WARC-Target-URI", Value: url},
			{Name: "WARC-Date", Value: "2024-05-01T12:00:00Z"}, {Name: "WARC-Record-ID", Value: fmt.Sprintf("<urn:uuid:%d>", i)},
			{Name: "Content-Type", Value: "application/http; msgtype=response"}},
			warc.HTTPBlock(200, []warc.Field{{Name: "Content-Type", Value: "text/html"}}, []byte(body)))
		if i%3 == 0 {
			offsets = append(offsets, int64(out.Len()))
			w.Write([]warc.Field{{Name: "WARC-Type", Value: "conversion"}, {Name: "WARC-Target-URI", Value: url},
				{Name: "Content-Type", Value: "text/plain"}}, []byte(fmt.Sprintf("Page %d of the test crawl.", i)))
		}
	}
	return writeFile(t, dir, name, out.Bytes()), offsets
}

func TestWARCInputsBecomeRowsInOrderWhateverTheWorkers(t *testing.T) {
	dir := t.TempDir()
	a, _ := writeWARC(t, dir, "a.warc.gz", 300)
	b, _ := writeWARC(t, dir, "b.warc.gz", 40)
	var first []byte
	for _, workers := range []int{1, 2, 4} {
		out := filepath.Join(dir, fmt.Sprintf("out%d.jsonl", workers))
		cfg := testConfig(t, out, a, b)
		cfg.Workers, cfg.BatchRows = workers, 64
		m := run(t, cfg)
		if m.Counts.RowsOut != 300+100+40+14 || m.Inputs[0].Format != "warc" {
			t.Fatalf("counts %+v inputs %+v", m.Counts, m.Inputs)
		}
		data, _ := os.ReadFile(out)
		if first == nil {
			first = data
		} else if !bytes.Equal(first, data) {
			t.Fatalf("output with %d workers differs", workers)
		}
	}
	rows := readJSONL(t, filepath.Join(dir, "out1.jsonl"))
	if rows[0]["url"] != "https://site0.example/page/0" || rows[1]["text"] != "Page 0 of the test crawl." || fmt.Sprint(rows[0]["http_status"]) != "200" {
		t.Fatalf("first rows %v %v", rows[0], rows[1])
	}
}

func TestWARCTypesChooseTheRows(t *testing.T) {
	dir := t.TempDir()
	a, _ := writeWARC(t, dir, "a.warc.gz", 30)
	cfg := testConfig(t, filepath.Join(dir, "wet.parquet"), a)
	cfg.WARCTypes = []string{"conversion"}
	m := run(t, cfg)
	if m.Counts.RowsOut != 10 || m.Inputs[0].SkippedRecords != 30 {
		t.Fatalf("counts %+v; %d records skipped, want the 30 responses", m.Counts, m.Inputs[0].SkippedRecords)
	}
	if strings.Contains(string(m.Schema), "payload") {
		t.Fatalf("conversion-only schema has a payload column: %s", m.Schema)
	}
}

func TestDamagedWARCRecordsAreQuarantinedWithOffsets(t *testing.T) {
	dir := t.TempDir()
	src, offsets := writeWARC(t, dir, "a.warc.gz", 20)
	data, _ := os.ReadFile(src)
	// Corrupt the fourth member, and cut the file in the middle of the last.
	mid := (offsets[3] + offsets[4]) / 2
	for i := mid - 3; i < mid+3; i++ {
		data[i] ^= 0xa5
	}
	last := offsets[len(offsets)-1]
	data = data[:last+(int64(len(data))-last)/2]
	writeFile(t, dir, "a.warc.gz", data)
	out := filepath.Join(dir, "out.parquet")
	cfg := testConfig(t, out, src)
	m, err := Run(context.Background(), cfg, nil, "test")
	if !errors.Is(err, ErrPartialInput) || !strings.Contains(err.Error(), src) {
		t.Fatalf("err %v", err)
	}
	checkManifest(t, cfg.Target, m)
	q := readQuarantine(t, filepath.Join(dir, "out.quarantine.jsonl"))
	if len(q) != 2 || q[0].Offset != offsets[3] || q[1].Offset != last || q[0].File != src {
		t.Fatalf("quarantine %+v, want offsets %d and %d", q, offsets[3], last)
	}
	if !strings.Contains(q[1].Error, "cut short") || m.Counts.RowsOut != int64(len(offsets)-2) {
		t.Fatalf("quarantine %+v counts %+v", q, m.Counts)
	}
}

func TestWARCAndJSONLDoNotMix(t *testing.T) {
	dir := t.TempDir()
	a, _ := writeWARC(t, dir, "a.warc", 3)
	j := writeFile(t, dir, "b.jsonl", []byte(`{"text":"x"}`+"\n"))
	_, err := Run(context.Background(), testConfig(t, filepath.Join(dir, "o.parquet"), j, a), nil, "test")
	if err == nil || !strings.Contains(err.Error(), "cannot mix") {
		t.Fatalf("err %v", err)
	}
}
