package tasks

import (
	"encoding/binary"

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

// lineChecker checks lines one at a time. Each goroutine owns one.
type lineChecker struct {
	p       Parser
	counter *tokenize.Counter // nil: no token counts
	opts    *CheckOptions
	format  Format
	buf     []byte
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
	ex, probs := c.p.Parse(line, c.format)
	r.format = c.p.Format()
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
		for i := range ex.Messages {
			m := &ex.Messages[i]
			n := int64(c.counter.Count(m.Content))
			s.tokens += n
			s.roleTokens[m.Role] += n
		}
	}
	for i := range ex.Messages {
		s.roles |= 1 << ex.Messages[i].Role
	}
	c.hashes(ex, s)
	r.problems = check(r.problems[:0], ex, s.tokens, c.opts)
	return ex
}

// hashes fills in the hashes of the whole example, of its prompt (the
// turns before the last assistant turn) and of its answer (that turn).
func (c *lineChecker) hashes(ex *Example, s *exampleSummary) {
	last := -1
	for i := len(ex.Messages) - 1; i >= 0; i-- {
		if ex.Messages[i].Role == Assistant {
			last = i
			break
		}
	}
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
