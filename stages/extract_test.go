package stages

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/io/warc"
	"github.com/sluice-data/sluice/pipeline"
	"golang.org/x/text/encoding/japanese"
)

// warcBatch reads a WARC file made of the given (type, url, content type,
// body) records as one batch.
func warcBatch(t *testing.T, mem memory.Allocator, recs [][4]string) arrow.RecordBatch {
	t.Helper()
	var buf bytes.Buffer
	w := warc.NewWriter(&buf, true)
	for _, r := range recs {
		fields := []warc.Field{{Name: "WARC-Type", Value: r[0]}, {Name: "WARC-Target-URI", Value: r[1]}}
		block := []byte(r[3])
		if r[0] == "response" {
			fields = append(fields, warc.Field{Name: "Content-Type", Value: "application/http; msgtype=response"})
			block = warc.HTTPBlock(200, []warc.Field{{Name: "Content-Type", Value: r[2]}}, block)
		}
		if err := w.Write(fields, block); err != nil {
			t.Fatal(err)
		}
	}
	r, err := warc.NewReader(&buf, warc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	br := warc.NewBatchReader(mem, r, warc.BatchOptions{})
	defer br.Release()
	rec, bad, err := br.Next()
	if err != nil || len(bad) > 0 {
		t.Fatal(err, bad)
	}
	if _, _, err := br.Next(); err != io.EOF {
		t.Fatalf("more than one batch: %v", err)
	}
	return rec
}

func column(rec arrow.RecordBatch, name string) arrow.Array {
	return rec.Column(rec.Schema().FieldIndices(name)[0])
}

func TestExtractStage(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sjis, _ := japanese.ShiftJIS.NewEncoder().String("<html lang=ja><title>水門</title><p>東京の運河は、かつて物流の中心でした。ひらがなも入っています。</p></html>")
	rec := warcBatch(t, mem, [][4]string{
		{"response", "https://a.example/", "text/html; charset=utf-8", "<html lang=en><title>A</title><nav><a href=/>Home</a></nav><p>The first page has a sentence.</p></html>"},
		{"response", "https://b.example/", "text/html", sjis},
		{"response", "https://c.example/", "text/html", "<script>var x = 1;</script>"},
		{"response", "https://d.example/logo.png", "image/png", "\x89PNG\r\n"},
		{"conversion", "https://a.example/", "", "Text a crawler already extracted."},
		{"conversion", "https://e.example/", "", ""},
	})
	defer rec.Release()
	for _, annotate := range []bool{false, true} {
		st, err := NewExtract("text", ExtractParams{Mode: "main"}, annotate)
		if err != nil {
			t.Fatal(err)
		}
		want, err := st.OutputSchema(rec.Schema())
		if err != nil {
			t.Fatal(err)
		}
		res, err := st.Process(context.Background(), mem, pipeline.NewBatch(rec, 0))
		if err != nil {
			t.Fatal(err)
		}
		if !res.Kept.Schema().Equal(want) {
			t.Fatalf("kept schema\n%s\nwant\n%s", res.Kept.Schema(), want)
		}
		text := column(res.Kept, "text").(*array.String)
		if annotate {
			reasons := column(res.Kept, DropReasonColumn).(*array.String)
			if res.Kept.NumRows() != 6 || reasons.Value(2) != "extract:empty_extraction" || reasons.Value(3) != "extract:not_html" || reasons.Value(5) != "extract:empty_extraction" || reasons.IsValid(4) {
				t.Fatalf("annotated: %v", reasons)
			}
		} else {
			if res.Kept.NumRows() != 3 || text.Value(0) != "The first page has a sentence." ||
				text.Value(1) != "東京の運河は、かつて物流の中心でした。ひらがなも入っています。" || text.Value(2) != "Text a crawler already extracted." {
				t.Fatalf("kept text %v", text)
			}
			title := column(res.Kept, TitleColumn).(*array.String)
			lang := column(res.Kept, HTMLLangCol).(*array.String)
			cs := column(res.Kept, CharsetColumn).(*array.String)
			if title.Value(1) != "水門" || lang.Value(1) != "ja" || cs.Value(1) != "shift_jis" || title.IsValid(2) {
				t.Fatalf("title %v lang %v charset %v", title, lang, cs)
			}
			if strings.Join(res.Reasons, ",") != "empty_extraction,not_html,empty_extraction" {
				t.Fatalf("reasons %v", res.Reasons)
			}
			if p := column(res.Removed, "payload").(*array.Binary); string(p.Value(1)) != "\x89PNG\r\n" {
				t.Fatalf("removed rows lost their payload: %v", p)
			}
			if len(res.Keep) != 6 || res.Keep[2] || !res.Keep[4] {
				t.Fatalf("keep %v", res.Keep)
			}
			res.Removed.Release()
		}
		res.Kept.Release()
	}
}

func TestExtractNeedsAPayload(t *testing.T) {
	st, _ := NewExtract("text", ExtractParams{}, false)
	_, err := st.OutputSchema(arrow.NewSchema([]arrow.Field{{Name: "text", Type: arrow.BinaryTypes.String}}, nil))
	if err == nil || !strings.Contains(err.Error(), `no "payload" column`) {
		t.Fatalf("err %v", err)
	}
	if _, err := NewExtract("text", ExtractParams{Mode: "fancy"}, false); err == nil {
		t.Fatal("bad mode accepted")
	}
}

func TestURLFilterStage(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	subs := filepath.Join(t.TempDir(), "subs.txt")
	os.WriteFile(subs, []byte("# paths\n/wp-login\n"), 0o644)
	st, err := NewURLFilter(URLFilterParams{Domains: []string{"spam.example"}, SubstringsFile: subs}, false)
	if err != nil {
		t.Fatal(err)
	}
	rec := warcBatch(t, mem, [][4]string{
		{"conversion", "https://spam.example/a", "", "one"},
		{"conversion", "https://www.spam.example/b", "", "two"},
		{"conversion", "https://ham.example/wp-login.php", "", "three"},
		{"conversion", "https://ham.example/", "", "four"},
	})
	defer rec.Release()
	res, err := st.Process(context.Background(), mem, pipeline.NewBatch(rec, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Kept.Release()
	defer res.Removed.Release()
	if res.Kept.NumRows() != 1 || strings.Join(res.Reasons, ",") != "domain:spam.example,domain:spam.example,substring:/wp-login" {
		t.Fatalf("kept %d, reasons %v", res.Kept.NumRows(), res.Reasons)
	}
	cfg := st.Config().(URLFilterParams)
	if cfg.DomainCount != 1 || cfg.SubstringCount != 1 {
		t.Fatalf("config %+v", cfg)
	}
	if _, err := NewURLFilter(URLFilterParams{}, false); err == nil || !strings.Contains(err.Error(), "no domain or substring") {
		t.Fatalf("empty lists: %v", err)
	}
}
