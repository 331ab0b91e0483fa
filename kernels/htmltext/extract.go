package htmltext

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Mode chooses what text an extraction keeps.
type Mode uint8

// The extraction modes.
const (
	// Plain keeps all visible text, one line per block.
	Plain Mode = iota
	// Main keeps the main content: navigation, headers and footers,
	// cookie banners, link lists and other page furniture are dropped.
	Main
)

// ParseMode maps "plain" or "main" onto a Mode.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "plain", "":
		return Plain, nil
	case "main":
		return Main, nil
	}
	return 0, fmt.Errorf("unknown extraction mode %q (want plain or main)", s)
}

func (m Mode) String() string { return [...]string{"plain", "main"}[m] }

// Result is what an extraction found in one page.
type Result struct {
	Text    string // "" when the page holds no text to keep
	Title   string // of the <title> element
	Lang    string // the lang attribute of <html>
	Charset string // the encoding the page was decoded from
	Source  string // where the encoding was learnt: bom, header, meta, detected
	HTML    []byte // the page as UTF-8; valid until the next call
	// NotHTML is set when contentType names a media type that is neither
	// HTML, XML nor plain text (an image, a PDF...); nothing is extracted.
	NotHTML bool
}

// Extractor extracts text from HTML pages, reusing its buffers from one
// page to the next. It is not safe for concurrent use; use one per
// goroutine.
type Extractor struct {
	p    page
	out  bytes.Buffer
	keep []bool
}

// Extract decodes body (see Decode; contentType is the HTTP Content-Type
// header, or "") and extracts its text.
// A text/plain body is decoded and returned as it is.
func (e *Extractor) Extract(body []byte, contentType string, mode Mode) Result {
	r, text := e.extract(body, contentType, mode)
	r.Text = string(text)
	return r
}

// extract is Extract with the text left out of the Result and returned as
// bytes, valid until the next call, for callers that copy it anyway.
func (e *Extractor) extract(body []byte, contentType string, mode Mode) (Result, []byte) {
	kind := mediaKind(contentType)
	if kind == otherMedia {
		return Result{NotHTML: true}, nil
	}
	doc, name, source := Decode(body, contentType)
	if kind == plainText {
		return Result{Charset: name, Source: source, HTML: doc}, bytes.TrimSpace(doc)
	}
	r, text := e.extractUTF8(doc, mode)
	r.Charset, r.Source, r.HTML = name, source, doc
	return r, text
}

// ExtractUTF8 extracts the text of a page already in UTF-8.
func (e *Extractor) ExtractUTF8(doc []byte, mode Mode) Result {
	r, text := e.extractUTF8(doc, mode)
	r.Text = string(text)
	return r
}

// extractUTF8 is ExtractUTF8 with the text returned apart, as extract.
func (e *Extractor) extractUTF8(doc []byte, mode Mode) (Result, []byte) {
	e.p.parse(doc)
	blocks := e.p.blocks
	e.keep = e.keep[:0]
	for range blocks {
		e.keep = append(e.keep, true)
	}
	if mode == Main {
		e.selectMain()
	}
	e.out.Reset()
	for i, b := range blocks {
		if !e.keep[i] {
			continue
		}
		if e.out.Len() > 0 {
			e.out.WriteByte('\n')
		}
		e.out.Write(e.p.text[b.start:b.end])
	}
	return Result{Title: e.p.title, Lang: e.p.lang}, e.out.Bytes()
}

// selectMain marks the blocks of the main content, in the spirit of
// trafilatura: page furniture (by element and by class, id and role) goes;
// when an <article>, <main> or a like-named element holds most of the
// text, only its blocks stay; link lists, cookie notices and fragments too
// short to be prose go; a heading stays only when text it heads stays.
func (e *Extractor) selectMain() {
	p := &e.p
	best := p.bestMain()
	for i, b := range p.blocks {
		text := p.text[b.start:b.end]
		n := len(text)
		switch {
		case b.boiler:
			e.keep[i] = false
		case best > 0 && !p.within(b.main, best):
			e.keep[i] = false
		case b.linkChars*2 > n:
			e.keep[i] = false
		case isCookieNotice(text):
			e.keep[i] = false
		case !b.heading && tooShort(text):
			e.keep[i] = false
		}
	}
	// A heading stays when the next block kept is not a heading.
	for i := len(p.blocks) - 1; i >= 0; i-- {
		if !p.blocks[i].heading || !e.keep[i] {
			continue
		}
		e.keep[i] = false
		for j := i + 1; j < len(p.blocks); j++ {
			if e.keep[j] {
				e.keep[i] = !p.blocks[j].heading
				break
			}
		}
	}
}

// bestMain returns the main-like element to keep the text of, 0 for none:
// the one holding the most text (with what is nested in it), or the
// innermost one inside it that holds nearly as much. It must hold a fair
// share of the page's text to be trusted.
func (p *page) bestMain() int {
	if len(p.mains) == 0 {
		return 0
	}
	total := make([]int, len(p.mains))
	for id := range p.mains {
		for m := id + 1; m > 0; m = p.parent[m-1] {
			total[m-1] += p.mains[id]
		}
	}
	best := 0
	for id := range total {
		if best == 0 || total[id] > total[best-1] {
			best = id + 1
		}
	}
	for {
		next := 0
		for id := range total {
			if p.parent[id] == best && total[id]*10 >= total[best-1]*7 {
				next = id + 1
			}
		}
		if next == 0 {
			break
		}
		best = next
	}
	all := 0
	for _, b := range p.blocks {
		if !b.boiler {
			all += b.end - b.start
		}
	}
	if total[best-1]*4 < all || total[best-1] < 200 {
		return 0
	}
	return best
}

// within reports whether main-like element m is best or nested in it.
func (p *page) within(m, best int) bool {
	for ; m > 0; m = p.parent[m-1] {
		if m == best {
			return true
		}
	}
	return false
}

// tooShort reports a fragment that is not prose: fewer than four words and
// no sentence end.
func tooShort(text []byte) bool {
	if bytes.Count(text, []byte(" ")) >= 3 {
		return false
	}
	last := string(bytes.TrimRight(text, "\"'”’)»"))
	for _, end := range []string{".", "!", "?", "。", "！", "？", "…", ":"} {
		if strings.HasSuffix(last, end) {
			return false
		}
	}
	// Scripts without spaces between words (Chinese, Japanese) make
	// sentences of one "word": judge by length too.
	return utf8.RuneCount(text) < 20
}

// isCookieNotice reports a short block that asks for consent to cookies.
func isCookieNotice(text []byte) bool {
	if len(text) > 600 {
		return false
	}
	lower := bytes.ToLower(text)
	if !bytes.Contains(lower, []byte("cookie")) {
		return false
	}
	for _, w := range []string{"accept", "consent", "we use", "this site uses", "this website uses", "agree", "privacy"} {
		if bytes.Contains(lower, []byte(w)) {
			return true
		}
	}
	return false
}

type media uint8

const (
	htmlMedia media = iota // also unknown and XML types
	plainText
	otherMedia
)

// mediaKind sorts a Content-Type header value.
func mediaKind(contentType string) media {
	t, _, _ := strings.Cut(contentType, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	switch {
	case t == "" || t == "text/html" || strings.Contains(t, "xml") || t == "application/octet-stream" || t == "unknown/unknown":
		return htmlMedia
	case t == "text/plain":
		return plainText
	}
	return otherMedia
}
