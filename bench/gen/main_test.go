package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCorpusIsDeterministicWithPlantedCopies(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for _, f := range []string{a, b} {
		if err := writeCorpus(400, 9, 0.05, 0.05, f); err != nil {
			t.Fatal(err)
		}
	}
	da, _ := os.ReadFile(a)
	db, _ := os.ReadFile(b)
	if !bytes.Equal(da, db) {
		t.Fatal("two runs with the same seed wrote different corpora")
	}
	if n := bytes.Count(da, []byte("\n")); n != 400 {
		t.Fatalf("%d lines, want 400", n)
	}
	dups, err := os.ReadFile(filepath.Join(dir, "a.dups.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{`"kind":"exact"`, `"kind":"near","level":0.85`, `"kind":"near","level":1`} {
		if !strings.Contains(string(dups), kind) {
			t.Errorf("no %s member in the true clusters", kind)
		}
	}
}

func TestNearCopyHitsItsLevel(t *testing.T) {
	p := prose{newZipf(makeVocab(1), 1.07)}
	orig := p.doc(newRand(1, 1))
	for orig == "" || len(strings.Fields(orig)) < 300 {
		orig += "\n\n" + p.doc(newRand(1, 2))
	}
	for _, level := range levels {
		text, j := nearCopy(newRand(2, 3), p, orig, level)
		if level == 1 && text == orig {
			t.Error("level 1.0 copy has the same bytes as its original")
		}
		if d := j - level; d > 0.03 || d < -0.03 {
			t.Errorf("level %v: Jaccard %.4f", level, j)
		}
	}
}
