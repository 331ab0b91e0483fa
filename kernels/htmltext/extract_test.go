package htmltext

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("%s differs from the extraction:\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

func TestArticleGoldens(t *testing.T) {
	page, err := os.ReadFile("testdata/article.html")
	if err != nil {
		t.Fatal(err)
	}
	var e Extractor
	for _, mode := range []Mode{Plain, Main} {
		r := e.Extract(page, "text/html", mode)
		if r.Title != "How river sluices shaped the Fens | The Lowland Review" || r.Lang != "en-GB" || r.Charset != "utf-8" || r.Source != FromMeta {
			t.Fatalf("%s: title %q lang %q charset %q from %s", mode, r.Title, r.Lang, r.Charset, r.Source)
		}
		golden(t, "article."+mode.String()+".txt", r.Text+"\n")
	}
}

func TestPlainDropsScriptsStylesAndHiddenText(t *testing.T) {
	var e Extractor
	r := e.Extract(mustRead(t, "testdata/article.html"), "", Plain)
	for _, gone := range []string{"dataLayer", "font-family", "Hidden note", "Another hidden", "enable JavaScript", "Manage preferences"} {
		if strings.Contains(r.Text, gone) {
			t.Errorf("plain text holds %q", gone)
		}
	}
	for _, kept := range []string{"We use cookies", "Most read", "How river sluices shaped the Fens\nBy Margaret Hale"} {
		if !strings.Contains(r.Text, kept) {
			t.Errorf("plain text lacks %q", kept)
		}
	}
}

func TestMainDropsBoilerplate(t *testing.T) {
	var e Extractor
	r := e.Extract(mustRead(t, "testdata/article.html"), "", Main)
	for _, gone := range []string{"We use cookies", "About us", "Related articles", "windmills that pumped", "Most read",
		"newsletter", "All rights reserved", "Privacy policy", "Great article", "Share on", "Home"} {
		if strings.Contains(r.Text, gone) {
			t.Errorf("main text holds %q", gone)
		}
	}
	for _, kept := range []string{"How river sluices shaped the Fens", "A gate that works by itself", "four metres clear of the soil", "heart of the Fens"} {
		if !strings.Contains(r.Text, kept) {
			t.Errorf("main text lacks %q", kept)
		}
	}
}

func TestMainWithoutArticleElement(t *testing.T) {
	page := `<html><body><div class="menu"><a href="/">Home</a> <a href="/b">Blog</a></div>
<div id="content"><h1>Notes on bread</h1><p>Sourdough needs a starter, flour, water and salt, and patience above all.</p>
<p>Feed the starter the night before you bake, and the dough will rise well.</p></div>
<div><a href="/1">Link one here</a> <a href="/2">Link two there</a> and more</div>
<div class="cookie-notice">This site uses cookies.</div>
<p>Short</p></body></html>`
	var e Extractor
	r := e.Extract([]byte(page), "", Main)
	want := "Notes on bread\nSourdough needs a starter, flour, water and salt, and patience above all.\nFeed the starter the night before you bake, and the dough will rise well."
	if r.Text != want {
		t.Fatalf("got %q", r.Text)
	}
}

func TestEmptyAndTextlessPages(t *testing.T) {
	var e Extractor
	for _, page := range []string{"", "<html><head><title>t</title><script>x=1</script></head><body></body></html>", "<img src=x>", "\x00\xff\xfe"} {
		for _, mode := range []Mode{Plain, Main} {
			if r := e.Extract([]byte(page), "", mode); strings.TrimSpace(r.Text) != r.Text || (r.Text != "" && page != "\x00\xff\xfe") {
				t.Errorf("%q (%s): text %q", page, mode, r.Text)
			}
		}
	}
}

func TestPreKeepsWhiteSpaceAndEntitiesAreDecoded(t *testing.T) {
	var e Extractor
	r := e.Extract([]byte("<p>a &amp; b&nbsp;c   d</p><pre>x  = 1\n  y = 2</pre><p>e<br>f</p>"), "", Plain)
	want := "a & b\u00a0c d\nx  = 1\n  y = 2\ne\nf"
	if r.Text != want {
		t.Fatalf("got %q want %q", r.Text, want)
	}
}

// pages in five encodings, each declared in the HTTP header, in a <meta>
// tag, or not at all.
var encodedPages = []struct {
	name   string
	enc    encoding.Encoding
	label  string // the name Decode reports
	lang   string
	text   []string
	header string
}{
	{"euc-jp", japanese.EUCJP, "euc-jp", "ja", []string{"日本の川と水門の歴史について、ひらがなとカタカナで書かれた文章です。", "江戸時代には多くの堤防が築かれました。"}, "EUC-JP"},
	{"shift_jis", japanese.ShiftJIS, "shift_jis", "ja", []string{"東京の運河は、かつて物流の中心でした。", "今でも多くの橋が残っています。"}, "Shift_JIS"},
	{"gb18030", simplifiedchinese.GB18030, "gb18030", "zh", []string{"长江是中国最长的河流，流经十一个省份。", "三峡大坝是世界上最大的水利工程之一。"}, "GB18030"},
	{"windows-1251", charmap.Windows1251, "windows-1251", "ru", []string{"Волга — самая длинная река в Европе, она впадает в Каспийское море.", "На реке построено много плотин и шлюзов."}, "windows-1251"},
	{"latin-1", charmap.ISO8859_1, "windows-1252", "fr", []string{"L'écluse du canal était fermée pendant l'été à cause de la sécheresse.", "Les péniches attendaient près du pont, à côté des saules."}, "ISO-8859-1"},
}

func TestEncodings(t *testing.T) {
	var e Extractor
	for _, p := range encodedPages {
		for _, how := range []string{"header", "meta", "detected"} {
			t.Run(p.name+"/"+how, func(t *testing.T) {
				meta, ctype := "", "text/html"
				switch how {
				case "header":
					ctype = "text/html; charset=" + p.header
				case "meta":
					meta = `<meta http-equiv="Content-Type" content="text/html; charset=` + p.header + `">`
				}
				page := "<!DOCTYPE html><html lang=\"" + p.lang + "\"><head>" + meta + "<title>" + p.text[1] + "</title></head><body><p>" +
					strings.Join(p.text, "</p><p>") + "</p></body></html>"
				raw, err := p.enc.NewEncoder().Bytes([]byte(page))
				if err != nil {
					t.Fatal(err)
				}
				if string(raw) == page {
					t.Fatal("the page is the same in UTF-8")
				}
				r := e.Extract(raw, ctype, Plain)
				if r.Text != strings.Join(p.text, "\n") || r.Title != p.text[1] || r.Lang != p.lang {
					t.Fatalf("got %q, title %q, lang %q", r.Text, r.Title, r.Lang)
				}
				if r.Charset != p.label || r.Source != how {
					t.Fatalf("charset %q from %s", r.Charset, r.Source)
				}
			})
		}
	}
}

func TestHeaderCharsetWinsOverMeta(t *testing.T) {
	raw, _ := charmap.Windows1251.NewEncoder().Bytes([]byte(`<meta charset="utf-8"><p>Привет, мир, как дела у всех?</p>`))
	var e Extractor
	r := e.Extract(raw, "text/html; charset=windows-1251", Plain)
	if r.Text != "Привет, мир, как дела у всех?" || r.Source != FromHeader {
		t.Fatalf("got %q from %s", r.Text, r.Source)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
