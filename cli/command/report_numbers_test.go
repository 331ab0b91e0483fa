package command

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
)

// readPage runs sluice report with args and returns the page it wrote.
func readPage(t *testing.T, page string, args ...string) string {
	t.Helper()
	if code, _, errs := mainOutput(append(append([]string{"report"}, args...), "-o", page, "--overwrite")...); code != 0 {
		t.Fatalf("report %v: exit %d: %s", args, code, errs)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Bidi controls in a file name, ids, sources and texts reach the page
// neither raw (an unclosed U+202E would reverse all that follows it) nor
// unisolated: each such string is in a <bdi> or a dir="auto" block, its
// controls written as code points.
func TestCase23ReportIsolatesBidiControls(t *testing.T) {
	dir := t.TempDir()
	const rlo, rli = "\u202e", "\u2067"
	in := filepath.Join(dir, "corpus"+rlo+"lmth.jsonl")
	var lines []string
	for _, id := range []string{"r1", "r2", "r3"} {
		b, _ := json.Marshal(map[string]string{"id": id + rlo + "evil", "source": "web" + rli, "text": "short " + rlo + "desrever"})
		lines = append(lines, string(b))
	}
	os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	out := filepath.Join(dir, "out"+rlo)
	if code, _, errs := mainOutput("clean", in, "-o", out, "--filters", "gopher_quality"); code != 0 {
		t.Fatalf("clean: %s", errs)
	}
	html := readPage(t, filepath.Join(dir, "r.html"), out)
	if i := strings.IndexFunc(html, func(r rune) bool {
		return unicode.Is(unicode.Bidi_Control, r) && r != '\u200e' && r != '\u200f' && r != '\u061c'
	}); i >= 0 {
		t.Errorf("the page holds a raw bidi control: %q", html[max(i-40, 0):min(i+40, len(html))])
	}
	for _, want := range []string{
		"<code><bdi>r1[U+202E]evil</bdi></code>",       // an example's id
		"<code><bdi>web[U+2067]</bdi></code>",          // its source
		`<pre dir="auto">short [U+202E]desrever</pre>`, // its text
		"<h1>sluice report: <bdi>out[U+202E]</bdi></h1>",
		"corpus[U+202E]lmth.jsonl</bdi></code>", // the input in the provenance table
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the page does not show %q", want)
		}
	}
}
