package htmltext

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func TestExtractColumnOnASlicedArrayWithNulls(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	pb := array.NewBinaryBuilder(mem, arrow.BinaryTypes.Binary)
	defer pb.Release()
	cb := array.NewStringBuilder(mem)
	defer cb.Release()
	rows := []struct {
		page, ctype string
		null        bool
	}{
		{"<p>skipped by the slice</p>", "text/html", false},
		{"<html lang=de><title>T</title><p>Guten Tag, liebe Leser.</p></html>", "text/html; charset=utf-8", false},
		{"", "", true},
		{"\x89PNG...", "image/png", false},
		{"<script>only()</script>", "", false},
		{"line one\n\nline two\n", "text/plain", false},
	}
	for _, r := range rows {
		if r.null {
			pb.AppendNull()
		} else {
			pb.Append([]byte(r.page))
		}
		cb.Append(r.ctype)
	}
	payload, ctype := pb.NewBinaryArray(), cb.NewStringArray()
	defer payload.Release()
	defer ctype.Release()
	ps := array.NewSlice(payload, 1, int64(len(rows))).(*array.Binary)
	cs := array.NewSlice(ctype, 1, int64(len(rows))).(*array.String)
	defer ps.Release()
	defer cs.Release()
	cols, out := ExtractColumn(mem, ps, cs, Main, true)
	defer cols.Release()
	want := []Outcome{Extracted, NoPayload, NotHTML, Empty, Extracted}
	for i, o := range out {
		if o != want[i] {
			t.Fatalf("outcome %d: %d, want %d", i, o, want[i])
		}
	}
	if cols.Text.Value(0) != "Guten Tag, liebe Leser." || cols.Title.Value(0) != "T" || cols.Lang.Value(0) != "de" || cols.Charset.Value(0) != "utf-8" {
		t.Fatalf("row 0: %q %q %q %q", cols.Text.Value(0), cols.Title.Value(0), cols.Lang.Value(0), cols.Charset.Value(0))
	}
	if cols.Text.IsValid(1) || cols.Text.IsValid(2) || cols.Text.Value(3) != "" || cols.Text.Value(4) != "line one\n\nline two" {
		t.Fatalf("texts %v", cols.Text)
	}
	if cols.HTML.Value(0) != rows[1].page {
		t.Fatalf("html %q", cols.HTML.Value(0))
	}
}
