package tasks

import (
	"bytes"
	"unicode/utf8"
)

// CheckOptions are the limits the checks of one example apply.
type CheckOptions struct {
	// MaxTokens is the longest example accepted, in tokens; 0 for no limit
	// (and no token counting needed).
	MaxTokens int `json:"max_tokens"`
	// MinAnswerChars: a final answer shorter than this, in characters
	// (white space trimmed), draws a warning.
	MinAnswerChars int `json:"min_answer_chars"`
	// RequireAlternation forbids two user turns in a row in chat examples,
	// as chat templates that insist on alternating turns do. ShareGPT
	// examples always alternate.
	RequireAlternation bool `json:"require_alternation"`
}

// NearLimit is the share of MaxTokens above which an example draws a
// near_token_limit warning.
const NearLimit = 0.9

// check appends the problems of a parsed example to dst: empty turns, the
// order of the turns and a short answer. The problem of its length needs
// its tokens counted first: tokenProblem tells it, and at is where it goes
// among the problems check appended, so that they keep one order.
func check(dst []problem, ex *Example, o *CheckOptions) (problems []problem, at int) {
	msgs := ex.Messages
	if len(msgs) == 0 {
		list := "messages"
		if ex.Format == ShareGPT {
			list = "conversations"
		}
		dst = append(dst, problemf(NoAssistantTurn, "%s is an empty list", list))
		return dst, len(dst)
	}
	assistant := false
	for i := range msgs {
		m := &msgs[i]
		if !m.NoContent && isBlank(m.Content) {
			what := "empty"
			if len(m.Content) > 0 {
				what = "white space only"
			}
			dst = append(dst, problemf(EmptyContent, "%s (%s) is %s", where(m), m.Role, what))
		}
		if m.Role == Assistant {
			assistant = true
		}
		if i > 0 && m.Role == System {
			dst = append(dst, problemf(SystemNotFirst, "%s is a system message after the first turn", where(m)))
		}
		if i > 0 && m.Role == User && msgs[i-1].Role == User && m.List != "" &&
			(ex.Format == ShareGPT || o.RequireAlternation) {
			dst = append(dst, problemf(ConsecutiveUserTurns, "%s and %s are both user turns", where(&msgs[i-1]), where(m)))
		}
	}
	last := &msgs[len(msgs)-1]
	switch {
	case !assistant:
		dst = append(dst, problemf(NoAssistantTurn, "no assistant turn (%d turn(s), none the assistant's)", len(msgs)))
	case last.Role != Assistant:
		dst = append(dst, problemf(LastTurnNotAssistant, "the last turn, %s, is the %s's", where(last), last.Role))
	}
	at = len(dst)
	if assistant && last.Role == Assistant && !last.NoContent && o.MinAnswerChars > 0 {
		answer := bytes.TrimSpace(last.Content)
		if n := runeCountBelow(answer, o.MinAnswerChars); n > 0 && n < o.MinAnswerChars {
			dst = append(dst, problemf(ShortAnswer, "the answer has %d character(s): %q", n, string(answer)))
		}
	}
	return dst, at
}

// tokenProblem returns the problem of an example of the given number of
// tokens, if it has one: over the limit, or near it.
func tokenProblem(tokens int64, o *CheckOptions) (problem, bool) {
	switch {
	case o.MaxTokens <= 0 || tokens < 0:
	case tokens > int64(o.MaxTokens):
		return problemf(TooManyTokens, "%d tokens, over the limit of %d", tokens, o.MaxTokens), true
	case float64(tokens) > NearLimit*float64(o.MaxTokens):
		return problemf(NearTokenLimit, "%d tokens, near the limit of %d", tokens, o.MaxTokens), true
	}
	return problem{}, false
}

// runeCountBelow returns the number of characters of b when it is below
// limit, and limit otherwise: it reads no further than it needs to.
func runeCountBelow(b []byte, limit int) int {
	n := 0
	for i := 0; i < len(b) && n < limit; n++ {
		if b[i] < utf8.RuneSelf {
			i++
		} else {
			_, size := utf8.DecodeRune(b[i:])
			i += size
		}
	}
	return n
}
