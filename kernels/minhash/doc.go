// Package minhash computes MinHash signatures of texts and their LSH band
// hashes, to find near-duplicate documents without comparing every pair.
//
// A Hasher, built once from Params, turns a text into a signature of
// NumPerm uint32 values. The fraction of positions where two signatures
// agree estimates the Jaccard similarity of the two texts' shingle sets
// (EstimateJaccard), with the spread of NumPerm independent trials: a
// standard deviation of sqrt(J(1-J)/NumPerm), 0.044 at J = 0.5 for 128
// values. BandHashes cuts a signature into Bands bands of Rows values and
// hashes each; texts that share a band hash are candidate pairs, which
// happens with probability Probability(J, Bands, Rows), an S-curve whose
// midpoint is Params.Threshold50. Candidates are then confirmed with
// EstimateJaccard, or exactly with Jaccard over Shingles.
//
// # Shingles
//
// A text is first put in the match form of normalize.AppendMatchForm
// (compatibility-decomposed, accents dropped, lowercased, punctuation and
// symbols turned into spaces, whitespace collapsed), so texts that differ
// only in those get the same signature. The match form is split into words
// by words.Split: runs of letters, marks and digits, and one word per CJK
// character. The shingles are the runs of NGram consecutive words; a text
// of fewer than NGram words, but at least one, is one shingle of all its
// words. A text without words has no shingles.
//
// Each word is hashed once, w = xxhash64(word) of its bytes in the match
// form, and the hash of a shingle of words w1..wn combines them in order:
//
//	x = 0
//	x = (x XOR w_i) * P1 mod 2^64, for i = 1..n
//	x = avalanche(x)
//
// with P1 and the final avalanche those of xxhash64. Each step is a
// bijection of x, so two shingles of the same length whose word hashes
// differ never share a hash. Two different words share a 64-bit hash with
// probability 2^-64, about 1 in 4000 for all the pairs of a
// 100-million-word vocabulary together, and would only make them count as
// one word. Shingle hashes do not depend on the seed.
//
// # Permutations
//
// Map j, for j = 0 .. ceil(NumPerm/2)-1, is p_j(x) = a_j*x + b_j mod 2^64.
// The SplitMix64 sequence started at Seed gives, in turn, a_0, b_0, a_1,
// b_1, ...: a_j is the low 32 bits of its value with the lowest bit set
// (an odd number below 2^32), b_j the whole 64-bit value.
// Signature position 2j is the least low half, and position 2j+1 the least
// high half, of p_j over the text's shingle hashes: two permutation values
// from one multiply. A signature of k values is thus the first k values of
// any longer signature with the same seed.
//
// Why this is a sound MinHash. Two signatures agree at a position with
// probability J when the position's map orders the shingles of the two
// texts at random, independently of the other positions. The shingle
// hashes x are already random-looking 64-bit values, so any fixed map that
// keeps distinct shingles distinct makes every shingle equally likely to
// be the least; the maps only have to keep positions independent.
//
//   - The low half, a_j*lo(x) + lo(b_j) mod 2^32, is the textbook 32-bit
//     multiply-add permutation of lo(x): a bijection of 32-bit values (a_j
//     is odd), so it merges no two shingles whose low halves differ.
//   - The high half is a_j*hi(x) + c mod 2^32 with c depending on lo(x)
//     and b_j only: for a given lo(x), again a bijection of hi(x), which is
//     independent of lo(x). So the high position of a map does not follow
//     its low position, although they come from one product.
//
// Positions hold 32 bits, so two different shingles share a position's
// value with probability 2^-32; for texts of a few thousand shingles that
// makes a false agreement at a position less likely than 10^-6, which
// moves estimates by far less than the sampling spread above. The tests check
// that over hundreds of pairs the estimates are unbiased and spread as
// sqrt(J(1-J)/NumPerm), as they would be with truly independent
// permutations.
//
// An empty text (and a null row) gets Empty in every position. Two empty
// texts are therefore estimated equal, like two identical texts; filter
// empty texts out before deduplication if they should not group.
//
// # Speed
//
// The cost is the text's words, one xxhash64 a word, and then NumPerm/2
// multiply-adds and NumPerm minimum updates a shingle. The words come from
// one walk over the text that hashes ASCII words where they stand (spelt
// lowercased into a buffer when they hold an upper-case letter or a
// control character) and hands only the pieces between ASCII separators
// that hold other bytes to normalize.AppendMatchForm and words.Split: the
// same words, and so the same hashes, as the match form gives. The minima
// run over all shingles one block of 16 maps at a time with the minima in
// registers. On amd64 an assembly kernel computes eight maps a 512-bit
// register with AVX-512 (F and DQ: one 64-bit multiply a map), or four
// maps a 256-bit register with AVX2 (two 32-bit multiplies a map);
// elsewhere, and with the purego build tag, Go code computes the same
// values.
//
// # Clusters
//
// Turning candidate pairs into clusters works on plain slices of document
// numbers (documents numbered 0..n-1 in input order), so one process and
// the tasks of a sharded run make the same clusters. BucketPairs turns one
// band's (hash, document) entries into candidate pairs, each document of a
// bucket paired with the bucket's first and with the one before it, and
// SortPairs drops the pairs several bands found. A pair links when its
// similarity, Verify.Similarity (VerifyJaccard: Jaccard of the shingle
// sets; VerifySignature: EstimateJaccard of the signatures), is at or
// above the threshold. LinkPairs joins linked documents by union-find
// (UnionFind) and KeepInComponent picks the kept documents of each
// component: the first by Keep (KeepFirst: input order; KeepLongest:
// length, then input order) keeps every member at or above the threshold
// against it, and the members left form the next cluster, so a removed
// document is always a near duplicate of the document kept in its place.
// Verify and Keep read and write as the strings "jaccard", "signature",
// "first" and "longest"; ParseVerify, ParseKeep and Validate check them.
//
// # Use
//
// A Hasher never changes after NewHasher and is safe for concurrent use.
// Each worker brings its own Scratch, whose buffers are reused from text to
// text, so computing a signature allocates nothing once they have grown.
// Results depend only on the Params and the texts, never on the worker or
// the order of the calls. Functions that take dst append to it and return
// the extended slice, so a caller reuses a buffer by passing dst[:0].
package minhash
