package htmltext

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzExtract checks that any bytes extract without panicking to valid
// UTF-8 with no white space at either end, in both modes, and that main
// mode keeps no line plain mode does not.
func FuzzExtract(f *testing.F) {
	f.Add([]byte("<html><body><nav>x</nav><article><h1>T</h1><p>Some text here, a sentence.</p></article></body></html>"), "text/html")
	f.Add([]byte("<p>a<b>b</p><div hidden>c</div><pre> d </pre><script>e</script>"), "")
	f.Add([]byte("\xff\xfe<\x00p\x00>"), "text/html; charset=utf-16")
	f.Add([]byte("<meta charset=shift_jis><p>\x93\xfa\x96\x7b</p>"), "")
	f.Fuzz(func(t *testing.T, page []byte, ctype string) {
		var e Extractor
		plain := e.Extract(page, ctype, Plain).Text
		main := e.Extract(page, ctype, Main).Text
		lines := map[string]bool{}
		for _, l := range strings.Split(plain, "\n") {
			lines[l] = true
		}
		for _, text := range []string{plain, main} {
			if !utf8.ValidString(text) || strings.Trim(text, " \t\n\r\f") != text {
				t.Fatalf("text %q", text)
			}
			for _, l := range strings.Split(text, "\n") {
				if text != "" && strings.TrimFunc(l, unicode.IsSpace) == "" {
					t.Fatalf("blank line in %q", text)
				}
			}
		}
		if main == "" {
			return
		}
		for _, l := range strings.Split(main, "\n") {
			if !lines[l] {
				t.Fatalf("main line %q not in plain text %q", l, plain)
			}
		}
	})
}
