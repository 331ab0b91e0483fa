package command

import (
	"slices"
	"testing"

	"github.com/sluice-data/sluice/pipeline/pipefile"
)

func TestMergeFile(t *testing.T) {
	file := &pipefile.File{Input: []string{"a.jsonl"}, Output: "file-out", TextField: "body", Workers: 3, Overwrite: true}

	// No flags: the file's settings.
	o := &ConvertOptions{TextField: "text", Workers: 8}
	if in := o.mergeFile(file, nil); !slices.Equal(in, file.Input) {
		t.Errorf("inputs %q, want the file's %q", in, file.Input)
	}
	if o.Output != "file-out" || o.TextField != "body" || o.Workers != 3 || !o.Overwrite {
		t.Errorf("without flags: %+v", o)
	}

	// -o and arguments win; the file's workers replace --workers.
	o = &ConvertOptions{TextField: "text", Output: "flag-out", Workers: 8}
	if in := o.mergeFile(&pipefile.File{Input: file.Input, TextField: "text"}, []string{"b.jsonl"}); !slices.Equal(in, []string{"b.jsonl"}) {
		t.Errorf("inputs %q, want the arguments", in)
	}
	if o.Output != "flag-out" || o.Workers != 8 || o.Overwrite {
		t.Errorf("with flags: %+v", o)
	}
}
