package tasks

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sluice-data/sluice/io/jsonl"
)

// Message is one turn of an example.
type Message struct {
	Role Role
	// Content is the text, borrowed from the parsed line: valid until the
	// parser's next Parse.
	Content []byte
	// NoContent is set for a chat assistant message whose content is null
	// or absent because it carries tool_calls or a function_call.
	NoContent bool
	// Extra is set when the message carries more than a role and a text:
	// name, weight, tool_calls, tool_call_id, function_call or another
	// member, or a ShareGPT tool-use turn. Such a message has no place in
	// the plain formats.
	Extra bool
	// Where the message came from: an element of a list (List "messages",
	// Index 2) or a member of the object (Key "instruction").
	List  string
	Index int
	Key   string
}

// Example is one line read into the model. Its slices are reused by the
// parser's next Parse.
type Example struct {
	Format   Format
	Messages []Message
	// Tools is set when the example declares tools or functions.
	Tools bool
	// Root is the line's object in the parser's document.
	Root int32
	// shape lists the members the format reads; the others are carried
	// through conversions as they are.
	shape []string
}

// Parser reads lines into Examples. It reuses its memory from line to line
// and is not safe for concurrent use: give each goroutine its own.
type Parser struct {
	doc      jsonl.Doc
	ex       Example
	problems []problem
}

// Doc returns the document of the last parsed line.
func (p *Parser) Doc() *jsonl.Doc { return &p.doc }

var shapes = [...][]string{
	Chat:        {"messages", "tools", "functions", "parallel_tool_calls"},
	Instruction: {"instruction", "input", "output", "system"},
	Completion:  {"prompt", "completion"},
	ShareGPT:    {"conversations", "system", "tools"},
}

// IsShapeMember tells whether key is one of the members format f reads.
func (e *Example) IsShapeMember(key []byte) bool {
	for _, k := range e.shape {
		if string(key) == k {
			return true
		}
	}
	return false
}

// lastAssistant returns the index of the last assistant turn, or -1.
func (e *Example) lastAssistant() int {
	for i := len(e.Messages) - 1; i >= 0; i-- {
		if e.Messages[i].Role == Assistant {
			return i
		}
	}
	return -1
}

// Parse reads line as an example of format f, or of the format its members
// show when f is Auto. It returns the example, or nil and the problems
// that kept the line from being one (the line is not JSON, a member is
// missing or of the wrong type, a role is unknown). The returned values
// are valid until the next call.
func (p *Parser) Parse(line []byte, f Format) (*Example, []problem) {
	p.problems = p.problems[:0]
	p.ex.Format = Auto
	root, err := p.doc.Parse(line)
	if err != nil {
		msg := err.Error()
		if errors.Is(err, jsonl.ErrTooDeep) {
			msg = "malformed JSON: " + msg
		}
		return nil, append(p.problems, problem{NotJSON, msg})
	}
	if p.doc.Repaired > 0 {
		return nil, append(p.problems, problemf(InvalidUTF8, "%d invalid UTF-8 sequence(s) inside strings", p.doc.Repaired))
	}
	if k := p.doc.Node(root).Kind; k != jsonl.KindObject {
		return nil, append(p.problems, problemf(NotObject, "%s, not an object", aKind(k)))
	}
	if f == Auto {
		if f = p.detect(root); f == Auto {
			return nil, append(p.problems, problemf(UnknownFormat,
				"no messages, conversations, instruction or prompt member (members: %s)", p.memberList(root)))
		}
	}
	ex := &p.ex
	*ex = Example{Format: f, Messages: ex.Messages[:0], Root: root, shape: shapes[f]}
	switch f {
	case Chat:
		p.chat(ex)
	case ShareGPT:
		p.shareGPT(ex)
	case Instruction:
		p.instruction(ex)
	case Completion:
		p.completion(ex)
	}
	if len(p.problems) > 0 {
		return nil, p.problems
	}
	return ex, nil
}

// Format returns the format of the last parsed line: the one asked for,
// or the one its members showed, even when reading it as an example
// failed; Auto when it is not a JSON object of a known shape.
func (p *Parser) Format() Format { return p.ex.Format }

// detect tells the format from the members present.
func (p *Parser) detect(root int32) Format {
	var has [5]bool
	for _, c := range p.doc.Children(root) {
		switch string(p.doc.Key(c)) {
		case "messages":
			has[Chat] = true
		case "conversations":
			has[ShareGPT] = true
		case "instruction", "output":
			has[Instruction] = true
		case "prompt", "completion":
			has[Completion] = true
		}
	}
	for _, f := range []Format{Chat, ShareGPT, Instruction, Completion} {
		if has[f] {
			return f
		}
	}
	return Auto
}

// DetectFormat tells the format of a parsed object from its members, Auto
// when it has none of the known ones.
func (p *Parser) DetectFormat(root int32) Format { return p.detect(root) }

func (p *Parser) memberList(root int32) string {
	var names []string
	for _, c := range p.doc.Children(root) {
		names = append(names, clip(string(p.doc.Key(c)), 20))
		if len(names) == 6 {
			names = append(names, "...")
			break
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// member returns the first member of obj named key, or -1.
func (p *Parser) member(obj int32, key string) int32 {
	for _, c := range p.doc.Children(obj) {
		if string(p.doc.Key(c)) == key {
			return c
		}
	}
	return -1
}

func (p *Parser) fail(k Kind, format string, args ...any) {
	p.problems = append(p.problems, problemf(k, format, args...))
}

// list returns the elements of the list member key, reporting a missing
// member or one that is not a list.
func (p *Parser) list(obj int32, key string) ([]int32, bool) {
	n := p.member(obj, key)
	if n < 0 {
		p.fail(MissingKey, "no %q member", key)
		return nil, false
	}
	if k := p.doc.Node(n).Kind; k != jsonl.KindArray {
		p.fail(WrongType, "%q is %s, not a list", key, aKind(k))
		return nil, false
	}
	return p.doc.Children(n), true
}

// item names an element of a list in problem texts: messages[2]. It is
// only turned into text when there is a problem to tell.
type item struct {
	list  string
	index int
}

func (it item) String() string { return it.list + "[" + strconv.Itoa(it.index) + "]" }

// text returns the string member key of obj; name says which list element
// obj is, for problem texts (the zero item for the line's object).
// optional members may be absent (ok false, no problem).
func (p *Parser) text(obj int32, key string, name item, optional bool) ([]byte, bool) {
	n := p.member(obj, key)
	if n < 0 {
		if !optional && obj == p.ex.Root {
			p.fail(MissingKey, "no %q member", key)
		} else if !optional {
			p.fail(MissingKey, "%s has no %q", name, key)
		}
		return nil, false
	}
	if k := p.doc.Node(n).Kind; k != jsonl.KindString {
		if obj == p.ex.Root {
			p.fail(WrongType, "%q is %s, not a string", key, aKind(k))
		} else {
			p.fail(WrongType, "%s.%s is %s, not a string", name, key, aKind(k))
		}
		return nil, false
	}
	return p.doc.Bytes(n), true
}

func (p *Parser) optionalList(obj int32, key string) bool {
	n := p.member(obj, key)
	if n < 0 {
		return false
	}
	if k := p.doc.Node(n).Kind; k != jsonl.KindArray {
		p.fail(WrongType, "%q is %s, not a list", key, aKind(k))
	}
	return true
}

func (p *Parser) chat(ex *Example) {
	d := &p.doc
	if p.optionalList(ex.Root, "tools") || p.optionalList(ex.Root, "functions") {
		ex.Tools = true
	}
	if n := p.member(ex.Root, "parallel_tool_calls"); n >= 0 {
		ex.Tools = true
		if d.Node(n).Kind != jsonl.KindBool {
			p.fail(WrongType, "\"parallel_tool_calls\" is %s, not a boolean", aKind(d.Node(n).Kind))
		}
	}
	items, ok := p.list(ex.Root, "messages")
	if !ok {
		return
	}
	for i, it := range items {
		name := item{"messages", i}
		if k := d.Node(it).Kind; k != jsonl.KindObject {
			p.fail(WrongType, "%s is %s, not an object", name, aKind(k))
			continue
		}
		m := Message{List: "messages", Index: i}
		roleText, ok := p.text(it, "role", name, false)
		if ok {
			if m.Role, ok = chatRole(roleText); !ok {
				p.fail(UnknownRole, "%s: unknown role %q (want system, user, assistant or tool)", name, clip(string(roleText), 30))
			}
		}
		toolCall := false
		content := int32(-1)
		for _, c := range d.Children(it) {
			key := string(d.Key(c))
			switch key {
			case "role":
			case "content":
				content = c
			case "weight":
				m.Extra = true
				if v, isInt := d.Int64(c); !isInt || (v != 0 && v != 1) {
					p.fail(WrongType, "%s.weight must be 0 or 1, not %s", name, clip(string(d.AppendJSON(nil, c)), 30))
				}
			case "name", "tool_call_id":
				m.Extra = true
				if k := d.Node(c).Kind; k != jsonl.KindString {
					p.fail(WrongType, "%s.%s is %s, not a string", name, key, aKind(k))
				}
			case "tool_calls":
				m.Extra, toolCall = true, true
				if k := d.Node(c).Kind; k != jsonl.KindArray {
					p.fail(WrongType, "%s.tool_calls is %s, not a list", name, aKind(k))
				}
			case "function_call":
				m.Extra, toolCall = true, true
				if k := d.Node(c).Kind; k != jsonl.KindObject {
					p.fail(WrongType, "%s.function_call is %s, not an object", name, aKind(k))
				}
			default:
				m.Extra = true
			}
		}
		switch {
		case content >= 0 && d.Node(content).Kind == jsonl.KindString:
			m.Content = d.Bytes(content)
		case toolCall && m.Role == Assistant && (content < 0 || d.Node(content).Kind == jsonl.KindNull):
			m.NoContent = true
		case content < 0:
			p.fail(MissingKey, "%s has no \"content\"", name)
		default:
			p.fail(WrongType, "%s.content is %s, not a string", name, aKind(d.Node(content).Kind))
		}
		ex.Messages = append(ex.Messages, m)
	}
}

func (p *Parser) shareGPT(ex *Example) {
	d := &p.doc
	if sys, ok := p.text(ex.Root, "system", item{}, true); ok && !isBlank(sys) {
		ex.Messages = append(ex.Messages, Message{Role: System, Content: sys, Key: "system"})
	}
	ex.Tools = p.member(ex.Root, "tools") >= 0
	items, ok := p.list(ex.Root, "conversations")
	if !ok {
		return
	}
	for i, it := range items {
		name := item{"conversations", i}
		if k := d.Node(it).Kind; k != jsonl.KindObject {
			p.fail(WrongType, "%s is %s, not an object", name, aKind(k))
			continue
		}
		m := Message{List: "conversations", Index: i}
		if from, ok := p.text(it, "from", name, false); ok {
			var known, toolUse bool
			if m.Role, toolUse, known = shareGPTRole(from); !known {
				p.fail(UnknownRole, "%s: unknown role %q (want human, gpt or system)", name, clip(string(from), 30))
			}
			m.Extra = toolUse
		}
		if v, ok := p.text(it, "value", name, false); ok {
			m.Content = v
		}
		for _, c := range d.Children(it) {
			if k := string(d.Key(c)); k != "from" && k != "value" {
				m.Extra = true
			}
		}
		ex.Messages = append(ex.Messages, m)
	}
}

func (p *Parser) instruction(ex *Example) {
	if sys, ok := p.text(ex.Root, "system", item{}, true); ok && !isBlank(sys) {
		ex.Messages = append(ex.Messages, Message{Role: System, Content: sys, Key: "system"})
	}
	if instr, ok := p.text(ex.Root, "instruction", item{}, false); ok {
		ex.Messages = append(ex.Messages, Message{Role: User, Content: instr, Key: "instruction"})
	}
	if in, ok := p.text(ex.Root, "input", item{}, true); ok && !isBlank(in) {
		ex.Messages = append(ex.Messages, Message{Role: User, Content: in, Key: "input"})
	}
	if out, ok := p.text(ex.Root, "output", item{}, false); ok {
		ex.Messages = append(ex.Messages, Message{Role: Assistant, Content: out, Key: "output"})
	}
}

func (p *Parser) completion(ex *Example) {
	if prompt, ok := p.text(ex.Root, "prompt", item{}, false); ok {
		ex.Messages = append(ex.Messages, Message{Role: User, Content: prompt, Key: "prompt"})
	}
	if c, ok := p.text(ex.Root, "completion", item{}, false); ok {
		ex.Messages = append(ex.Messages, Message{Role: Assistant, Content: c, Key: "completion"})
	}
}

// aKind names a JSON type with its article, for problem texts.
func aKind(k jsonl.Kind) string {
	return [...]string{"null", "a boolean", "a number", "a string", "an object", "a list"}[k]
}

// isBlank tells whether b is empty or white space only (Unicode white
// space included).
func isBlank(b []byte) bool {
	for _, c := range b {
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
		case c >= utf8.RuneSelf:
			return len(bytes.TrimSpace(b)) == 0
		default:
			return false
		}
	}
	return true
}
