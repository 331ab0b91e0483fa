package duckdb_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// warcRecord is one WARC/1.0 response record with a correct
// Content-Length.
func warcRecord(i int, url, html string) string {
	http := "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: " + fmt.Sprint(len(html)) + "\r\n\r\n" + html
	return "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: " + url + "\r\n" +
		fmt.Sprintf("WARC-Date: 2024-06-0%dT10:00:00Z\r\nWARC-Record-ID: <urn:uuid:%d>\r\n", i%9+1, i) +
		"Content-Type: application/http; msgtype=response\r\nContent-Length: " + fmt.Sprint(len(http)) + "\r\n\r\n" + http + "\r\n\r\n"
}

// TestExtractReadback runs `sluice extract` on a WARC file and queries the
// pages by domain, as the README's worked example does.
func TestExtractReadback(t *testing.T) {
	bin := buildSluice(t)
	dir := t.TempDir()
	var b strings.Builder
	domains := []string{"a.example", "a.example", "a.example", "blog.b.example", "blog.b.example", "c.example"}
	for i, d := range domains {
		b.WriteString(warcRecord(i, fmt.Sprintf("https://%s/page/%d", d, i), fmt.Sprintf(
			"<html lang=en><title>Page %d</title><nav><a href=/>Home</a></nav><article><p>Page %d of %s tells a story about rivers, locks and the people who keep them.</p></article></html>", i, i, d)))
	}
	in := filepath.Join(dir, "crawl.warc")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "web")
	runSluice(t, bin, "extract", in, "-o", out, "--mode", "main")

	db := openDuckDB(t)
	scan := "read_parquet('" + filepath.Join(out, "data", "*.parquet") + "')"
	rows, err := db.Query(`SELECT regexp_extract(url, '://([^/]+)', 1) AS domain, count(*) AS pages, min(title), max(http_status)
		FROM ` + scan + ` GROUP BY domain ORDER BY pages DESC, domain`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var domain, title string
		var pages, status int
		if err := rows.Scan(&domain, &pages, &title, &status); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %d %s %d", domain, pages, title, status))
	}
	want := "a.example 3 Page 0 200|blog.b.example 2 Page 3 200|c.example 1 Page 5 200"
	if strings.Join(got, "|") != want {
		t.Fatalf("got %q, want %q", strings.Join(got, "|"), want)
	}
	types := describe(t, db, "SELECT url, warc_date, http_status, text, title, html_lang, charset FROM "+scan)
	for col, wantType := range map[string]string{"warc_date": "TIMESTAMP WITH TIME ZONE", "http_status": "INTEGER", "text": "VARCHAR", "html_lang": "VARCHAR"} {
		if types[col] != wantType {
			t.Errorf("column %s is %s, want %s", col, types[col], wantType)
		}
	}
	var text string
	if err := db.QueryRow(`SELECT text FROM ` + scan + ` WHERE url LIKE '%/page/4'`).Scan(&text); err != nil {
		t.Fatal(err)
	}
	if text != "Page 4 of blog.b.example tells a story about rivers, locks and the people who keep them." {
		t.Fatalf("text %q", text)
	}
}
