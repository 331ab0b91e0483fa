package tasks

import "fmt"

// Format is the shape of a task file's lines.
type Format uint8

// The formats. Auto is not a format of a line: it asks for detection.
const (
	Auto Format = iota
	Chat
	Instruction
	Completion
	ShareGPT
)

var formatNames = [...]string{"auto", "chat", "instruction", "completion", "sharegpt"}

func (f Format) String() string {
	if int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", f)
}

// MarshalText writes the format's name.
func (f Format) MarshalText() ([]byte, error) { return []byte(f.String()), nil }

// ParseFormat maps a name (auto, chat, instruction, completion, sharegpt)
// onto a Format.
func ParseFormat(s string) (Format, error) {
	for i, n := range formatNames {
		if s == n {
			return Format(i), nil
		}
	}
	return Auto, fmt.Errorf("unknown task format %q (want auto, chat, instruction, completion or sharegpt)", s)
}

// Role is who speaks a message, whatever the format calls it.
type Role uint8

// The roles.
const (
	System Role = iota
	User
	Assistant
	Tool
	numRoles
)

var roleNames = [numRoles]string{"system", "user", "assistant", "tool"}

func (r Role) String() string {
	if r < numRoles {
		return roleNames[r]
	}
	return fmt.Sprintf("Role(%d)", r)
}

// chatRole maps a chat message's role onto a Role. "developer" is the
// newer name of the system role; "function" the older name of tool.
func chatRole(s []byte) (Role, bool) {
	switch string(s) {
	case "system", "developer":
		return System, true
	case "user":
		return User, true
	case "assistant":
		return Assistant, true
	case "tool", "function":
		return Tool, true
	}
	return 0, false
}

// shareGPTRole maps a ShareGPT turn's "from" onto a Role. The tool-use
// turns ("function_call" from the assistant, "observation" and "tool" with
// results) are known but have no lossless chat form.
func shareGPTRole(s []byte) (r Role, toolUse bool, ok bool) {
	switch string(s) {
	case "system":
		return System, false, true
	case "human", "user":
		return User, false, true
	case "gpt", "assistant":
		return Assistant, false, true
	case "function_call":
		return Assistant, true, true
	case "observation", "tool":
		return Tool, true, true
	}
	return 0, false, false
}
