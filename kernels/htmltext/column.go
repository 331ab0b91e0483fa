package htmltext

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Columns are the columns ExtractColumn builds, one value per input row;
// the caller releases them. HTML is nil unless asked for.
type Columns struct {
	Text, Title, Lang, Charset, HTML *array.String
}

// Release releases every column.
func (c Columns) Release() {
	for _, a := range []*array.String{c.Text, c.Title, c.Lang, c.Charset, c.HTML} {
		if a != nil {
			a.Release()
		}
	}
}

// Outcome is what became of one row.
type Outcome uint8

// The outcomes of a row.
const (
	Extracted Outcome = iota // some text came out
	Empty                    // the page has no text to keep
	NotHTML                  // the content type is not a page
	NoPayload                // the payload is null
)

var extractors = sync.Pool{New: func() any { return new(Extractor) }}

// ExtractColumn extracts the text of every page of payload, whose HTTP
// Content-Type values are in contentType (nil when unknown). Rows with a
// null payload, and pages that are not HTML, get nulls; empty extractions
// get "" text. keepHTML adds the pages decoded to UTF-8.
func ExtractColumn(mem memory.Allocator, payload *array.Binary, contentType *array.String, mode Mode, keepHTML bool) (Columns, []Outcome) {
	n := payload.Len()
	e := extractors.Get().(*Extractor)
	defer extractors.Put(e)
	b := [5]*array.StringBuilder{}
	for i := range b {
		if i == 4 && !keepHTML {
			break
		}
		b[i] = array.NewStringBuilder(mem)
		defer b[i].Release()
		b[i].Reserve(n)
	}
	if offs := payload.ValueOffsets(); len(offs) > 0 {
		b[0].ReserveData(int(offs[len(offs)-1]-offs[0]) / 2) // text is usually well under half the page
	}
	outcomes := make([]Outcome, n)
	for i := 0; i < n; i++ {
		if payload.IsNull(i) {
			outcomes[i] = NoPayload
			appendNulls(b[:])
			continue
		}
		ctype := ""
		if contentType != nil && contentType.IsValid(i) {
			ctype = contentType.Value(i)
		}
		r, text := e.extract(payload.Value(i), ctype, mode)
		if r.NotHTML {
			outcomes[i] = NotHTML
			appendNulls(b[:])
			continue
		}
		if len(text) == 0 {
			outcomes[i] = Empty
		}
		b[0].BinaryBuilder.Append(text)
		appendOrNull(b[1], r.Title)
		appendOrNull(b[2], r.Lang)
		appendOrNull(b[3], r.Charset)
		if b[4] != nil {
			b[4].BinaryBuilder.Append(r.HTML)
		}
	}
	c := Columns{Text: b[0].NewStringArray(), Title: b[1].NewStringArray(), Lang: b[2].NewStringArray(), Charset: b[3].NewStringArray()}
	if b[4] != nil {
		c.HTML = b[4].NewStringArray()
	}
	return c, outcomes
}

func appendNulls(b []*array.StringBuilder) {
	for _, x := range b {
		if x != nil {
			x.AppendNull()
		}
	}
}

func appendOrNull(b *array.StringBuilder, v string) {
	if v == "" {
		b.AppendNull()
	} else {
		b.Append(v)
	}
}
