package tasks

import (
	"encoding/binary"
	"slices"

	"github.com/sluice-data/sluice/kernels/texthash"
	"github.com/sluice-data/sluice/kernels/tokenize"
)

// lineResult is what checking one line found: its problems and, when it
// is an example, the summary that statistics and duplicate detection need.
type lineResult struct {
	file     int32
	line     int64
	format   Format // the line's format; Auto when it has none
	problems []problem
	parsed   bool // the line is an example (no structural problem)
	sum      exampleSummary
	tokenAt  int // where the problem of the example's length goes among its problems
}

// exampleSummary is the compact trace an example leaves for the checks
// that look across lines and for the statistics.
type exampleSummary struct {
	example, prompt, answer texthash.Hash
	hasAnswer               bool
	turns                   int64
	tokens                  int64 // -1 when tokens are not counted
	roleTokens              [numRoles]int64
	roles                   uint8 // bit r set when role r speaks
}

// lineChecker checks lines. Each goroutine owns one.
//
// Token counting is a second pass: parse queues the texts of the
// examples it reads and countQueued counts them all in one go. Over a
// chunk of lines that keeps the tokenizer's tables hot in the processor's
// caches instead of taking turns with the parser, which is faster.
type lineChecker struct {
	p       Parser
	counter *tokenize.Counter // nil: no token counts
	opts    *CheckOptions
	format  Format
	buf     []byte
	texts   []byte        // the texts queued for counting, end to end
	queued  []queuedText  // where each queued text ends, and whose it is
	counted []*lineResult // the examples whose tokens are queued
}

// queuedText is a message's text waiting for its tokens to be counted.
type queuedText struct {
	r    *lineResult
	role Role
	end  int // the text is texts[the previous end:end]
}

func newLineChecker(format Format, enc *tokenize.Encoding, o *CheckOptions) *lineChecker {
	c := &lineChecker{format: format, opts: o}
	if enc != nil {
		c.counter = enc.NewCounter()
	}
	return c
}

// check reads one line and checks it on its own. The example it parsed
// stays readable in c.p until the next call.
func (c *lineChecker) check(line []byte, r *lineResult) *Example {
	ex := c.parse(line, r)
	c.countQueued()
	return ex
}

// parse reads one line and checks it, but leaves its tokens, and the
// problem of its length, to countQueued: r must stay in place until then.
// The example it parsed stays readable in c.p until the next call.
func (c *lineChecker) parse(line []byte, r *lineResult) *Example {
	ex, probs := c.p.Parse(line, c.format)
	r.format, r.parsed, r.sum, r.tokenAt = c.p.Format(), false, exampleSummary{}, 0
	if ex == nil {
		r.problems = append(r.problems[:0], probs...)
		return nil
	}
	r.parsed = true
	s := &r.sum
	s.turns = int64(len(ex.Messages))
	if ex.Format == Instruction && len(ex.Messages) > 1 && ex.Messages[len(ex.Messages)-2].Key == "input" {
		s.turns-- // the input is part of the instruction's turn
	}
	s.tokens = -1
	if c.counter != nil {
		s.tokens = 0
		s.roleTokens = [numRoles]int64{}
		for i := range ex.Messages {
			m := &ex.Messages[i]
			c.texts = append(c.texts, m.Content...)
			c.queued = append(c.queued, queuedText{r: r, role: m.Role, end: len(c.texts)})
		}
		c.counted = append(c.counted, r)
	}
	for i := range ex.Messages {
		s.roles |= 1 << ex.Messages[i].Role
	}
	c.hashes(ex, s)
	r.problems, r.tokenAt = check(r.problems[:0], ex, c.opts)
	return ex
}

// countQueued counts the tokens of the texts parse queued, adds them to
// their examples and puts in each example's problem of length, if any.
func (c *lineChecker) countQueued() {
	start := 0
	for _, q := range c.queued {
		n := int64(c.counter.Count(c.texts[start:q.end]))
		start = q.end
		q.r.sum.tokens += n
		q.r.sum.roleTokens[q.role] += n
	}
	for _, r := range c.counted {
		if p, ok := tokenProblem(r.sum.tokens, c.opts); ok {
			r.problems = slices.Insert(r.problems, r.tokenAt, p)
		}
	}
	clear(c.counted) // let the results go
	c.texts, c.queued, c.counted = c.texts[:0], c.queued[:0], c.counted[:0]
}

// hashes fills in the hashes of the whole example, of its prompt (the
// turns before the last assistant turn) and of its answer (that turn).
func (c *lineChecker) hashes(ex *Example, s *exampleSummary) {
	last := ex.lastAssistant()
	b := c.buf[:0]
	for i := range ex.Messages {
		if i == last {
			s.prompt = texthash.Of(b)
		}
		m := &ex.Messages[i]
		b = append(b, byte(m.Role))
		b = binary.AppendUvarint(b, uint64(len(m.Content)))
		b = append(b, m.Content...)
	}
	s.example = texthash.Of(b)
	if last >= 0 && !ex.Messages[last].NoContent {
		s.hasAnswer = true
		s.answer = texthash.Of(ex.Messages[last].Content)
	}
	c.buf = b
}
