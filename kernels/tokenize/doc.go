// Package tokenize counts tokens, and gives their ids, for OpenAI's tiktoken
// encodings cl100k_base, o200k_base and r50k_base (GPT-2), offline and
// exactly as tiktoken's encode_ordinary does.
//
// # Model
//
// An Encoding (Get) is immutable and shared by all workers. Each worker
// makes its own Counter (Encoding.NewCounter), which holds scratch space and
// a bounded cache of the tokens of recent pieces; a Counter is not safe for
// concurrent use. Counter.Column is the kernel over an Arrow string column:
// allocator in, a new int64 column of the same length out (null texts give
// null counts), which the caller releases; the input is not modified.
//
// # Exactness
//
// Tokenizing has two steps. The text is first cut into pieces by the
// encoding's regular expression; here each expression is a hand-written
// scanner that finds the same matches as the backtracking engine tiktoken
// runs it with, down to the (?!\S) look-ahead and the case-insensitive
// contractions. The character classes (\p{L} by case, \p{M}, \p{N}, \s) come
// from Unicode 16.0.0, the version of the reference's regex engine, in a
// generated table (testdata/gen_unicode.mjs), not from package unicode, whose
// version follows the Go release. Each piece that is not itself a token is
// then merged byte pair by byte pair, lowest rank first and leftmost first
// among equals, as tiktoken does.
//
// The tests compare the token ids of a varied set of texts, token for
// token, with those of the reference, the npm package tiktoken 1.0.22
// (tiktoken's Rust core compiled to WASM); testdata/gen_golden.js writes
// them.
//
// The ranks are the .tiktoken files that OpenAI publishes, embedded in the
// binary by the module github.com/pkoukk/tiktoken-go-loader; the tests check
// them against tiktoken's published SHA-256 sums. Nothing is downloaded.
//
// # Special tokens and invalid UTF-8
//
// Special tokens such as <|endoftext|> are not recognized: that text counts
// as the ordinary text it is, as with encode_ordinary. Texts should be valid
// UTF-8, as sluice's readers make them by replacing invalid bytes with
// U+FFFD; tiktoken itself only takes Unicode strings. Invalid bytes still
// get a deterministic result: for cutting pieces each one counts as a
// character of U+FFFD's class, and it is encoded as the byte it is.
package tokenize
