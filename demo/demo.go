// Package demo holds the sample corpus that `sluice demo` runs the pipeline
// on. The corpus is about three hundred JSONL documents from four kinds of
// source (web pages, books, forum threads, code documentation), mostly
// English with some French, German, Spanish, Russian, Chinese and Japanese,
// and it carries the problems a real crawl has: exact and near duplicates,
// boilerplate lines repeated across pages, personal data (e-mail addresses,
// phone numbers, IP addresses), very short pages, a row with invalid UTF-8,
// a row without text, lines that are not JSON objects and a blank line.
// Every name, address and number in it is made up; the e-mail and IP
// addresses use the ranges reserved for documentation.
//
// It also holds the input files of the README's worked examples that are
// written by hand (examples/: pipeline files, URL lists, evaluation sets,
// short pages in five languages); `sluice demo` copies them into
// OUT/examples beside the files it makes from the sample.
package demo

import (
	"embed"
	"io/fs"
)

//go:embed sample.jsonl
var sample []byte

//go:embed examples
var examples embed.FS

//go:embed arc-eval.jsonl
var arcEval []byte

// SampleName is the name of the sample corpus file.
const SampleName = "sample.jsonl"

// Sample returns the sample corpus as JSONL. The slice is shared: callers
// must not modify it.
func Sample() []byte { return sample }

// Examples returns the hand-written input files of the README's worked
// examples, as a tree rooted at the examples directory.
func Examples() fs.FS {
	sub, err := fs.Sub(examples, "examples")
	if err != nil {
		panic(err)
	}
	return sub
}

// ARCEval returns a small evaluation set in ARC's shape (choices as
// label and text objects) as JSONL, which the demo writes as the Parquet
// file examples/evals/arc.parquet. The slice is shared: callers must not
// modify it.
func ARCEval() []byte { return arcEval }
