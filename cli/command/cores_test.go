package command

import (
	"path/filepath"
	"runtime"
	"testing"
)

// A run with fewer workers than cores leaves GOMAXPROCS as it found it.
func TestWorkersRestoreGOMAXPROCS(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	dir := t.TempDir()
	in := cleanCorpus(t, dir)
	runMain(t, "convert", in, "-o", filepath.Join(dir, "out"), "--workers", "1")
	runMain(t, "clean", in, "-o", filepath.Join(dir, "clean"), "--filters", "c4", "--workers", "1")
	if n := runtime.GOMAXPROCS(0); n != 4 {
		t.Fatalf("GOMAXPROCS after runs with --workers 1: %d, want 4", n)
	}
}

func TestLimitCores(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	noop := limitCores(0)
	if n := runtime.GOMAXPROCS(0); n != 4 {
		t.Fatalf("workers 0: GOMAXPROCS %d, want 4", n)
	}
	noop()
	a := limitCores(2)
	if n := runtime.GOMAXPROCS(0); n != 2 {
		t.Fatalf("workers 2: GOMAXPROCS %d, want 2", n)
	}
	b := limitCores(1)
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("workers 2 and 1: GOMAXPROCS %d, want 1", n)
	}
	c := limitCores(8)
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("workers 2, 1 and 8: GOMAXPROCS %d, want 1", n)
	}
	// The first run ends before the others.
	a()
	a() // a second call does nothing
	if n := runtime.GOMAXPROCS(0); n != 1 {
		t.Fatalf("workers 1 and 8 left: GOMAXPROCS %d, want 1", n)
	}
	b()
	if n := runtime.GOMAXPROCS(0); n != 4 {
		t.Fatalf("workers 8 left: GOMAXPROCS %d, want 4", n)
	}
	c()
	if n := runtime.GOMAXPROCS(0); n != 4 {
		t.Fatalf("after every run: GOMAXPROCS %d, want 4", n)
	}
}
