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
package demo

import _ "embed"

//go:embed sample.jsonl
var sample []byte

// SampleName is the name of the sample corpus file.
const SampleName = "sample.jsonl"

// Sample returns the sample corpus as JSONL. The slice is shared: callers
// must not modify it.
func Sample() []byte { return sample }
