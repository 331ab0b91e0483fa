package quality

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/sluice-data/sluice/internal/testcorpus"
)

// TestGopherQualityHashesWords checks the word hashes that gopher_quality
// leaves for gopher_repetition against the ones gopher_repetition computes
// itself.
func TestGopherQualityHashesWords(t *testing.T) {
	texts := []string{"", "a", "short", "a b c d e f g h", strings.Repeat("word ", 40),
		"x " + strings.Repeat("y", 17) + " " + strings.Repeat("z", 16) + " " + strings.Repeat("w", 9) + " end",
		"ünïcode is not hashed here", "THE The the tHe of Of"}
	texts = append(texts, testcorpus.Texts()...)
	gq := newGopherQuality(DefaultConfig().GopherQuality)
	col := column{n: 1}
	r := gq.start(memory.NewGoAllocator(), &col, nil)
	defer func() {
		res := r.result(&col, []string{""})
		res.Release()
	}()
	var v view
	sc := &scratch{gq: gopherQualityScratch{caser: lowerCaser()}, hashWords: true}
	hashed := 0
	for _, text := range texts {
		v.reset([]byte(text))
		r.row(&v, sc, 0)
		ws := v.Words()
		if !v.wordHashes {
			if v.ascii && len(text) >= 8 {
				t.Errorf("%.40q: no word hashes", text)
			}
			continue
		}
		hashed++
		if len(sc.gr.wh) != len(ws) {
			t.Fatalf("%.40q: %d hashes for %d words", text, len(sc.gr.wh), len(ws))
		}
		for i, w := range ws {
			if got, want := sc.gr.wh[i], wordHash(v.text, int(w.Start), int(w.End)); got != want {
				t.Fatalf("%.40q: word %q hashes to %x, want %x", text, w.Of(v.text), got, want)
			}
		}
	}
	if hashed < 200 {
		t.Errorf("only %d texts hashed", hashed)
	}
}
