package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

// headWords are the most frequent words of English prose. They take the
// first ranks of the Zipf curve, so that the text reads like English at a
// glance and its most common shingles are those of real prose.
var headWords = strings.Fields(`
the of and to a in is it that was for on are as with his they at be this
from have or by one had not but what all were when we there can an your
which their said if do will each about how up out them then she many some
so these would other into has more her two like him see time could no
make than first been its who now people my made over did down only way
find use may water long little very after words called just where most
know get through back much before go good new write our used me man too
any day same right look think also around another came come work three
must because does part even place well such here take why things help put
years different away again off went old number great tell men say small
every found still between name should home big give air line set own under
read last never us left end along while might next sound below saw
something thought both few those always looked show large often together
asked house world going want school important until form food keep
children feet land side without boy once animals life enough took
sometimes four head above kind began almost live page got earth need far
hand high year mother light parts country father let night following
picture being study second eyes soon times story boys since white days
paper hard near sentence better best across during today others however
sure means knew its try told young miles sun ways thing whole hear
example heard several change answer room sea against top turned learn
point city play toward five using himself usually`)

// The pieces of the made-up words that follow the head: English-like
// syllables, so that word lengths and letter frequencies look like prose.
var (
	onsets = strings.Fields("b c d f g h j k l m n p r s t v w y z b c d f g l m n p r s t " +
		"bl br ch cl cr dr fl fr gl gr pl pr sc sh sk sl sp st str th tr wh qu")
	nuclei   = strings.Fields("a e i o u a e i o u a e i o ai ea ee ie oa ou oo ay")
	codas    = []string{"", "", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ng", "ck", "rt", "nt", "x", "sh"}
	suffixes = []string{"", "", "", "", "", "", "ing", "ed", "er", "ly", "tion", "ness", "ment", "able", "ity", "ous", "al", "s"}
)

// vocabSize is the number of distinct words of a corpus: enough that the
// vocabulary is large and documents rarely share long runs of words by
// chance, as with a real dictionary.
const vocabSize = 60000

// makeVocab returns the word list in rank order: the head words, then
// made-up words in an order that depends on seed (the same words for every
// seed; only their ranks move).
func makeVocab(seed uint64) []string {
	r := rand.New(rand.NewPCG(0x51_0CE, 0x0BAD_5EED)) // the words themselves never change
	seen := make(map[string]bool, vocabSize)
	for _, w := range headWords {
		seen[w] = true
	}
	made := make([]string, 0, vocabSize)
	for len(made) < vocabSize-len(headWords) {
		var b strings.Builder
		syll := 1 + r.IntN(3)
		if r.IntN(6) == 0 {
			syll++
		}
		for i := 0; i < syll; i++ {
			if i == 0 || r.IntN(3) > 0 {
				b.WriteString(onsets[r.IntN(len(onsets))])
			}
			b.WriteString(nuclei[r.IntN(len(nuclei))])
			if i == syll-1 || r.IntN(3) == 0 {
				b.WriteString(codas[r.IntN(len(codas))])
			}
		}
		b.WriteString(suffixes[r.IntN(len(suffixes))])
		w := b.String()
		if len(w) < 2 || seen[w] {
			continue
		}
		seen[w] = true
		made = append(made, w)
	}
	slices.Sort(made)
	rs := rand.New(rand.NewPCG(seed, 0x7E_AB))
	rs.Shuffle(len(made), func(i, j int) { made[i], made[j] = made[j], made[i] })
	return append(slices.Clone(headWords), made...)
}

// zipf draws words with probability proportional to 1/rank^s.
type zipf struct {
	words []string
	cum   []float64
}

func newZipf(words []string, s float64) *zipf {
	z := &zipf{words: words, cum: make([]float64, len(words))}
	acc := 0.0
	for i := range words {
		acc += 1 / math.Pow(float64(i+1), s)
		z.cum[i] = acc
	}
	return z
}

func (z *zipf) word(r *rand.Rand) string {
	x := r.Float64() * z.cum[len(z.cum)-1]
	i := sort.SearchFloat64s(z.cum, x)
	if i >= len(z.words) {
		i = len(z.words) - 1
	}
	return z.words[i]
}

func (z *zipf) fill(r *rand.Rand, ws []string) []string {
	for i := range ws {
		ws[i] = z.word(r)
	}
	return ws
}
