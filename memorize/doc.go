// Package memorize builds and scores memorization tests from the data side.
//
// Probes (Carlini et al. 2022, "Quantifying Memorization Across Neural
// Language Models"): a Sampler picks documents of a corpus with a seed and
// cuts each into a prefix and its true continuation, measured in tokens of
// a named tokenizer. A model is prompted with the prefix; the more of the
// continuation it reproduces, the more it memorized. Memorization grows with
// duplication, so probes record each document's duplicate count (from
// MinHash dedup annotations) and can be stratified by it.
//
// Canaries (Carlini et al. 2019, "The Secret Sharer"): Generate makes random
// secrets of a known format, each to be inserted a given number of times
// into a dataset (Plan, Splice); after training, the exposure of each
// canary — how much more likely the model finds it than the other secrets
// of its format — shows what repetition makes a model remember.
//
// Score computes, from a model's generations, the exact-match rate of the
// continuations, the longest common token prefix (mean and distribution),
// the fraction of probes with at least 50 verbatim tokens, broken down by
// duplicate count or repeat count, and the canaries' exposure when ranks or
// log-likelihoods are given.
//
// Sampling is bottom-k: every document gets a key, a 64-bit hash of the
// seed and the document's id, and the sample is the documents with the
// smallest keys. It is the same whatever order documents are offered in,
// and a different seed gives an independent sample.
package memorize
