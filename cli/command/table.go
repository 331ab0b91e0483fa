package command

import (
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// table lays rows of cells out in columns two spaces apart, each cell
// padded to the widest cell of its column as a terminal shows it, so that
// "日本" lines up with "ab  " and "café" with "cafe". Trailing spaces are
// cut. Rows may have fewer cells than others.
type table struct {
	indent string // written before every row
	right  []bool // columns aligned to the right; the others and any beyond are aligned to the left
	widths []int  // the display width of each column's widest cell so far
}

// measure widens the columns to fit rows; measuring several row sets
// before writing them aligns them as one table.
func (t *table) measure(rows [][]string) {
	for _, r := range rows {
		for i, c := range r {
			if i == len(t.widths) {
				t.widths = append(t.widths, 0)
			}
			t.widths[i] = max(t.widths[i], displayWidth(c))
		}
	}
}

// write writes rows in the columns measured so far, which must fit them.
func (t *table) write(w io.Writer, rows [][]string) {
	var b strings.Builder
	for _, r := range rows {
		b.Reset()
		b.WriteString(t.indent)
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", t.widths[i]-displayWidth(c))
			if i < len(t.right) && t.right[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		io.WriteString(w, strings.TrimRight(b.String(), " ")+"\n")
	}
}

// print measures rows and writes them.
func (t *table) print(w io.Writer, rows [][]string) {
	t.measure(rows)
	t.write(w, rows)
}

// alignRight returns the alignment of n columns of which those from the
// first'th on are aligned to the right (numbers).
func alignRight(first, n int) []bool {
	right := make([]bool, n)
	for i := first; i < n; i++ {
		right[i] = true
	}
	return right
}

// displayWidth is the number of terminal columns s takes: East Asian wide
// and fullwidth characters take two, combining marks and format
// characters (zero-width space, joiners) none, every other character and
// every ASCII byte one.
func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			n++
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		default:
			switch width.LookupRune(r).Kind() {
			case width.EastAsianWide, width.EastAsianFullwidth:
				n += 2
			default:
				n++
			}
		}
	}
	return n
}
