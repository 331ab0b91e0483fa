// Package ngram hashes the word n-grams of texts in the matching normal
// form: the one definition of "the same n-gram" that decontamination (and
// any other stage comparing word runs across texts) uses.
//
// # Words and hashes
//
// A text is put in the match form of normalize.AppendMatchForm
// (compatibility-decomposed, accents dropped, lowercased, punctuation and
// symbols turned into spaces, whitespace collapsed) and split into words by
// words.Split. So "The Quick, brown fox!" and "the quick brown FOX" have the
// same words, and the same n-grams.
//
// Each word is hashed once, w = xxhash64(word) of its bytes in the match
// form, and the hash of an n-gram of words w1..wn combines them in order:
//
//	x = 0
//	x = (x XOR w_i) * P1 mod 2^64, for i = 1..n
//	x = avalanche(x)
//
// with P1 and the final avalanche those of xxhash64. Each step is a
// bijection of x, so two n-grams of the same length whose word hashes
// differ never share a hash. These are the shingle hashes the minhash
// package documents; the tests pin that they agree.
//
// A text of fewer than n words has no n-grams (Append returns none); a
// caller that wants such a text to count as one n-gram of all its words
// uses Combine on WordHashes.
//
// # Use
//
// A Scratch holds one worker's buffers (match form, word spans, word
// hashes) and is reused from text to text, so hashing allocates nothing
// once the buffers have grown. A Scratch must not be used by two
// goroutines at once. Results depend only on the text and n.
package ngram
