package tasks

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluice-data/sluice/kernels/tokenize"
)

// TestQueuedCountingMatchesLineByLine checks the lines of the test corpus
// as Validate does, many lines parsed before their tokens are counted,
// and compares every result with checking the line on its own, and every
// token count with counting the example's texts directly.
func TestQueuedCountingMatchesLineByLine(t *testing.T) {
	enc, err := tokenize.Get("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	paths, err := filepath.Glob("testdata/corpus/*.jsonl")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus files: %v", err)
	}
	o := &CheckOptions{MaxTokens: 40, MinAnswerChars: 3}
	var over, near int
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
		queued := newLineChecker(Auto, enc, o)
		res := make([]lineResult, len(lines))
		for i, l := range lines {
			queued.parse(l, &res[i])
		}
		queued.countQueued()

		alone := newLineChecker(Auto, enc, o)
		direct := enc.NewCounter()
		var p Parser
		for i, l := range lines {
			var want lineResult
			alone.check(l, &want)
			if !reflect.DeepEqual(res[i], want) {
				t.Errorf("%s:%d: checked with the others %+v, on its own %+v", path, i+1, res[i], want)
			}
			ex, _ := p.Parse(l, Auto)
			if ex == nil {
				continue
			}
			var tokens int64
			for _, m := range ex.Messages {
				tokens += int64(direct.Count(m.Content))
			}
			if res[i].sum.tokens != tokens {
				t.Errorf("%s:%d: %d tokens, counted directly %d", path, i+1, res[i].sum.tokens, tokens)
			}
			for _, pr := range res[i].problems {
				over += b2i(pr.kind == TooManyTokens)
				near += b2i(pr.kind == NearTokenLimit)
			}
		}
	}
	if over == 0 || near == 0 {
		t.Errorf("the corpus has %d examples over the token limit and %d near it; want some of each", over, near)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestTokenProblemOrder: the problem of an example's length, known only
// once its tokens are counted, goes between the problems of its turns and
// that of its answer, whether the line is checked alone or queued.
func TestTokenProblemOrder(t *testing.T) {
	enc, err := tokenize.Get("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("many words of a long question ", 10) // 60 tokens
	nearly := "w" + strings.Repeat(" word", 35)                  // 36 tokens, with the answer 37
	lines := []string{
		`{"messages":[{"role":"user","content":"` + long + `"},{"role":"user","content":"  "},{"role":"assistant","content":"ok"}]}`,
		`{"messages":[{"role":"user","content":"short"},{"role":"assistant","content":"fine answer"}]}`,
		`{"messages":[{"role":"user","content":"` + nearly + `"},{"role":"assistant","content":"no"}]}`,
	}
	want := [][]Kind{
		{EmptyContent, TooManyTokens, ShortAnswer},
		nil,
		{NearTokenLimit, ShortAnswer},
	}
	o := &CheckOptions{MaxTokens: 40, MinAnswerChars: 3}
	kinds := func(r *lineResult) []Kind {
		var ks []Kind
		for _, p := range r.problems {
			ks = append(ks, p.kind)
		}
		return ks
	}
	c := newLineChecker(Chat, enc, o)
	res := make([]lineResult, len(lines))
	for i, l := range lines {
		c.parse([]byte(l), &res[i])
	}
	c.countQueued()
	for i, l := range lines {
		if got := kinds(&res[i]); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("line %d queued (%d tokens): %v, want %v", i+1, res[i].sum.tokens, got, want[i])
		}
		var r lineResult
		c.check([]byte(l), &r)
		if got := kinds(&r); !reflect.DeepEqual(got, want[i]) {
			t.Errorf("line %d alone (%d tokens): %v, want %v", i+1, r.sum.tokens, got, want[i])
		}
	}
}

func TestRuneCountBelow(t *testing.T) {
	texts := []string{"", "a", "ab", "abc", "héllo", "日本語", "\xff\xfe", "a\xe6\x97", "🙂🙂🙂🙂", strings.Repeat("x", 1000)}
	for _, s := range texts {
		for _, limit := range []int{0, 1, 2, 3, 4, 100} {
			want := min(utf8.RuneCountInString(s), limit)
			if got := runeCountBelow([]byte(s), limit); got != want {
				t.Errorf("runeCountBelow(%q, %d) = %d, want %d", s, limit, got, want)
			}
		}
	}
}
