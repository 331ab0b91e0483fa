package tokenize_test

import (
	"fmt"

	"github.com/sluice-data/sluice/kernels/tokenize"
)

func Example() {
	enc, err := tokenize.Get("cl100k_base")
	if err != nil {
		panic(err)
	}
	c := enc.NewCounter() // one per worker
	text := []byte("Hello, world! DON'T count 1234567 twice.")
	fmt.Println(c.Count(text))
	ids := c.AppendTokens(nil, text)
	for _, id := range ids[:4] {
		fmt.Printf("%d %q\n", id, enc.Token(id))
	}
	// Output:
	// 13
	// 9906 "Hello"
	// 11 ","
	// 1917 " world"
	// 0 "!"
}
