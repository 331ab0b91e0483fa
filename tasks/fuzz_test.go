package tasks

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluice-data/sluice/kernels/tokenize"
)

// FuzzValidateLine checks that no line, however malformed, makes the
// parser, the checks or the conversions panic, and that a line they refuse
// is refused with a problem.
func FuzzValidateLine(f *testing.F) {
	files, _ := filepath.Glob("testdata/corpus/*.jsonl")
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			f.Add(l, uint8(0))
		}
	}
	f.Add([]byte(`{"messages":[{"role":"assistant","content":null,"tool_calls":[]}]}`), uint8(1))
	f.Add([]byte(`{"instruction":"a","input":" ","output":"b","system":""}`), uint8(2))
	enc, err := tokenize.Get("cl100k_base")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line []byte, format uint8) {
		o := &CheckOptions{MaxTokens: 50, MinAnswerChars: 3, RequireAlternation: format&8 != 0}
		c := newLineChecker(Format(format%5), enc, o)
		var r lineResult
		ex := c.check(line, &r)
		if ex == nil && len(r.problems) == 0 {
			t.Fatalf("line refused without a problem: %q", line)
		}
		if ex == nil {
			return
		}
		if _, ok := firstError(r.problems); !ok {
			if r.sum.tokens < 0 || r.sum.turns < 1 {
				t.Fatalf("valid example with %d tokens and %d turns: %q", r.sum.tokens, r.sum.turns, line)
			}
		}
		for _, to := range []Format{Chat, Instruction, Completion} {
			conv := exampleConverter{to: to, system: []byte("sys")}
			out, err := conv.appendLine(nil, c.p.Doc(), ex)
			if err != nil {
				continue
			}
			var p Parser
			if back, probs := p.Parse(out, to); back == nil {
				t.Fatalf("converted to %s, the line does not read back (%v): %q -> %q", to, probs, line, out)
			}
		}
	})
}
