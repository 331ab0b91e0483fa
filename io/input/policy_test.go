package input

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLiteralNameWinsOverGlob checks that an argument naming an existing
// file is that file, even with glob characters in its name, and is a glob
// only when no file has that name.
func TestLiteralNameWinsOverGlob(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	write(t, dir, map[string]string{"[a].jsonl": "{}\n", "a.jsonl": "{}\n{}\n", "x[1].jsonl": "{}\n", "b*.jsonl": "{}\n", "bc.jsonl": "{}\n"})
	cases := map[string]string{
		"[a].jsonl":  "[a].jsonl",
		"x[1].jsonl": "x[1].jsonl",
		"b*.jsonl":   "b*.jsonl",
		"[b].jsonl":  "", // no such file: a glob, which matches none
		"?.jsonl":    "a.jsonl",
	}
	for arg, want := range cases {
		set, err := Scan([]string{arg}, ScanOptions{})
		if want == "" {
			if err == nil || !strings.Contains(err.Error(), "no file matches") {
				t.Errorf("%s: %v, want no match", arg, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", arg, err)
			continue
		}
		var got []string
		for _, f := range set.Files {
			got = append(got, f.Path)
		}
		if strings.Join(got, ",") != want {
			t.Errorf("%s read %v, want %s", arg, got, want)
		}
	}
}

// TestScanFollowsLinkedFolders checks that a symbolic link to a folder in
// an input directory is followed and reported, and that a link back to a
// folder above it is an error that names it.
func TestScanFollowsLinkedFolders(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"corp/a.jsonl": "{}\n", "elsewhere/b.jsonl": "{}\n", "elsewhere/deep/c.jsonl": "{}\n"})
	corp := filepath.Join(dir, "corp")
	if err := os.Symlink("../elsewhere", filepath.Join(corp, "linked")); err != nil {
		t.Fatal(err)
	}
	set, err := Scan([]string{corp}, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rels(t, corp, set.Files), ","); got != "a.jsonl,linked/b.jsonl,linked/deep/c.jsonl" {
		t.Errorf("scan found %s", got)
	}
	if len(set.Links) != 1 || set.Links[0] != filepath.Join(corp, "linked") {
		t.Errorf("links followed %v", set.Links)
	}

	// Two links to one folder: its files are read once.
	if err := os.Symlink("../elsewhere", filepath.Join(corp, "again")); err != nil {
		t.Fatal(err)
	}
	set, err = Scan([]string{corp}, ScanOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Files) != 3 || len(set.Links) != 2 {
		t.Errorf("two links: files %v, links %v", rels(t, corp, set.Files), set.Links)
	}

	loop := filepath.Join(dir, "elsewhere", "deep", "up")
	if err := os.Symlink("../..", loop); err != nil {
		t.Fatal(err)
	}
	_, err = Scan([]string{corp}, ScanOptions{})
	if err == nil || !strings.Contains(err.Error(), "loop") || !strings.Contains(err.Error(), "up") {
		t.Fatalf("loop: %v", err)
	}
}

// TestFileCutShortWhileReadFails checks that a file that shrinks, grows or
// is rewritten between Stat and the end of its reading fails the read
// naming it, instead of ending early as if it were shorter.
func TestFileCutShortWhileReadFails(t *testing.T) {
	body := strings.Repeat(`{"text":"a row of the file"}`+"\n", 20000)
	changes := map[string]func(path string) error{
		"truncated": func(p string) error { return os.Truncate(p, 4096) },
		"grown": func(p string) error {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteString("{}\n")
			return err
		},
		"rewritten": func(p string) error {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteAt([]byte("{}"), 1<<16)
			return err
		},
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "big.jsonl")
			write(t, filepath.Dir(path), map[string]string{"big.jsonl": body})
			f, err := Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			s, err := Open(f)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := io.ReadFull(s, make([]byte, 1024)); err != nil {
				t.Fatal(err)
			}
			opened, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if err := change(path); err != nil {
				t.Fatal(err)
			}
			// A coarse clock may give the rewrite the time of the first
			// write: move it on, as a later write would.
			later := opened.ModTime().Add(time.Second)
			if err := os.Chtimes(path, later, later); err != nil {
				t.Fatal(err)
			}
			_, err = io.Copy(io.Discard, s)
			if !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), path) {
				t.Fatalf("read to the end: %v, want an error naming the file", err)
			}
			if err := s.Drain(); !errors.Is(err, ErrChanged) {
				t.Fatalf("drain: %v", err)
			}
		})
	}
	// An unchanged file reads to its end.
	path := filepath.Join(t.TempDir(), "same.jsonl")
	write(t, filepath.Dir(path), map[string]string{"same.jsonl": body})
	f, _ := Stat(path)
	s, err := Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := io.Copy(io.Discard, s); err != nil || n != int64(len(body)) {
		t.Fatalf("unchanged file: %d bytes, %v", n, err)
	}
}

// TestStreamsAreRefusedForASecondRead checks that standard input and a
// FIFO are streams, which RefuseStreams refuses and Open opens once.
func TestStreamsAreRefusedForASecondRead(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "rows.fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO here:", err)
	}
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			w.WriteString("{}\n")
			w.Close()
		}
	}()
	f, err := Stat(fifo)
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "a.jsonl")
	write(t, dir, map[string]string{"a.jsonl": "{}\n"})
	p, err := Stat(plain)
	if err != nil {
		t.Fatal(err)
	}
	if err := RefuseStreams([]File{p}, "stage x"); err != nil {
		t.Fatalf("a file refused: %v", err)
	}
	err = RefuseStreams([]File{p, f}, "stage x")
	if !errors.Is(err, ErrReadOnce) || !strings.Contains(err.Error(), fifo) || !strings.Contains(err.Error(), "stage x") {
		t.Fatalf("FIFO: %v", err)
	}
	s, err := Open(f)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, s)
	s.Close()
	if _, err := Open(f); !errors.Is(err, ErrReadOnce) {
		t.Fatalf("second open: %v", err)
	}
}
