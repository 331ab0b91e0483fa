package normalize_test

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/sluice-data/sluice/kernels/normalize"
)

func ExampleAppendText() {
	src := []byte("\ufeffCafe\u0301 menu\r\n\r\n\r\n\r\nＦｕｌｌ ｗｉｄｔｈ, ﬁne.   \r\n")
	fmt.Printf("%q\n", normalize.AppendText(nil, src, normalize.Options{}))
	fmt.Printf("%q\n", normalize.AppendText(nil, src, normalize.Options{Form: normalize.NFKC}))
	fmt.Printf("%q\n", normalize.AppendText(nil, []byte("cafÃ© â€œquotedâ€\u009d"), normalize.Options{FixMojibake: true}))
	// Output:
	// "Café menu\n\nＦｕｌｌ ｗｉｄｔｈ, ﬁne."
	// "Café menu\n\nFull width, fine."
	// "café “quoted”"
}

func ExampleAppendMatchForm() {
	a := normalize.AppendMatchForm(nil, []byte("Héllo, WORLD!  It's—fine."))
	b := normalize.AppendMatchForm(nil, []byte("hello world: it’s fine"))
	fmt.Printf("%q %v\n", a, string(a) == string(b))
	// Output:
	// "hello world it s fine" true
}

func ExampleColumn() {
	mem := memory.NewGoAllocator()
	b := array.NewStringBuilder(mem)
	defer b.Release()
	b.AppendValues([]string{"clean", "", "two  \r\nlines"}, []bool{true, false, true})
	in := b.NewStringArray()
	defer in.Release()

	out, changed := normalize.Column(mem, in, normalize.Options{})
	defer out.Release()
	fmt.Printf("%v, %d changed\n", out, changed)
	// Output:
	// ["clean" (null) "two\nlines"], 1 changed
}
