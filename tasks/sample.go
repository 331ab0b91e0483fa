package tasks

import _ "embed"

//go:embed sample.jsonl
var sample []byte

// SampleName is the name of the sample task file.
const SampleName = "tasks-sample.jsonl"

// Sample returns a small chat task file built into the binary: 21
// questions and answers of a hardware store's assistant with the faults
// validation finds (an empty answer, a conversation that ends with the
// user, a duplicate, the same prompt with another answer, a very short
// answer). The slice is shared: callers must not modify it.
func Sample() []byte { return sample }
