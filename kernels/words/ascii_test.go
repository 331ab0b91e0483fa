package words

import "testing"

// TestFirstNonASCII checks FirstNonASCII's 32- and 8-byte steps against a
// byte-by-byte search, with one or two non-ASCII bytes at every position
// of texts up to 100 bytes long, from every start.
func TestFirstNonASCII(t *testing.T) {
	for n := range 100 {
		for at := range n + 1 {
			for _, second := range []int{-1, at + 1, at + 9, at + 33} {
				b := make([]byte, n)
				for i := range b {
					b[i] = 'a' + byte(i%26)
				}
				for _, p := range []int{at, second} {
					if p >= 0 && p < n {
						b[p] = 0x80 | byte(p)
					}
				}
				for from := range n + 1 {
					want := n
					for i := from; i < n; i++ {
						if b[i] >= 0x80 {
							want = i
							break
						}
					}
					if got := FirstNonASCII(b, from); got != want {
						t.Fatalf("FirstNonASCII(%q, %d) = %d, want %d", b, from, got, want)
					}
				}
			}
		}
	}
}
