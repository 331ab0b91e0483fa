// Package tasks checks, measures, converts and splits fine-tuning task
// files: JSONL with one training example a line in one of four shapes.
//
//   - chat: {"messages": [{"role": "system"|"user"|"assistant"|"tool", "content": "..."}, ...]}
//     with the optional members of the common fine-tuning APIs ("tools",
//     "functions" and "parallel_tool_calls" beside the messages; "name",
//     "weight" (0 or 1), "tool_calls", "tool_call_id" and "function_call"
//     in a message);
//   - instruction: {"instruction": "...", "input": "...", "output": "..."}
//     ("input" and "system" optional), the Alpaca shape;
//   - completion: {"prompt": "...", "completion": "..."};
//   - ShareGPT: {"conversations": [{"from": "human"|"gpt"|"system", "value": "..."}, ...]}
//     ("user", "assistant", "tool", "observation" and "function_call" also
//     known; an optional "system" member beside the conversations).
//
// Whatever its shape, an example is read into the same model (format.go,
// example.go): a list of messages, each a role among system, user,
// assistant and tool and a content, plus where each came from. The checks
// (check.go), the statistics (stats.go), the conversions (convert.go,
// parquet.go) and the split (split.go) work on that model; validate.go runs
// the checks over whole files in parallel (line.go checks lines, dups.go
// finds the examples and prompts repeated across lines) and report.go
// prints the result.
//
// Members other than the ones of the shape (an "id", a "source") are
// allowed and carried through conversions as they are.
//
// Nothing here panics on bad input: every line that cannot be read as an
// example becomes an Issue with its file and line.
package tasks
