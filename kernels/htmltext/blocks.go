package htmltext

import (
	"bytes"
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// block is a run of text between block-level boundaries, with what the
// elements around it say about it.
type block struct {
	start, end int       // the text is page.text[start:end]
	linkChars  int       // characters inside <a>
	tag        atom.Atom // the innermost block element around it
	boiler     bool      // inside navigation, a footer, a banner, a form...
	main       int       // id of the innermost <article>/<main>-like element around it, 0 if none
	heading    bool
}

// page is what one pass of the tokenizer makes of an HTML document.
type page struct {
	text   []byte // every block's text, one after the other
	blocks []block
	title  string
	lang   string
	mains  []int  // characters of text directly in each main-like element, by id - 1
	parent []int  // the main-like element around each one, 0 if none, by id - 1
	stack  []open // the open elements while parsing, kept for the next page
}

// open is an element on the stack of open elements.
type open struct {
	tag    atom.Atom
	name   string // for elements without an atom
	skip   bool   // invisible: its text is dropped
	boiler bool
	main   int
	link   bool
	pre    bool
}

// skipped are elements whose content is never visible text.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true, atom.Svg: true,
	atom.Math: true, atom.Iframe: true, atom.Object: true, atom.Embed: true, atom.Canvas: true,
	atom.Select: true, atom.Textarea: true, atom.Head: true, atom.Datalist: true, atom.Button: true,
}

// blockTags end a line before and after them.
var blockTags = map[atom.Atom]bool{
	atom.Address: true, atom.Article: true, atom.Aside: true, atom.Blockquote: true, atom.Body: true,
	atom.Dd: true, atom.Details: true, atom.Dialog: true, atom.Div: true, atom.Dl: true, atom.Dt: true,
	atom.Fieldset: true, atom.Figcaption: true, atom.Figure: true, atom.Footer: true, atom.Form: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Header: true, atom.Hr: true, atom.Li: true, atom.Main: true, atom.Nav: true, atom.Ol: true,
	atom.P: true, atom.Pre: true, atom.Section: true, atom.Summary: true, atom.Table: true,
	atom.Tbody: true, atom.Td: true, atom.Tfoot: true, atom.Th: true, atom.Thead: true, atom.Tr: true,
	atom.Ul: true, atom.Caption: true, atom.Br: true, atom.Html: true, atom.Center: true, atom.Option: true,
}

// voidTags have no end tag.
var voidTags = map[atom.Atom]bool{
	atom.Area: true, atom.Base: true, atom.Br: true, atom.Col: true, atom.Embed: true, atom.Hr: true,
	atom.Img: true, atom.Input: true, atom.Link: true, atom.Meta: true, atom.Source: true,
	atom.Track: true, atom.Wbr: true, atom.Param: true,
}

// boilerTags are elements that hold navigation and page furniture.
var boilerTags = map[atom.Atom]bool{
	atom.Nav: true, atom.Footer: true, atom.Aside: true, atom.Form: true, atom.Header: true, atom.Menu: true,
}

// boilerWords in a class, id or role mark page furniture.
var boilerWords = []string{
	"cookie", "consent", "gdpr", "banner", "navbar", "navigation", "nav-", "-nav", "menu", "breadcrumb",
	"footer", "sidebar", "share", "social", "related", "newsletter", "subscribe", "advert", "sponsor",
	"promo", "popup", "modal", "comment", "widget", "skip-link", "pagination", "tags", "login", "signup",
	"contentinfo", "complementary",
}

// mainWords in a class, id, role or itemprop mark the main content.
var mainWords = []string{"articlebody", "article-body", "article-content", "post-content", "entry-content", "story-body", "main-content"}

// parse runs the tokenizer over a UTF-8 document and collects its blocks.
func (p *page) parse(doc []byte) {
	p.text, p.blocks, p.title, p.lang, p.mains, p.parent = p.text[:0], p.blocks[:0], "", "", p.mains[:0], p.parent[:0]
	z := html.NewTokenizer(bytes.NewReader(doc))
	stack := p.stack[:0]
	defer func() { p.stack = stack[:0] }()
	var cur block // the block being filled
	cur.start = 0
	space := true // the text so far ends in white space
	inTitle := false
	top := func() open {
		if len(stack) == 0 {
			return open{}
		}
		return stack[len(stack)-1]
	}
	flush := func() {
		for cur.end > cur.start && p.text[cur.end-1] == ' ' {
			cur.end--
		}
		p.text = p.text[:cur.end]
		if cur.end > cur.start && len(bytes.TrimFunc(p.text[cur.start:], unicode.IsSpace)) == 0 {
			p.text = p.text[:cur.start] // only white space that HTML does not collapse (no-break, ideographic)
			cur.end = cur.start
		}
		if cur.end > cur.start {
			t := top()
			cur.boiler, cur.main = t.boiler, t.main
			p.blocks = append(p.blocks, cur)
			if t.main > 0 {
				p.mains[t.main-1] += cur.end - cur.start
			}
		}
		cur = block{start: len(p.text), end: len(p.text)}
		space = true
	}
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			flush()
			return
		case html.TextToken:
			t := top()
			if inTitle {
				if p.title == "" {
					p.title = collapse(string(z.Text()))
				}
				continue
			}
			if t.skip {
				continue
			}
			text := z.Text()
			if t.pre {
				p.text = append(p.text, text...)
				cur.end = len(p.text)
				space = len(text) > 0 && isSpace(text[len(text)-1])
				continue
			}
			n := len(p.text)
			p.text, space = appendCollapsed(p.text, text, space)
			if t.link {
				cur.linkChars += len(p.text) - n
			}
			cur.end = len(p.text)
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Title {
				inTitle = tt == html.StartTagToken && p.title == ""
				continue
			}
			if blockTags[a] {
				flush()
			}
			if voidTags[a] {
				continue
			}
			parent := top()
			o := open{tag: a, skip: parent.skip || skipped[a],
				boiler: parent.boiler || boilerTags[a] && !(a == atom.Header && parent.main > 0), // an article's own header is content
				main:   parent.main, link: parent.link || a == atom.A, pre: parent.pre || a == atom.Pre}
			if a == 0 {
				o.name = string(name)
			}
			if a == atom.Article || a == atom.Main {
				o.main = p.newMain(o.main)
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				o = p.attr(o, a, string(k), v)
			}
			if tt == html.SelfClosingTagToken {
				continue // <x/> is taken to mean an empty element
			}
			stack = append(stack, o)
			if blockTags[a] {
				cur.tag = a
				cur.heading = isHeading(a)
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			if a == atom.Title {
				inTitle = false
				continue
			}
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i].tag == a && (a != 0 || stack[i].name == string(name)) {
					if blockTags[a] {
						flush()
					}
					stack = stack[:i]
					break
				}
			}
			if a == atom.P || a == atom.Br {
				flush()
			}
		}
	}
}

// attr applies one attribute of a start tag to the open element.
func (p *page) attr(o open, a atom.Atom, key string, v []byte) open {
	switch key {
	case "hidden":
		o.skip = true
	case "aria-hidden":
		o.skip = o.skip || bytes.EqualFold(v, []byte("true"))
	case "style":
		s := strings.ToLower(strings.ReplaceAll(string(v), " ", ""))
		o.skip = o.skip || strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden")
	case "lang":
		if a == atom.Html && p.lang == "" {
			p.lang = strings.TrimSpace(string(v))
		}
	case "class", "id", "role", "itemprop":
		s := strings.ToLower(string(v))
		if key == "role" && s == "main" || key == "itemprop" && s == "articlebody" || containsAny(s, mainWords) {
			if o.main == 0 || a != atom.Article && a != atom.Main {
				o.main = p.newMain(o.main)
			}
			return o
		}
		if key == "role" && (s == "navigation" || s == "banner" || s == "contentinfo" || s == "complementary" || s == "dialog") ||
			key != "role" && containsAny(s, boilerWords) {
			o.boiler = true
		}
	}
	return o
}

func (p *page) newMain(parent int) int {
	p.mains = append(p.mains, 0)
	p.parent = append(p.parent, parent)
	return len(p.mains)
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func isHeading(a atom.Atom) bool {
	switch a {
	case atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6:
		return true
	}
	return false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f'
}

// appendCollapsed appends text with each run of white space made one
// space, none at the start of a block.
func appendCollapsed(dst, text []byte, space bool) ([]byte, bool) {
	for _, c := range text {
		if isSpace(c) {
			if !space {
				dst = append(dst, ' ')
				space = true
			}
			continue
		}
		dst = append(dst, c)
		space = false
	}
	return dst, space
}

// collapse trims s and makes each run of white space one space.
func collapse(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
