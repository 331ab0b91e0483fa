package memorize

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"
)

// CanaryParams say how canaries are made.
type CanaryParams struct {
	N       int    `json:"n"`
	Repeats []int  `json:"repeats"` // canary i is inserted Repeats[i % len(Repeats)] times
	Seed    uint64 `json:"seed"`
	// Format is the canary's text with {secret} where the secret goes;
	// the text before it is the prompt a model is given.
	Format string `json:"format"`
	Digits int    `json:"digits"` // the secret: this many random decimal digits
}

// DefaultFormat is the canary format: the "secret sharer" test's sentence.
const DefaultFormat = "my secret canary code is {secret}"

// Validate lists every problem with p.
func (p CanaryParams) Validate() error {
	var problems []string
	if p.N < 1 {
		problems = append(problems, "n must be at least 1")
	}
	if len(p.Repeats) == 0 {
		problems = append(problems, "give at least one repeat count")
	}
	for _, r := range p.Repeats {
		if r < 1 {
			problems = append(problems, fmt.Sprintf("repeat count %d must be at least 1", r))
		}
	}
	if strings.Count(p.Format, "{secret}") != 1 {
		problems = append(problems, "the format holds {secret} exactly once")
	}
	if p.Digits < 4 || p.Digits > 18 {
		problems = append(problems, "digits must be between 4 and 18")
	}
	if p.N > 0 && p.Digits >= 4 && p.Digits <= 18 && float64(p.N) > math.Pow(10, float64(p.Digits))/2 {
		problems = append(problems, "too many canaries for the digits of a secret")
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// Canary is one generated secret and where it went.
type Canary struct {
	ID      string `json:"id"`
	Text    string `json:"canary"`
	Prompt  string `json:"prompt"` // the text before the secret
	Secret  string `json:"secret"`
	Repeats int    `json:"repeats"`
	// SpaceBits is log2 of the number of possible secrets: the largest
	// exposure a canary can have.
	SpaceBits float64     `json:"space_bits"`
	Inserted  []Insertion `json:"inserted,omitempty"`
}

// Insertion is one copy of a canary in a dataset.
type Insertion struct {
	Row int64  `json:"row"` // the row's place among the rows with text, from 0, in input order
	ID  string `json:"id"`  // the row's id, or file:line; a copy made a row of its own: that row's id
	// After is, for a copy made a row of its own, the id of the row it
	// follows (the row Row names).
	After string `json:"after,omitempty"`
}

// Generate makes the canaries of p: distinct random secrets from the seed.
func Generate(p CanaryParams) ([]Canary, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	state := p.Seed
	seen := map[string]bool{}
	space := math.Pow(10, float64(p.Digits))
	prompt, _, _ := strings.Cut(p.Format, "{secret}")
	out := make([]Canary, 0, p.N)
	width := len(fmt.Sprint(p.N))
	for i := 0; i < p.N; i++ {
		var secret string
		for {
			var b strings.Builder
			for d := 0; d < p.Digits; d++ {
				state = splitmix(state)
				b.WriteByte(byte('0' + state%10))
			}
			if secret = b.String(); !seen[secret] {
				break
			}
		}
		seen[secret] = true
		out = append(out, Canary{ID: fmt.Sprintf("canary-%0*d", width, i+1), Text: strings.Replace(p.Format, "{secret}", secret, 1),
			Prompt: strings.TrimRight(prompt, " "), Secret: secret, Repeats: p.Repeats[i%len(p.Repeats)], SpaceBits: math.Log2(space)})
	}
	return out, nil
}

// Copy is one copy of a canary planned into a row.
type Copy struct {
	Canary int    // index into the canaries
	Where  uint64 // chooses the paragraph boundary it goes at
}

// Plan places every copy of every canary in one of rows rows (with
// replacement: a row may take several), from the seed. It returns the
// copies per row, in canary order within a row.
func Plan(canaries []Canary, rows int64, seed uint64) (map[int64][]Copy, error) {
	total := 0
	for _, c := range canaries {
		total += c.Repeats
	}
	if rows <= 0 && total > 0 {
		return nil, fmt.Errorf("no row with text to insert canaries into")
	}
	plan := map[int64][]Copy{}
	state := splitmix(seed ^ 0xC0FFEE)
	for i, c := range canaries {
		for k := 0; k < c.Repeats; k++ {
			state = splitmix(state)
			row := int64(state % uint64(rows))
			state = splitmix(state)
			plan[row] = append(plan[row], Copy{Canary: i, Where: state})
		}
	}
	return plan, nil
}

// Splice returns text with each canary text inserted as a paragraph of
// its own at a paragraph boundary (the start, the end, or between two
// paragraphs separated by a blank line), chosen by its copy's Where.
func Splice(text []byte, copies []Copy, canaries []Canary) []byte {
	out := append([]byte(nil), text...)
	for _, cp := range copies {
		bounds := []int{0}
		for i := 0; ; {
			j := bytes.Index(out[i:], []byte("\n\n"))
			if j < 0 {
				break
			}
			bounds = append(bounds, i+j+1) // after the first newline: "...\n" + canary + "\n" + "\n..."
			i += j + 2
		}
		bounds = append(bounds, len(out))
		at := bounds[cp.Where%uint64(len(bounds))]
		piece := canaries[cp.Canary].Text
		var ins string
		switch {
		case at == 0 && len(out) == 0:
			ins = piece
		case at == 0:
			ins = piece + "\n\n"
		case at == len(out):
			ins = "\n\n" + piece
		default:
			ins = "\n" + piece + "\n"
		}
		out = append(out[:at], append([]byte(ins), out[at:]...)...)
	}
	return out
}

// SortInsertions puts each canary's insertions in row order.
func SortInsertions(canaries []Canary) {
	for i := range canaries {
		ins := canaries[i].Inserted
		sort.Slice(ins, func(a, b int) bool {
			if ins[a].Row != ins[b].Row {
				return ins[a].Row < ins[b].Row
			}
			return ins[a].ID < ins[b].ID
		})
	}
}
