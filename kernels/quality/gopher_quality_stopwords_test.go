package quality

import (
	"fmt"
	"testing"
	"time"
)

// A long stop word list goes straight to the general lookup: building the
// filter does not search multipliers for a table it cannot have (each try
// clears a table of 4 slots a word), and the words are still found.
func TestManyStopWordsBuildAtOnce(t *testing.T) {
	c := DefaultConfig()
	words := make([]string, 200_000)
	for i := range words {
		words[i] = fmt.Sprintf("w%d", i)
	}
	c.GopherQuality.StopWords = words
	c.GopherQuality.MinWordCount = 1
	start := time.Now()
	if _, ok := newStopTable(words); ok {
		t.Fatal("a table for 200,000 stop words")
	}
	o := apply(t, "gopher_quality", c, "w7 w199999 alpha beta gamma delta epsilon zeta eta theta iota kappa")
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("building and applying took %v", took)
	}
	if o.fail == "gopher_stop_words" {
		t.Errorf("the stop words w7 and w199999 were not found: %+v", o)
	}
}
