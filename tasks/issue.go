package tasks

import (
	"fmt"
	"strings"
)

// Kind is what is wrong with a line. Errors make a file unfit for
// training; warnings are worth a look.
type Kind uint8

// The error kinds, in the order reports list them.
const (
	NotJSON              Kind = iota // malformed JSON, or a line too long to read
	InvalidUTF8                      // bytes that are not UTF-8 inside a string
	NotObject                        // a JSON value that is not an object
	UnknownFormat                    // auto: no member of any known shape
	MixedFormat                      // auto: a line of another shape than the file's
	MissingKey                       // a required member is absent
	WrongType                        // a member of the wrong JSON type or value
	UnknownRole                      // a role (or ShareGPT "from") no format knows
	EmptyContent                     // empty or whitespace-only content
	NoAssistantTurn                  // nothing to train on
	LastTurnNotAssistant             // the example ends with a turn that is not the assistant's
	SystemNotFirst                   // a system message after the first turn
	ConsecutiveUserTurns             // two user turns in a row where the format forbids it
	TooManyTokens                    // more tokens than --max-tokens
	ReadError                        // the file could not be read to its end

	// The warning kinds.
	DuplicateExample // the same example as an earlier line
	ConflictingAnswer
	ShortAnswer
	NearTokenLimit
	numKinds
)

var kindNames = [numKinds]string{
	"not_json", "invalid_utf8", "not_object", "unknown_format", "mixed_format", "missing_key", "wrong_type",
	"unknown_role", "empty_content", "no_assistant_turn", "last_turn_not_assistant", "system_not_first",
	"consecutive_user_turns", "too_many_tokens", "read_error",
	"duplicate_example", "conflicting_answer", "short_answer", "near_token_limit",
}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// MarshalText writes the kind's name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// IsError tells an error kind from a warning kind.
func (k Kind) IsError() bool { return k < DuplicateExample }

// Kinds returns every kind, errors first, in report order.
func Kinds() []Kind {
	ks := make([]Kind, numKinds)
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

// Issue is one problem found on one line.
type Issue struct {
	File string `json:"file"`
	Line int64  `json:"line"`
	Kind Kind   `json:"kind"`
	Msg  string `json:"message"`
}

func (i Issue) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", i.File, i.Line, i.Kind, i.Msg)
}

// problem is an Issue before its file and line are known.
type problem struct {
	kind Kind
	msg  string
}

func problemf(k Kind, format string, args ...any) problem {
	return problem{kind: k, msg: fmt.Sprintf(format, args...)}
}

// where names a message for problem texts: "messages[2]" or "instruction".
func where(m *Message) string {
	if m.Key != "" {
		return m.Key
	}
	return fmt.Sprintf("%s[%d]", m.List, m.Index)
}

// clip shortens s for quoting in a message.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
