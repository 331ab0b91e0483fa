package testcorpus

import "testing"

func TestTexts(t *testing.T) {
	texts := Texts()
	if len(texts) != 300 {
		t.Fatalf("%d texts, want 300", len(texts))
	}
	if b := Bytes(); b < 500_000 {
		t.Fatalf("%d bytes of text, want the generator's ~3 KB a document", b)
	}
}
