package tokenize

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/pkoukk/tiktoken-go-loader/assets"

	"github.com/sluice-data/sluice/internal/arrowtest"
)

func mustGet(t testing.TB, name string) *Encoding {
	t.Helper()
	enc, err := Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return enc
}

func TestGet(t *testing.T) {
	for _, name := range Names() {
		enc := mustGet(t, name)
		want := name
		if name == "gpt2" {
			want = "r50k_base"
		}
		if enc.Name() != want {
			t.Errorf("Get(%q).Name() = %q, want %q", name, enc.Name(), want)
		}
	}
	if mustGet(t, "gpt2") != mustGet(t, "r50k_base") {
		t.Error("gpt2 and r50k_base are different encodings")
	}
	for name, n := range map[string]int{"cl100k_base": 100256, "o200k_base": 199998, "r50k_base": 50256} {
		if got := mustGet(t, name).NumTokens(); got != n {
			t.Errorf("%s has %d tokens, want %d", name, got, n)
		}
	}
	_, err := Get("p50k")
	if !errors.Is(err, ErrUnknownEncoding) || !strings.Contains(err.Error(), "cl100k_base, o200k_base, r50k_base, gpt2") {
		t.Errorf("Get(p50k): %v", err)
	}
}

// TestRankFiles checks the embedded rank files against the SHA-256 sums
// that tiktoken publishes for them.
func TestRankFiles(t *testing.T) {
	for file, sum := range map[string]string{
		"cl100k_base.tiktoken": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
		"o200k_base.tiktoken":  "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
		"r50k_base.tiktoken":   "306cd27f03c1a714eca7108e03d66b7dc042abe8c258b44c199a7ed9838dd930",
	} {
		b, err := assets.Assets.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if got := sha256.Sum256(b); hex.EncodeToString(got[:]) != sum {
			t.Errorf("%s: sha256 %x, want %s", file, got, sum)
		}
	}
}

func TestToken(t *testing.T) {
	enc := mustGet(t, "cl100k_base")
	if got := string(enc.Token(15339)); got != "hello" {
		t.Errorf("Token(15339) = %q, want hello", got)
	}
	for _, id := range []int{-1, enc.NumTokens(), 100257} {
		if tok := enc.Token(id); tok != nil {
			t.Errorf("Token(%d) = %q, want nil", id, tok)
		}
	}
}

// decode concatenates the bytes of ids.
func decode(enc *Encoding, ids []int) []byte {
	var b []byte
	for _, id := range ids {
		b = append(b, enc.Token(id)...)
	}
	return b
}

// TestInvalidUTF8 checks that bytes that are not UTF-8 are tokenized as
// bytes, and as if each were U+FFFD when cutting the text into pieces.
func TestInvalidUTF8(t *testing.T) {
	for _, name := range encodingNames {
		enc := mustGet(t, name)
		c := enc.NewCounter()
		for _, s := range []string{"\xff", "a\xffb", "\xe2\x82", "x\xe2\x82y", "\xed\xa0\x80", "word\xc0\xafword", "'\xc5", " \xf0\x9f\x98"} {
			ids := c.AppendTokens(nil, []byte(s))
			if got := decode(enc, ids); string(got) != s {
				t.Errorf("%s %q: tokens decode to %q", name, s, got)
			}
			if n := c.Count([]byte(s)); n != len(ids) {
				t.Errorf("%s %q: Count %d, %d tokens", name, s, n, len(ids))
			}
		}
		// An invalid byte between letters ends the word, as U+FFFD would.
		got := pieces(enc, []byte("ab\xffcd"))
		if want := pieces(enc, []byte("ab\ufffdcd")); len(got) != len(want) {
			t.Errorf("%s: pieces %q, with U+FFFD %q", name, got, want)
		}
	}
}

func pieces(enc *Encoding, text []byte) []string {
	var out []string
	for i := 0; i < len(text); {
		j := enc.next(text, i)
		out = append(out, string(text[i:j]))
		i = j
	}
	return out
}

// TestMergeLong checks that the heap merge of long pieces joins the same
// pairs as tiktoken's quadratic loop, which merge uses for short ones.
func TestMergeLong(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var inputs [][]byte
	for _, text := range goldenTexts(t) {
		b := []byte(text.Text)
		for len(b) > 1 {
			n := min(len(b), 2+rng.IntN(300))
			inputs = append(inputs, b[:n])
			b = b[n:]
		}
	}
	for range 200 {
		b := make([]byte, 2+rng.IntN(200))
		alphabet := "aaaabbc ==--\xe4\xb8\x80"
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		inputs = append(inputs, b)
	}
	inputs = append(inputs, bytes.Repeat([]byte("a"), 1000), bytes.Repeat([]byte("ab"), 500), bytes.Repeat([]byte("\xe7\x9a\x84"), 300))
	for _, name := range encodingNames {
		v := mustGet(t, name).vocab
		var m merger
		for _, in := range inputs {
			short := slices.Clone(m.mergeShort(v, in, nil))
			long := m.mergeLong(v, in, nil)
			if !slices.Equal(short, long) {
				t.Fatalf("%s %q: quadratic merge %v, heap merge %v", name, in, short, long)
			}
		}
	}
}

// TestCacheBounds fills the piece cache past its bounds and checks that
// it starts over and that counts stay the same when it does.
func TestCacheBounds(t *testing.T) {
	enc := mustGet(t, "cl100k_base")
	c := enc.NewCounter()
	rng := rand.New(rand.NewPCG(3, 4))
	var text []byte
	resets, last := 0, 0
	for i := range 3 * cacheEntries {
		text = text[:0]
		for range 3 + rng.IntN(10) {
			text = append(text, byte('a'+rng.IntN(26)))
		}
		if i%1000 == 0 {
			text = append(text, bytes.Repeat([]byte("z"), cacheMaxPiece+1)...)
		}
		got := c.Count(text)
		if i%101 == 0 {
			if want := enc.NewCounter().Count(text); got != want {
				t.Fatalf("%q: %d tokens with a full cache, %d with an empty one", text, got, want)
			}
		}
		if c.cache.n > cacheEntries || len(c.cache.slots) > cacheSlots {
			t.Fatalf("cache has %d entries in %d slots", c.cache.n, len(c.cache.slots))
		}
		if c.cache.n < last {
			resets++
		}
		last = c.cache.n
	}
	if resets == 0 {
		t.Error("the cache never started over")
	}
}

func TestCountAllocs(t *testing.T) {
	var texts [][]byte
	for _, text := range goldenTexts(t) {
		texts = append(texts, []byte(text.Text))
	}
	for _, name := range encodingNames {
		c := mustGet(t, name).NewCounter()
		for _, text := range texts {
			c.Count(text)
		}
		allocs := testing.AllocsPerRun(5, func() {
			for _, text := range texts {
				c.Count(text)
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations to count warm texts", name, allocs)
		}
	}
}

var columnTexts = []*string{
	arrowtest.Ptr("hello world"),
	nil,
	arrowtest.Ptr(""),
	arrowtest.Ptr("DON'T count 1234567 tokens twice"),
	arrowtest.Ptr("数据是机器学习的核心"),
	nil,
	arrowtest.Ptr("emoji 👨‍👩‍👧‍👦 and\r\n  spaces   "),
	arrowtest.Ptr("last"),
}

func TestColumn(t *testing.T) {
	n := len(columnTexts)
	for _, tc := range []struct {
		name     string
		from, to int
	}{
		{"whole", 0, n},
		{"sliced", 1, n - 1},
		{"sliced from a null", 1, 4},
		{"sliced without nulls", 2, 5},
		{"empty", 3, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			c := mustGet(t, "o200k_base").NewCounter()
			want := columnTexts[tc.from:tc.to]

			arr := arrowtest.Strings(mem, columnTexts)
			defer arr.Release()
			in := array.NewSlice(arr, int64(tc.from), int64(tc.to)).(*array.String)
			defer in.Release()
			got := c.Column(mem, in)
			defer got.Release()
			checkColumn(t, c, got, want)

			lb := array.NewLargeStringBuilder(mem)
			defer lb.Release()
			for _, v := range columnTexts {
				if v == nil {
					lb.AppendNull()
				} else {
					lb.Append(*v)
				}
			}
			larr := lb.NewLargeStringArray()
			defer larr.Release()
			lin := array.NewSlice(larr, int64(tc.from), int64(tc.to)).(*array.LargeString)
			defer lin.Release()
			lgot := c.LargeColumn(mem, lin)
			defer lgot.Release()
			checkColumn(t, c, lgot, want)
		})
	}
}

func checkColumn(t *testing.T, c *Counter, got *array.Int64, want []*string) {
	t.Helper()
	if got.Len() != len(want) {
		t.Fatalf("length %d, want %d", got.Len(), len(want))
	}
	for i, w := range want {
		switch {
		case w == nil && got.IsValid(i):
			t.Errorf("row %d: %d, want null", i, got.Value(i))
		case w != nil && !got.IsValid(i):
			t.Errorf("row %d: null, want a count", i)
		case w != nil && got.Value(i) != int64(c.Count([]byte(*w))):
			t.Errorf("row %d %q: %d, want %d", i, *w, got.Value(i), c.Count([]byte(*w)))
		}
	}
}

// TestConcurrent counts with each Encoding in several goroutines at once,
// each with its own Counter.
func TestConcurrent(t *testing.T) {
	texts := goldenTexts(t)
	want := map[string][]int{}
	for _, name := range encodingNames {
		c := mustGet(t, name).NewCounter()
		for _, text := range texts {
			want[name] = append(want[name], c.Count([]byte(text.Text)))
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			name := encodingNames[g%len(encodingNames)]
			enc, err := Get(name)
			if err != nil {
				t.Error(err)
				return
			}
			c := enc.NewCounter()
			for i, text := range texts {
				if n := c.Count([]byte(text.Text)); n != want[name][i] {
					t.Errorf("%s %s: %d tokens, want %d", name, text.Name, n, want[name][i])
				}
			}
		})
	}
	wg.Wait()
}
