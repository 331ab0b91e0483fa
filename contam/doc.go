// Package contam finds evaluation data in a training corpus by long word
// n-gram overlap, as the GPT-3 study did (Brown et al. 2020, appendix C).
//
// ReadEvals reads evaluation sets (JSONL or Parquet): each row is one
// example, named by its set and its id (the id field, or its line or row
// number), whose text is the chosen fields joined (nested objects and
// lists contribute every string and number inside them, in order). NewIndex
// hashes every example's word n-grams in the matching normal form
// (kernels/ngram) into a table of 64-bit hashes: no strings are kept, and
// n-grams found in more than MaxNGramExamples examples (templates and
// boilerplate shared by a whole set) are dropped.
//
// A Matcher, one per worker, looks up every n-gram of a corpus text and
// tells which examples the text contains: an example is matched when the
// text shares at least MinOverlap of its distinct n-grams and, when
// MinFraction is set, at least that fraction of them. A Tally gathers what
// the matches add up to, per evaluation set and per corpus source, in a
// form that does not depend on the order batches arrive in.
package contam
