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
// order of the turns, and its length. tokens is the example's token count,
// or -1 when tokens are not counted.
func check(dst []problem, ex *Example, tokens int64, o *CheckOptions) []problem {
	msgs := ex.Messages
	if len(msgs) == 0 {
		list := "messages"
		if ex.Format == ShareGPT {
			list = "conversations"
		}
		return append(dst, problemf(NoAssistantTurn, "%s is an empty list", list))
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
	if o.MaxTokens > 0 && tokens >= 0 {
		if tokens > int64(o.MaxTokens) {
			dst = append(dst, problemf(TooManyTokens, "%d tokens, over the limit of %d", tokens, o.MaxTokens))
		} else if float64(tokens) > NearLimit*float64(o.MaxTokens) {
			dst = append(dst, problemf(NearTokenLimit, "%d tokens, near the limit of %d", tokens, o.MaxTokens))
		}
	}
	if assistant && last.Role == Assistant && !last.NoContent && o.MinAnswerChars > 0 {
		answer := bytes.TrimSpace(last.Content)
		if n := utf8.RuneCount(answer); n > 0 && n < o.MinAnswerChars {
			dst = append(dst, problemf(ShortAnswer, "the answer has %d character(s): %q", n, string(answer)))
		}
	}
	return dst
}
