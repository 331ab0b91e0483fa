package command

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sluice-data/sluice/demo/crawl"
)

func TestExtractTheBuiltInCrawl(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "crawl.warc.gz")
	os.WriteFile(in, crawl.WARC(), 0o644)
	block := filepath.Join(dir, "block.txt")
	os.WriteFile(block, []byte(crawl.BlockedDomains), 0o644)
	out := filepath.Join(dir, "web.jsonl")
	stdout, _ := runMain(t, "extract", in, "-o", out, "--mode", "main", "--block-domains", block, "-j", "2")
	for _, want := range []string{"10 rows in", "1 quarantined", "url_filter", "domain:casino-bonus.example=1",
		"empty_extraction=1", "not_html=1"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	rows := rowsOf(t, out)
	byURL := map[string]map[string]any{}
	for _, r := range rows {
		byURL[r["url"].(string)] = r
		if _, ok := r["payload"]; ok {
			t.Fatalf("payload kept without --keep-html: %v", r)
		}
	}
	checks := []struct{ url, charset, text string }{
		{"https://vodnye-puti.example/kanal-moskvy", "windows-1251", "Канал имени Москвы соединяет реку Москву с Волгой."},
		{"https://mizube-sanpo.example/unga/", "shift_jis", "東京の下町には、江戸時代に掘られた運河が今も数多く残っています。"},
		{"https://voies-du-sud.example/ecluses.html", "windows-1252", "Le canal du Midi relie Toulouse à la mer Méditerranée."},
		{"https://riverside-weekly.example/people/last-lock-keepers", "utf-8", "There are forty-five locks on the non-tidal Thames"},
	}
	for _, c := range checks {
		r := byURL[c.url]
		if r == nil || r["charset"] != c.charset || !strings.Contains(r["text"].(string), c.text) {
			t.Errorf("%s: %v", c.url, r)
			continue
		}
		for _, gone := range []string{"cookie", "Главная", "トップ", "Accueil", "Privacy", "You may also like"} {
			if strings.Contains(r["text"].(string), gone) {
				t.Errorf("%s: main text keeps %q", c.url, gone)
			}
		}
	}
	removed := rowsOf(t, filepath.Join(dir, "web.removed.jsonl"))
	if len(removed) != 3 {
		t.Fatalf("removed %d rows", len(removed))
	}
	q, _ := os.ReadFile(filepath.Join(dir, "web.quarantine.jsonl"))
	if !strings.Contains(string(q), "block does not end where Content-Length says") || !strings.Contains(string(q), `"offset":`) {
		t.Fatalf("quarantine %s", q)
	}
}

func TestExtractUsageErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "crawl.warc.gz")
	os.WriteFile(in, crawl.WARC(), 0o644)
	for _, args := range [][]string{
		{"extract", in, "-o", filepath.Join(dir, "o"), "--mode", "fancy"},
		{"extract", in, "-o", filepath.Join(dir, "o"), "--warc-types", "response,bogus"},
		{"extract", in, "-o", filepath.Join(dir, "o"), "--block-domains", filepath.Join(dir, "missing.txt")},
	} {
		var out, errb bytes.Buffer
		if code := Main(append([]string{"sluice"}, args...), nil, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2\n%s", args, code, errb.String())
		}
	}
}

func TestCleanBlocksDomains(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.jsonl")
	os.WriteFile(in, []byte(`{"url":"https://a.spam.example/x","text":"one"}`+"\n"+`{"url":"https://ham.example/","text":"two"}`+"\n"), 0o644)
	list := filepath.Join(dir, "domains.txt")
	os.WriteFile(list, []byte("spam.example\n"), 0o644)
	out := filepath.Join(dir, "out.jsonl")
	stdout, _ := runMain(t, "clean", in, "-o", out, "--block-domains", list)
	rows := rowsOf(t, out)
	if len(rows) != 1 || rows[0]["text"] != "two" || !strings.Contains(stdout, "domain:spam.example=1") {
		t.Fatalf("rows %v\n%s", rows, stdout)
	}
}

func TestWARCDemo(t *testing.T) {
	var out bytes.Buffer
	dir := filepath.Join(t.TempDir(), "web")
	m, err := runWARCDemo(context.Background(), dir, false, 2, []string{"sluice", "demo"}, Streams{Out: &out, Err: &out})
	if err != nil {
		t.Fatal(err)
	}
	// Ten responses: one blocked, one damaged, an app shell and an image
	// without text, one duplicate; five pages stay (the 404 page too).
	if m.Counts.RowsIn != 10 || m.Counts.Quarantined != 1 || m.Counts.RowsOut != 5 {
		t.Fatalf("counts %+v\n%s", m.Counts, out.String())
	}
	for _, want := range []string{"exact_dup=1", "domain:casino-bonus.example=1", "quarantined"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}
