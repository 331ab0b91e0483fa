package tasks

import (
	"fmt"

	"github.com/sluice-data/sluice/io/jsonl"
)

// LossError is a conversion refused because the target format has no
// place for something the example holds.
type LossError struct{ Reason string }

func (e *LossError) Error() string { return "would lose information: " + e.Reason }

func lossf(format string, args ...any) error { return &LossError{Reason: fmt.Sprintf(format, args...)} }

// InputSeparator joins an instruction and its input into one user turn,
// as the Alpaca prompt template does.
const InputSeparator = "\n\n"

// turn is a message of a plain conversation: a role and a text.
type turn struct {
	role    Role
	content []byte
}

// exampleConverter turns parsed examples into lines of another format.
// It reuses its buffers and is not safe for concurrent use.
type exampleConverter struct {
	to     Format // Chat, Instruction or Completion (Parquet uses plainTurns)
	system []byte // system prompt for examples without one; nil for none
	turns  []turn
	joined []byte
}

// plainTurns returns the example as role-and-text turns, with an
// instruction and its input joined into one user turn and the default
// system prompt put first when the example has none. It refuses examples
// whose turns carry more than a role and a text (tool calls, names,
// weights) or that declare tools.
func (c *exampleConverter) plainTurns(ex *Example) ([]turn, error) {
	if ex.Tools {
		return nil, lossf("the example declares tools, which only the chat format holds")
	}
	c.turns = c.turns[:0]
	if len(c.system) > 0 && (len(ex.Messages) == 0 || ex.Messages[0].Role != System) {
		c.turns = append(c.turns, turn{System, c.system})
	}
	for i := range ex.Messages {
		m := &ex.Messages[i]
		if m.Extra || m.NoContent {
			if ex.Format == ShareGPT {
				return nil, lossf("%s is a tool-use turn or has members beyond from and value", where(m))
			}
			return nil, lossf("%s has members beyond role and content (name, weight, tool calls)", where(m))
		}
		if m.Key == "input" {
			prev := &c.turns[len(c.turns)-1]
			c.joined = append(append(append(c.joined[:0], prev.content...), InputSeparator...), m.Content...)
			prev.content = c.joined
			continue
		}
		c.turns = append(c.turns, turn{m.Role, m.Content})
	}
	return c.turns, nil
}

// appendLine appends ex, parsed into d, as one line of format c.to
// (without the newline). Members outside the source format's shape are
// kept as they are, after the example's own.
func (c *exampleConverter) appendLine(dst []byte, d *jsonl.Doc, ex *Example) ([]byte, error) {
	if ex.Format == c.to {
		hasSystem := len(ex.Messages) > 0 && ex.Messages[0].Role == System
		switch {
		case c.system == nil || hasSystem || (c.to == Instruction && hasMember(d, ex.Root, "system")):
			return d.AppendJSON(dst, ex.Root), nil // as it is
		case c.to == Completion:
			return nil, lossf("completion has no place for the system message")
		case c.to == Instruction:
			dst = d.AppendJSON(dst, ex.Root)
			dst = append(dst[:len(dst)-1], `,"system":`...) // the object's closing brace goes
			return append(jsonl.AppendQuoted(dst, c.system), '}'), nil
		}
		return c.prependSystem(dst, d, ex), nil
	}
	turns, err := c.plainTurns(ex)
	if err != nil {
		return nil, err
	}
	start := len(dst)
	switch c.to {
	case Chat:
		dst = append(dst, `{"messages":[`...)
		for i, t := range turns {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"role":`...)
			dst = jsonl.AppendQuoted(dst, []byte(t.role.String()))
			dst = append(dst, `,"content":`...)
			dst = jsonl.AppendQuoted(dst, t.content)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	case Instruction, Completion:
		var system []byte
		if len(turns) > 0 && turns[0].role == System {
			system, turns = turns[0].content, turns[1:]
		}
		if len(turns) != 2 || turns[0].role != User || turns[1].role != Assistant {
			return dst[:start], lossf("%s holds one user turn and one answer; this example has %s", c.to, describeTurns(turns))
		}
		if c.to == Completion {
			if system != nil {
				return dst[:start], lossf("completion has no place for the system message")
			}
			dst = append(dst, `{"prompt":`...)
			dst = jsonl.AppendQuoted(dst, turns[0].content)
			dst = append(dst, `,"completion":`...)
			dst = jsonl.AppendQuoted(dst, turns[1].content)
		} else {
			dst = append(dst, `{"instruction":`...)
			dst = jsonl.AppendQuoted(dst, turns[0].content)
			dst = append(dst, `,"input":"","output":`...)
			dst = jsonl.AppendQuoted(dst, turns[1].content)
			if system != nil {
				dst = append(dst, `,"system":`...)
				dst = jsonl.AppendQuoted(dst, system)
			}
		}
	default:
		return dst[:start], fmt.Errorf("tasks: cannot write %s lines", c.to)
	}
	dst = appendOtherMembers(dst, d, ex, true)
	return append(dst, '}'), nil
}

// prependSystem appends a chat example with the default system message
// put first and everything else as it is.
func (c *exampleConverter) prependSystem(dst []byte, d *jsonl.Doc, ex *Example) []byte {
	dst = append(dst, '{')
	for i, m := range d.Children(ex.Root) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsonl.AppendQuoted(dst, d.Key(m))
		dst = append(dst, ':')
		if string(d.Key(m)) != "messages" {
			dst = d.AppendJSON(dst, m)
			continue
		}
		dst = append(dst, `[{"role":"system","content":`...)
		dst = jsonl.AppendQuoted(dst, c.system)
		dst = append(dst, '}')
		for _, el := range d.Children(m) {
			dst = d.AppendJSON(append(dst, ','), el)
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// appendOtherMembers appends the members of ex's object that its format
// does not read, each as ,"key":value (comma first unless first is false).
func appendOtherMembers(dst []byte, d *jsonl.Doc, ex *Example, comma bool) []byte {
	for _, m := range d.Children(ex.Root) {
		if ex.IsShapeMember(d.Key(m)) {
			continue
		}
		if comma {
			dst = append(dst, ',')
		}
		comma = true
		dst = jsonl.AppendQuoted(dst, d.Key(m))
		dst = append(dst, ':')
		dst = d.AppendJSON(dst, m)
	}
	return dst
}

func hasMember(d *jsonl.Doc, obj int32, key string) bool {
	for _, m := range d.Children(obj) {
		if string(d.Key(m)) == key {
			return true
		}
	}
	return false
}

func describeTurns(turns []turn) string {
	if len(turns) == 0 {
		return "none"
	}
	s := ""
	for i, t := range turns {
		if i > 0 {
			s += ", "
		}
		s += t.role.String()
	}
	return s
}
