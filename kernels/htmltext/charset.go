package htmltext

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// Where a page's encoding was learnt.
const (
	FromBOM       = "bom"
	FromHeader    = "header"
	FromMeta      = "meta"
	FromDetection = "detected"
)

// Decode converts a page to UTF-8. The encoding comes from a byte order
// mark, then the charset parameter of contentType (the HTTP Content-Type
// header), then a <meta charset> or <meta http-equiv> in the first 1024
// bytes, and otherwise from Detect. It returns the UTF-8 bytes (body itself
// when it already is UTF-8), the WHATWG name of the encoding and where it
// was learnt. Bytes that are invalid in the encoding become U+FFFD.
func Decode(body []byte, contentType string) (out []byte, name, source string) {
	enc, name, certain := charset.DetermineEncoding(body, contentType)
	switch {
	case certain && hasBOM(body):
		source = FromBOM
	case certain:
		source = FromHeader
	default:
		valid := utf8.Valid(body) // one pass over the page, for all that follows
		if declaresCharset(body) && valid == (name == "utf-8") {
			// A declaration found by the prescan, unless it disagrees with
			// the bytes the way only a guess does: "charset" was mentioned
			// without a <meta> that DetermineEncoding could use.
			source = FromMeta
		} else {
			// DetermineEncoding guesses from the first 1024 bytes only,
			// between UTF-8 and windows-1252; look at the whole page instead.
			enc, name = detect(body, valid)
			source = FromDetection
		}
		if valid && name == "utf-8" {
			return body, name, source
		}
	}
	return decodeWith(enc, name, body), name, source
}

func decodeWith(enc encoding.Encoding, name string, body []byte) []byte {
	if name == "utf-8" || enc == encoding.Nop {
		if utf8.Valid(body) {
			return body
		}
		return bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return bytes.ToValidUTF8(body, []byte("\uFFFD"))
	}
	return out
}

func hasBOM(b []byte) bool {
	return bytes.HasPrefix(b, []byte{0xef, 0xbb, 0xbf}) || bytes.HasPrefix(b, []byte{0xfe, 0xff}) || bytes.HasPrefix(b, []byte{0xff, 0xfe})
}

// declaresCharset reports whether the first 1024 bytes, where the HTML
// standard looks for a <meta> declaration, mention a charset.
func declaresCharset(b []byte) bool {
	b = b[:min(len(b), 1024)]
	for i := 0; i+7 <= len(b); i++ {
		if (b[i]|0x20) == 'c' && bytes.EqualFold(b[i:i+7], []byte("charset")) {
			return true
		}
	}
	return false
}

// Detect guesses the encoding of a page that declares none: UTF-8 when the
// bytes are valid UTF-8; else Shift_JIS or EUC-JP when they decode without
// error to Japanese text (kana are frequent in any Japanese text); else
// GB18030 when they decode without error to mostly CJK ideographs; else
// windows-1251 when bytes above 0x7F come in runs, as letters of a Cyrillic
// text do; else windows-1252, the superset of Latin-1 that browsers use
// for it.
func Detect(body []byte) (encoding.Encoding, string) {
	return detect(body, utf8.Valid(body))
}

// detect is Detect for a body whose UTF-8 validity is known.
func detect(body []byte, validUTF8 bool) (encoding.Encoding, string) {
	if validUTF8 {
		return encoding.Nop, "utf-8"
	}
	sample := body[:min(len(body), 64<<10)]
	// Do not hold a character cut by the end of the sample against an
	// encoding.
	for i := 0; i < 3 && len(sample) > 0 && sample[len(sample)-1] >= 0x80 && len(sample) < len(body); i++ {
		sample = sample[:len(sample)-1]
	}
	if s := score(japanese.ShiftJIS, sample); s.clean && s.kana >= s.high/10 && s.halfKana < s.high/10 {
		return japanese.ShiftJIS, "shift_jis"
	}
	if s := score(japanese.EUCJP, sample); s.clean && s.kana >= s.high/10 {
		return japanese.EUCJP, "euc-jp"
	}
	if s := score(simplifiedchinese.GB18030, sample); s.clean && s.han >= s.high/2 {
		return simplifiedchinese.GB18030, "gb18030"
	}
	high, inRun := 0, 0
	for i, c := range sample {
		if c >= 0x80 {
			high++
			if i > 0 && sample[i-1] >= 0x80 {
				inRun++
			}
		}
	}
	if high > 0 && inRun*2 >= high {
		return charmap.Windows1251, "windows-1251"
	}
	return charmap.Windows1252, "windows-1252"
}

// decodeScore counts what decoding a sample produced.
type decodeScore struct {
	clean    bool // no invalid sequence
	high     int  // non-ASCII characters
	kana     int  // hiragana and full-width katakana
	halfKana int  // half-width katakana, rare in real text
	han      int  // CJK ideographs
}

func score(enc encoding.Encoding, sample []byte) decodeScore {
	out, err := enc.NewDecoder().Bytes(sample)
	if err != nil {
		return decodeScore{}
	}
	s := decodeScore{clean: true}
	for _, r := range string(out) {
		switch {
		case r < 0x80:
		case r == utf8.RuneError:
			s.clean = false
			return s
		case unicode.Is(unicode.Hiragana, r) || (r >= 0x30a0 && r <= 0x30ff):
			s.high++
			s.kana++
		case r >= 0xff61 && r <= 0xff9f:
			s.high++
			s.halfKana++
		case unicode.Is(unicode.Han, r):
			s.high++
			s.han++
		default:
			s.high++
		}
	}
	return s
}
