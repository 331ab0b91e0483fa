package texthash

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/internal/arrowtest"
)

func TestColumnHashesTextOrItsMatchingForm(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	p := arrowtest.Ptr
	col := arrowtest.Strings(mem, []*string{p("skip"), p("Héllo, World!"), nil, p("hello world"), p("hello  world"), p("tail")})
	defer col.Release()
	sliced := array.NewSlice(col, 1, 5).(*array.String)
	defer sliced.Release()

	exact, valid := (&Hasher{}).Column(sliced, nil, nil)
	if len(exact) != 4 || valid[1] || !valid[0] {
		t.Fatalf("hashes %v valid %v", exact, valid)
	}
	if exact[0] != Of([]byte("Héllo, World!")) || exact[2] == exact[3] || exact[0] == exact[2] {
		t.Fatal("exact hashes must follow the bytes")
	}
	match, _ := (&Hasher{Match: true}).Column(sliced, nil, nil)
	if match[0] != match[2] || match[2] != match[3] {
		t.Fatal("texts differing in case, accents, punctuation and spacing must hash alike in match mode")
	}
}
