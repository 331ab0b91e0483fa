// Package hftok counts tokens with a Hugging Face tokenizer.json of the
// byte-level BPE family: GPT-2, GPT-NeoX, Llama 3, Qwen 2 and 3, DeepSeek,
// Mistral's Tekken and the like. The file is read from a local path; nothing
// is fetched.
//
// A Tokenizer is immutable and shared by all workers. Each worker makes its
// own Counter, which holds scratch buffers and a cache of the token ids of
// the pieces it has seen; a Counter is not safe for concurrent use.
//
// # What is counted
//
// Count gives the number of ids the tokenizers library's
// encode(text, add_special_tokens=False) gives with encode_special_tokens
// set, which is tiktoken's encode_ordinary for these models:
//
//   - Special added tokens ("special": true in added_tokens, such as
//     "<|endoftext|>" or "<|begin_of_text|>") are not recognised in the
//     text: a text that spells one out is tokenized as ordinary text.
//     Added tokens that are not special (such as Qwen's "<tool_call>")
//     are recognised as the library does, with their single_word, lstrip,
//     rstrip and normalized options.
//   - The post_processor is not run, so no BOS or EOS token is added, and
//     the decoder is ignored.
//
// # Supported tokenizer.json
//
//   - model: type "BPE" with vocab, merges as "a b" strings or ["a", "b"]
//     pairs, ignore_merges, unk_token, fuse_unk and byte_fallback.
//     continuing_subword_prefix and end_of_word_suffix must be empty, and a
//     dropout is ignored (counting is deterministic). Other model types
//     (WordPiece, Unigram, WordLevel) are an error wrapping ErrUnsupported.
//   - normalizer: null, NFC, NFD, NFKC, NFKD, or a Sequence of those.
//   - pre_tokenizer: ByteLevel (add_prefix_space, use_regex with GPT-2's
//     pattern), alone or last in a Sequence after Split steps (a Regex or
//     String pattern, any behavior, invert) and Digits (individual_digits).
//
// Split regexes are written for Oniguruma; they are translated to Go's
// RE2 syntax, with \s, \d and \w given their Unicode meaning. RE2 has no
// lookahead: the "\s+(?!\S)|\s+" pair that byte-level patterns end with
// is applied after the match, a run of whitespace before a non-space
// giving its last character to the next piece. A pattern with any other
// lookaround, an anchor or an atomic group is an error wrapping
// ErrUnsupported that quotes it.
//
// The split patterns of GPT-2, cl100k_base (Llama 3) and Qwen 2 run on
// hand-written matchers that a test checks against the compiled regex;
// other patterns run on Go's regexp, several times slower.
//
// Texts are bytes and need not be valid UTF-8: an invalid byte is split as
// a symbol character would be, and encoded as its own byte. Character
// classes follow Go's Unicode tables (15.0 in Go 1.26): a character added
// in a later Unicode version, such as a letter of the Garay script, is
// not a letter here while the tokenizers library and tiktoken know it, so
// a text holding one can split differently.
package hftok

import (
	"errors"
	"fmt"

	"github.com/sluice-data/sluice/internal/sidefile"
	"golang.org/x/text/unicode/norm"
)

// ErrUnsupported is wrapped by the errors for tokenizer.json features this
// package does not implement.
var ErrUnsupported = errors.New("unsupported")

// Tokenizer is a parsed byte-level BPE tokenizer. It is immutable and may
// be shared by goroutines, each with its own Counter.
type Tokenizer struct {
	vocab        map[string]int32  // token, in byte-level characters -> id
	merges       map[uint64]uint64 // pairKey(left, right) -> rank<<32 | merged id
	byteIDs      [256]int32        // id of each byte's one-character token, -1 if absent
	fallback     [256][]int32      // byte_fallback ids for a byte without one, nil if none
	ignoreMerges bool
	unkID        int32 // -1 without unk_token
	fuseUnk      bool

	forms     []norm.Form // normalizer
	steps     []step      // pre-tokenizer, ending with ByteLevel's own steps
	rawAdded  *addedSet   // added tokens matched before normalizing, nil if none
	normAdded *addedSet   // added tokens matched after normalizing, nil if none
}

// Load reads and parses the tokenizer.json at path. Errors name the path.
func Load(path string) (*Tokenizer, error) {
	data, err := sidefile.ReadFile(path, sidefile.Tokenizer)
	if err != nil {
		return nil, fmt.Errorf("hftok: %w", err)
	}
	t, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("hftok: %s: %w", path, err)
	}
	return t, nil
}

// Parse parses the contents of a tokenizer.json.
func Parse(data []byte) (*Tokenizer, error) {
	t, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("hftok: %w", err)
	}
	return t, nil
}

// VocabSize returns the number of tokens of the model's vocabulary, not
// counting added tokens outside it.
func (t *Tokenizer) VocabSize() int { return len(t.vocab) }

func pairKey(left, right int32) uint64 { return uint64(uint32(left))<<32 | uint64(uint32(right)) }

// byteRunes is GPT-2's bytes_to_unicode: the printable character that
// stands for each byte in a byte-level vocabulary. Printable Latin-1 bytes
// stand for themselves; the others, in order, for U+0100 onwards.
var byteRunes = func() (m [256]rune) {
	n := rune(0)
	for b := range 256 {
		if '!' <= b && b <= '~' || 0xA1 <= b && b <= 0xAC || 0xAE <= b && b <= 0xFF {
			m[b] = rune(b)
		} else {
			m[b] = 0x100 + n
			n++
		}
	}
	return m
}()

// appendByteLevel appends the byte-level spelling of p to dst.
func appendByteLevel(dst, p []byte) []byte {
	for _, b := range p {
		r := byteRunes[b]
		if r < 0x80 {
			dst = append(dst, byte(r))
		} else {
			dst = append(dst, byte(0xC0|r>>6), byte(0x80|r&0x3F))
		}
	}
	return dst
}
