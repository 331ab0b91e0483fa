// Package crawl holds the sample web crawl that the WARC part of `sluice
// demo` starts from: a handful of HTML pages, written for it, packed as
// the responses of a WARC file with one gzip member per record, as Common
// Crawl writes them.
//
// The crawl carries what a real one does: pages with navigation, footers
// and a cookie banner around an article; pages in windows-1251 (declared
// in the HTTP header), Shift_JIS (declared in a <meta> tag) and Latin-1
// (not declared at all); the same article under two URLs; a JavaScript app
// shell with no text; an image; a page from a domain on the block list; a
// 404 page; and a record whose Content-Length is wrong, which the reader
// quarantines before going on with the next record. Every site and name in
// it is made up.
package crawl

import (
	"bytes"
	"embed"
	"fmt"
	"sync"

	"github.com/sluice-data/sluice/io/warc"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
)

//go:embed pages/*.html
var pages embed.FS

// Name is the file name of the sample crawl.
const Name = "sample.warc.gz"

// BlockedDomains is the domain block list the demo filters with.
const BlockedDomains = "# sites the demo does not want\ncasino-bonus.example\n"

// page is one response of the crawl.
type page struct {
	url, file, contentType string
	status                 int
	enc                    encoding.Encoding // the page's bytes are its text in this encoding
	corrupt                bool              // write a Content-Length 40 bytes short
}

var crawl = []page{
	{"https://riverside-weekly.example/people/last-lock-keepers", "lock-keepers.html", "text/html; charset=utf-8", 200, nil, false},
	{"https://vodnye-puti.example/kanal-moskvy", "moscow-canal.html", "text/html; charset=windows-1251", 200, charmap.Windows1251, false},
	{"https://mizube-sanpo.example/unga/", "tokyo-canals.html", "text/html", 200, japanese.ShiftJIS, false},
	{"https://voies-du-sud.example/ecluses.html", "ecluses.html", "text/html", 200, charmap.ISO8859_1, false},
	{"https://dashboard.example/app", "app-shell.html", "text/html; charset=utf-8", 200, nil, false},
	{"https://riverside-weekly.example/logo.png", "", "image/png", 200, nil, false},
	{"https://www.casino-bonus.example/codes", "casino.html", "text/html", 200, nil, false},
	{"http://riverside-weekly.example/people/last-lock-keepers?utm_source=feed", "lock-keepers.html", "text/html; charset=utf-8", 200, nil, false},
	{"https://broken.example/page", "ecluses.html", "text/html", 200, charmap.ISO8859_1, true},
	{"https://riverside-weekly.example/missing", "not-found.html", "text/html", 404, nil, false},
}

// png is the start of a PNG image, enough to be one.
var png = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89")

var (
	once  sync.Once
	built []byte
)

// WARC returns the sample crawl as a gzip-compressed WARC file. The slice
// is shared: callers must not modify it.
func WARC() []byte {
	once.Do(func() {
		b, err := build()
		if err != nil {
			panic("crawl: the built-in pages do not make a WARC file: " + err.Error())
		}
		built = b
	})
	return built
}

func build() ([]byte, error) {
	var out bytes.Buffer
	w := warc.NewWriter(&out, true)
	err := w.Write([]warc.Field{{Name: "WARC-Type", Value: "warcinfo"}, {Name: "WARC-Date", Value: "2024-06-01T08:00:00Z"},
		{Name: "WARC-Record-ID", Value: "<urn:uuid:00000000-0000-4000-8000-000000000000>"},
		{Name: "Content-Type", Value: "application/warc-fields"}},
		[]byte("software: sluice demo\r\nformat: WARC File Format 1.0\r\n"))
	if err != nil {
		return nil, err
	}
	for i, p := range crawl {
		body := png
		if p.file != "" {
			text, err := pages.ReadFile("pages/" + p.file)
			if err != nil {
				return nil, err
			}
			if body = text; p.enc != nil {
				if body, err = p.enc.NewEncoder().Bytes(text); err != nil {
					return nil, fmt.Errorf("%s: %w", p.file, err)
				}
			}
		}
		fields := []warc.Field{{Name: "WARC-Type", Value: "response"}, {Name: "WARC-Target-URI", Value: p.url},
			{Name: "WARC-Date", Value: fmt.Sprintf("2024-06-01T08:%02d:00Z", i+1)},
			{Name: "WARC-Record-ID", Value: fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", i+1)},
			{Name: "Content-Type", Value: "application/http; msgtype=response"}}
		block := warc.HTTPBlock(p.status, []warc.Field{{Name: "Content-Type", Value: p.contentType}}, body)
		if p.corrupt {
			rec := warc.AppendRecord(nil, fields, block)
			rec = bytes.Replace(rec, []byte(fmt.Sprintf("Content-Length: %d\r\n", len(block))),
				[]byte(fmt.Sprintf("Content-Length: %d\r\n", len(block)-40)), 1)
			if err := w.WriteRaw(rec); err != nil {
				return nil, err
			}
			continue
		}
		if err := w.Write(fields, block); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}
