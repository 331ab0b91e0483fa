// Package arrowtest holds helpers for tests that build Arrow columns.
package arrowtest

import (
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Ptr returns a pointer to s, for the nullable values of Strings.
func Ptr(s string) *string { return &s }

// Strings builds a string column from vals; a nil value is a null. The
// caller releases it.
func Strings(mem memory.Allocator, vals []*string) *array.String {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(*v)
		}
	}
	return b.NewStringArray()
}

// LargeStrings is Strings for a large_utf8 column.
func LargeStrings(mem memory.Allocator, vals []*string) *array.LargeString {
	b := array.NewLargeStringBuilder(mem)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
		} else {
			b.Append(*v)
		}
	}
	return b.NewLargeStringArray()
}
