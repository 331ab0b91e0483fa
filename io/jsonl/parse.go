package jsonl

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sluice-data/sluice/schema"
)

// Kind is the JSON type of a parsed value.
type Kind uint8

// The JSON kinds.
const (
	KindNull Kind = iota
	KindBool
	KindNumber
	KindString
	KindObject
	KindArray
)

// ErrMalformedJSON is the cause of every syntax error the parser reports.
var ErrMalformedJSON = errors.New("malformed JSON")

// ErrTooDeep is reported when a value nests deeper than the parser's limit.
var ErrTooDeep = errors.New("JSON nested too deeply")

// DefaultMaxDepth bounds object and array nesting.
const DefaultMaxDepth = 128

// Node is one value of a parsed document. Nodes refer to each other by index
// into the document; use the Doc methods to read them.
type Node struct {
	Kind  Kind
	Bool  bool // KindBool: the value
	IsInt bool // KindNumber: no fraction and no exponent
	inSrc bool // the bytes live in the source line, not in the document buffer
	key   span // the member name when this node is an object member
	val   span // string (unescaped) or number (raw) bytes
	first int32
	n     int32 // number of children (containers)
}

type span struct{ off, len int32 }

// Doc is a JSON value parsed into a flat, reusable arena: parsing the next
// line reuses the memory of the previous one. A Doc is not safe for
// concurrent use; each worker owns one.
type Doc struct {
	MaxDepth int
	// Repaired counts the invalid UTF-8 sequences and lone surrogates that
	// the last Parse replaced with U+FFFD.
	Repaired int

	src   []byte
	nodes []Node
	kids  []int32
	stack []int32
	buf   []byte
	pos   int
	depth int
}

// SyntaxError is a positioned parse failure inside one line.
type SyntaxError struct {
	Offset int // byte offset within the line
	Msg    string
	Err    error
}

func (e *SyntaxError) Error() string {
	if e.Err == ErrMalformedJSON {
		return fmt.Sprintf("malformed JSON: %s at byte %d", e.Msg, e.Offset)
	}
	return fmt.Sprintf("%s at byte %d", e.Msg, e.Offset)
}

func (e *SyntaxError) Unwrap() error { return e.Err }

// Parse parses src, one complete JSON value surrounded by optional
// whitespace, and returns the index of the root node (always 0). src must
// stay unchanged while the document is in use.
func (d *Doc) Parse(src []byte) (int32, error) {
	d.src = src
	d.nodes = d.nodes[:0]
	d.kids = d.kids[:0]
	d.stack = d.stack[:0]
	d.buf = d.buf[:0]
	d.pos = 0
	d.depth = 0
	d.Repaired = 0
	if d.MaxDepth <= 0 {
		d.MaxDepth = DefaultMaxDepth
	}
	d.skipWS()
	root, err := d.value(span{})
	if err != nil {
		return 0, err
	}
	d.skipWS()
	if d.pos != len(d.src) {
		return 0, d.fail("unexpected data after the value")
	}
	return root, nil
}

// Node returns node i.
func (d *Doc) Node(i int32) *Node { return &d.nodes[i] }

// Member returns the node at a dotted path of object members below node
// (meta.source), and false when a part is missing or not an object's.
func (d *Doc) Member(node int32, path string) (int32, bool) {
	if path == "" {
		return 0, false
	}
	for _, part := range strings.Split(path, ".") {
		if d.Node(node).Kind != KindObject {
			return 0, false
		}
		found := false
		for _, c := range d.Children(node) {
			if string(d.Key(c)) == part {
				node, found = c, true
				break
			}
		}
		if !found {
			return 0, false
		}
	}
	return node, true
}

// Children returns the indices of the children of container node i.
func (d *Doc) Children(i int32) []int32 {
	n := &d.nodes[i]
	return d.kids[n.first : n.first+n.n]
}

// Key returns the member name of node i (empty unless i is an object member).
func (d *Doc) Key(i int32) []byte {
	k := d.nodes[i].key
	return d.buf[k.off : k.off+k.len]
}

// Bytes returns the unescaped string of a string node, or the raw text of a
// number node. The slice is valid until the next Parse.
func (d *Doc) Bytes(i int32) []byte {
	n := &d.nodes[i]
	if n.inSrc {
		return d.src[n.val.off : n.val.off+n.val.len]
	}
	return d.buf[n.val.off : n.val.off+n.val.len]
}

// Int64 parses an integer number node. ok is false when the number is not
// an integer or does not fit in int64. It allocates nothing.
func (d *Doc) Int64(i int32) (v int64, ok bool) {
	if !d.nodes[i].IsInt {
		return 0, false
	}
	return parseInt64(d.Bytes(i))
}

// Float64 parses a number node as float64.
func (d *Doc) Float64(i int32) (float64, error) {
	return strconv.ParseFloat(unsafeString(d.Bytes(i)), 64)
}

// FloatFits parses a number node as float64, with ok false when the
// float64 would not stand for the number: an integer beyond ±2^53 (which
// would read back as another integer), a number beyond the range of
// float64, or a nonzero number so small that it would become zero. Other
// numbers round to the nearest float64 as usual. It allocates nothing for
// the numbers it accepts.
func (d *Doc) FloatFits(i int32) (v float64, ok bool) {
	n := &d.nodes[i]
	if n.Kind != KindNumber {
		return 0, false
	}
	s := d.Bytes(i)
	if n.IsInt {
		iv, ok := parseInt64(s)
		if !ok || iv > schema.MaxExactInt || iv < -schema.MaxExactInt {
			return 0, false
		}
		return float64(iv), true
	}
	v, err := strconv.ParseFloat(unsafeString(s), 64)
	if err != nil || (v == 0 && !zeroMantissa(s)) {
		return 0, false
	}
	return v, true
}

// parseInt64 parses s, an integer as the parser accepted it: an optional
// minus sign and digits without leading zeros.
func parseInt64(s []byte) (int64, bool) {
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	// 19 digits hold every int64 and overflow no uint64.
	if len(s) > 19 {
		return 0, false
	}
	var u uint64
	for _, c := range s {
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}

// zeroMantissa reports whether every digit before the exponent of the
// number s is zero.
func zeroMantissa(s []byte) bool {
	for _, c := range s {
		switch {
		case c == 'e' || c == 'E':
			return true
		case c >= '1' && c <= '9':
			return false
		}
	}
	return true
}

// AppendJSON appends the compact JSON text of node i to dst.
func (d *Doc) AppendJSON(dst []byte, i int32) []byte {
	n := &d.nodes[i]
	switch n.Kind {
	case KindNull:
		return append(dst, "null"...)
	case KindBool:
		if n.Bool {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case KindNumber:
		return append(dst, d.Bytes(i)...)
	case KindString:
		return AppendQuoted(dst, d.Bytes(i))
	case KindArray:
		dst = append(dst, '[')
		for j, c := range d.Children(i) {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = d.AppendJSON(dst, c)
		}
		return append(dst, ']')
	default:
		dst = append(dst, '{')
		for j, c := range d.Children(i) {
			if j > 0 {
				dst = append(dst, ',')
			}
			dst = AppendQuoted(dst, d.Key(c))
			dst = append(dst, ':')
			dst = d.AppendJSON(dst, c)
		}
		return append(dst, '}')
	}
}

func (d *Doc) fail(msg string) error {
	return &SyntaxError{Offset: d.pos, Msg: msg, Err: ErrMalformedJSON}
}

func (d *Doc) skipWS() {
	for d.pos < len(d.src) {
		switch d.src[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *Doc) newNode(kind Kind, key span) int32 {
	d.nodes = append(d.nodes, Node{Kind: kind, key: key})
	return int32(len(d.nodes) - 1)
}

func (d *Doc) value(key span) (int32, error) {
	if d.pos >= len(d.src) {
		return 0, d.fail("unexpected end of input")
	}
	switch c := d.src[d.pos]; {
	case c == '{':
		return d.container(KindObject, key)
	case c == '[':
		return d.container(KindArray, key)
	case c == '"':
		n := d.newNode(KindString, key)
		inSrc, val, err := d.str()
		if err != nil {
			return 0, err
		}
		d.nodes[n].inSrc, d.nodes[n].val = inSrc, val
		return n, nil
	case c == 't':
		return d.literal("true", KindBool, true, key)
	case c == 'f':
		return d.literal("false", KindBool, false, key)
	case c == 'n':
		return d.literal("null", KindNull, false, key)
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number(key)
	default:
		return 0, d.fail(fmt.Sprintf("unexpected character %q", c))
	}
}

func (d *Doc) literal(word string, kind Kind, b bool, key span) (int32, error) {
	if len(d.src)-d.pos < len(word) || string(d.src[d.pos:d.pos+len(word)]) != word {
		return 0, d.fail("invalid literal")
	}
	d.pos += len(word)
	n := d.newNode(kind, key)
	d.nodes[n].Bool = b
	return n, nil
}

func (d *Doc) number(key span) (int32, error) {
	s, start := d.src, d.pos
	i := start
	if s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		d.pos = i
		return 0, d.fail("invalid number")
	}
	isInt := true
	if i < len(s) && s[i] == '.' {
		isInt = false
		i++
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			d.pos = i
			return 0, d.fail("invalid number: no digits after the decimal point")
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		isInt = false
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == j {
			d.pos = i
			return 0, d.fail("invalid number: no digits in the exponent")
		}
	}
	d.pos = i
	n := d.newNode(KindNumber, key)
	nd := &d.nodes[n]
	nd.IsInt, nd.inSrc, nd.val = isInt, true, span{int32(start), int32(i - start)}
	return n, nil
}

func (d *Doc) container(kind Kind, key span) (int32, error) {
	d.depth++
	if d.depth > d.MaxDepth {
		return 0, &SyntaxError{Offset: d.pos, Msg: fmt.Sprintf("nesting deeper than %d levels", d.MaxDepth), Err: ErrTooDeep}
	}
	n := d.newNode(kind, key)
	d.pos++ // '{' or '['
	base := len(d.stack)
	closer := byte(']')
	if kind == KindObject {
		closer = '}'
	}
	d.skipWS()
	if d.pos < len(d.src) && d.src[d.pos] == closer {
		d.pos++
	} else {
		for {
			var k span
			if kind == KindObject {
				d.skipWS()
				if d.pos >= len(d.src) || d.src[d.pos] != '"' {
					return 0, d.fail("expected a member name")
				}
				inSrc, name, err := d.str()
				if err != nil {
					return 0, err
				}
				k = d.ownSpan(inSrc, name)
				d.skipWS()
				if d.pos >= len(d.src) || d.src[d.pos] != ':' {
					return 0, d.fail("expected ':' after a member name")
				}
				d.pos++
			}
			d.skipWS()
			c, err := d.value(k)
			if err != nil {
				return 0, err
			}
			d.stack = append(d.stack, c)
			d.skipWS()
			if d.pos >= len(d.src) {
				return 0, d.fail("unexpected end of input")
			}
			if d.src[d.pos] == ',' {
				d.pos++
				continue
			}
			if d.src[d.pos] == closer {
				d.pos++
				break
			}
			return 0, d.fail(fmt.Sprintf("expected ',' or '%c'", closer))
		}
	}
	nd := &d.nodes[n]
	nd.first = int32(len(d.kids))
	nd.n = int32(len(d.stack) - base)
	d.kids = append(d.kids, d.stack[base:]...)
	d.stack = d.stack[:base]
	d.depth--
	return n, nil
}

// ownSpan moves a span that points into the source into the document
// buffer, so that Key can always read from the buffer.
func (d *Doc) ownSpan(inSrc bool, s span) span {
	if !inSrc {
		return s
	}
	off := int32(len(d.buf))
	d.buf = append(d.buf, d.src[s.off:s.off+s.len]...)
	return span{off, s.len}
}

// needsCare marks the bytes that end the fast path of string scanning.
var needsCare = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	for c := 0x80; c < 0x100; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

const (
	lo7 = 0x0101010101010101
	hi7 = 0x8080808080808080
)

// skipPlain returns the index of the first byte at or after i that may
// need care (a quote, a backslash, a control character or a non-ASCII
// byte), looking at eight bytes at a time; it may stop early, never late.
func skipPlain(s []byte, i int) int {
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		quote := w ^ (lo7 * '"')
		slash := w ^ (lo7 * '\\')
		// A byte is flagged when it is zero after the xor (quote, backslash),
		// below 0x20, or has its high bit set.
		special := ((quote - lo7) &^ quote) | ((slash - lo7) &^ slash) | (w - lo7*0x20) | w
		if special&hi7 != 0 {
			return i
		}
	}
	return i
}

// str parses the string at d.pos. A string without escapes and with valid
// UTF-8 is referenced in the source; any other is unescaped into the
// document buffer.
func (d *Doc) str() (inSrc bool, s span, err error) {
	src := d.src
	start := d.pos + 1
	i := start
	for {
		i = skipPlain(src, i)
		for i < len(src) && !needsCare[src[i]] {
			i++
		}
		if i >= len(src) {
			d.pos = i
			return false, span{}, d.fail("unterminated string")
		}
		c := src[i]
		if c == '"' {
			d.pos = i + 1
			return true, span{int32(start), int32(i - start)}, nil
		}
		if c < 0x80 { // backslash or control character
			break
		}
		r, size := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && size == 1 {
			break
		}
		i += size
	}
	// Slow path: unescape into the buffer from here on.
	off := len(d.buf)
	d.buf = append(d.buf, src[start:i]...)
	for {
		// Copy the run of plain bytes up to the next one that needs care.
		j := skipPlain(src, i)
		for j < len(src) && !needsCare[src[j]] {
			j++
		}
		d.buf = append(d.buf, src[i:j]...)
		i = j
		if i >= len(src) {
			d.pos = i
			return false, span{}, d.fail("unterminated string")
		}
		c := src[i]
		switch {
		case c == '"':
			d.pos = i + 1
			return false, span{int32(off), int32(len(d.buf) - off)}, nil
		case c == '\\':
			n, err := d.escape(i)
			if err != nil {
				return false, span{}, err
			}
			i = n
		case c < 0x20:
			d.pos = i
			return false, span{}, d.fail("control character in string")
		case c < 0x80:
			d.buf = append(d.buf, c)
			i++
		default:
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && size == 1 {
				d.buf = append(d.buf, "\uFFFD"...)
				d.Repaired++
			} else {
				d.buf = append(d.buf, src[i:i+size]...)
			}
			i += size
		}
	}
}

// escape decodes the escape sequence at src[i] (a backslash) into the
// buffer and returns the index after it.
func (d *Doc) escape(i int) (int, error) {
	src := d.src
	if i+1 >= len(src) {
		d.pos = i
		return 0, d.fail("unterminated escape")
	}
	var b byte
	switch src[i+1] {
	case '"', '\\', '/':
		b = src[i+1]
	case 'b':
		b = '\b'
	case 'f':
		b = '\f'
	case 'n':
		b = '\n'
	case 'r':
		b = '\r'
	case 't':
		b = '\t'
	case 'u':
		r, ok := hex4(src, i+2)
		if !ok {
			d.pos = i
			return 0, d.fail("invalid \\u escape")
		}
		next := i + 6
		if utf16IsHigh(r) {
			if lo, ok := hex4(src, next+2); ok && next+1 < len(src) && src[next] == '\\' && src[next+1] == 'u' && utf16IsLow(lo) {
				r = (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000
				next += 6
			} else {
				r = utf8.RuneError
				d.Repaired++
			}
		} else if utf16IsLow(r) {
			r = utf8.RuneError
			d.Repaired++
		}
		d.buf = utf8.AppendRune(d.buf, r)
		return next, nil
	default:
		d.pos = i
		return 0, d.fail(fmt.Sprintf("invalid escape \\%c", src[i+1]))
	}
	d.buf = append(d.buf, b)
	return i + 2, nil
}

func utf16IsHigh(r rune) bool { return r >= 0xD800 && r < 0xDC00 }
func utf16IsLow(r rune) bool  { return r >= 0xDC00 && r < 0xE000 }

func hex4(s []byte, i int) (rune, bool) {
	if i+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range s[i : i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}
