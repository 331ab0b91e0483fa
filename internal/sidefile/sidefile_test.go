package sidefile

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadFileWithinItsLimit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stop.txt")
	os.WriteFile(path, []byte("the\nof\n"), 0o644)
	small := Kind{"word list", 7}
	if b, err := ReadFile(path, small); err != nil || string(b) != "the\nof\n" {
		t.Fatalf("%q, %v", b, err)
	}
	_, err := ReadFile(path, Kind{"word list", 6})
	var se *Error
	if !errors.As(err, &se) || err.Error() != "word list "+path+" holds 7 B or more; the limit is 6 B" {
		t.Errorf("got %v", err)
	}
}

func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for path, what := range map[string]string{fifo: "a FIFO", "/dev/zero": "a device", dir: "a directory"} {
		_, err := ReadFile(path, Tokenizer)
		if err == nil || !strings.Contains(err.Error(), "tokenizer file "+path+" is "+what+", not a regular file") {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// A file that grows past the limit after it was checked fails when the
// read reaches the limit, not at the end of the file.
func TestAFileGrowingPastItsLimitFails(t *testing.T) {
	path := filepath.Join(t.TempDir(), "grows")
	os.WriteFile(path, []byte("ab"), 0o644)
	k := Kind{"block list", 4}
	f, err := Open(path, k)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	os.WriteFile(path, []byte("abcdefghij"), 0o644)
	_, err = io.ReadAll(f)
	var se *Error
	if !errors.As(err, &se) || se.Size != 5 {
		t.Errorf("got %v", err)
	}
}

// The packages that load side files read them through this package:
// none opens a file with package os itself, except for the files named
// here, which sluice wrote.
func TestLoadersReadSideFilesThroughThisPackage(t *testing.T) {
	wrote := map[string]bool{ // files sluice wrote itself, not side files
		"cli/command/classify_memory.go":  true, // /proc/meminfo
		"cli/command/demo.go":             true,
		"cli/command/demo_examples.go":    true,
		"cli/command/report.go":           true, // the head of an earlier report, to recognize it
		"stages/dedup_minhash_sharded.go": true,
	}
	root := filepath.Join("..", "..")
	for _, dir := range []string{"cli/command", "pipeline/pipefile", "pipeline", "stages", "kernels", "contam", "budget", "schema", "memorize", "tasks", "recipes"} {
		filepath.WalkDir(filepath.Join(root, dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			if wrote[filepath.ToSlash(rel)] {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "os" && (sel.Sel.Name == "ReadFile" || sel.Sel.Name == "Open") {
						t.Errorf("%s: os.%s: read side files with sidefile.ReadFile or sidefile.Open", rel, sel.Sel.Name)
					}
				}
				return true
			})
			return nil
		})
	}
}
