package tokenize

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// Encoding is one tiktoken encoding: its pre-tokenizer and its token ranks.
// It is immutable and safe for concurrent use; each worker counts with its
// own Counter.
type Encoding struct {
	name  string
	next  func(text []byte, i int) int // the pre-tokenizer: end of the piece at i
	vocab *vocab
}

// ErrUnknownEncoding is the cause of Get's error for a name it does not know.
var ErrUnknownEncoding = errors.New("tokenize: unknown encoding")

type spec struct {
	file string // rank file in the embedded assets
	next func([]byte, int) int

	once sync.Once
	enc  *Encoding
	err  error
}

var specs = map[string]*spec{
	"cl100k_base": {file: "cl100k_base.tiktoken", next: nextCL100K},
	"o200k_base":  {file: "o200k_base.tiktoken", next: nextO200K},
	"r50k_base":   {file: "r50k_base.tiktoken", next: nextR50K},
}

// aliases maps other names to the name of the encoding they stand for.
var aliases = map[string]string{"gpt2": "r50k_base"}

// Names returns the names Get accepts: the encodings, then the aliases.
func Names() []string { return []string{"cl100k_base", "o200k_base", "r50k_base", "gpt2"} }

// Get returns the encoding called name: "cl100k_base" (GPT-4, GPT-3.5),
// "o200k_base" (GPT-4o and later) or "r50k_base" (GPT-2, also called
// "gpt2"). The ranks are built into the binary; the first Get of an
// encoding parses them (tens of milliseconds), later ones return the same
// *Encoding.
func Get(name string) (*Encoding, error) {
	canonical := name
	if a, ok := aliases[name]; ok {
		canonical = a
	}
	s, ok := specs[canonical]
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownEncoding, name, strings.Join(Names(), ", "))
	}
	s.once.Do(func() {
		loadClasses()
		file, err := assets.Assets.ReadFile(s.file)
		if err != nil {
			s.err = fmt.Errorf("tokenize: %s: %w", canonical, err)
			return
		}
		v, err := parseTiktoken(file)
		if err != nil {
			s.err = fmt.Errorf("tokenize: %s: %s: %w", canonical, s.file, err)
			return
		}
		s.enc = &Encoding{name: canonical, next: s.next, vocab: v}
	})
	return s.enc, s.err
}

// Name returns the encoding's name; "r50k_base" for "gpt2".
func (e *Encoding) Name() string { return e.name }

// NumTokens returns the number of ordinary tokens (ranks) of the encoding;
// ids run from 0 to NumTokens()-1. Special tokens are not included.
func (e *Encoding) NumTokens() int { return len(e.vocab.start) - 1 }

// Token returns the bytes of token id, or nil if id is not an ordinary
// token of the encoding. The caller must not modify them.
func (e *Encoding) Token(id int) []byte {
	if id < 0 || id >= e.NumTokens() {
		return nil
	}
	t := e.vocab.token(uint32(id))
	if len(t) == 0 {
		return nil
	}
	return t[:len(t):len(t)]
}
