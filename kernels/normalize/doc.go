// Package normalize cleans text and derives the matching form that
// dedup and decontamination compare.
//
// # Unicode normal forms
//
// The same visible text can be spelled with different code points: "é" is
// either U+00E9 or "e" followed by the combining acute accent U+0301.
// Unicode normalization picks one spelling.
//
//   - NFC (canonical composition) joins such pairs into the precomposed
//     character wherever one exists and changes nothing else. It never
//     changes how text looks or what it means, so it is the default for
//     cleaning.
//   - NFKC (compatibility composition) also folds compatibility characters
//     into their plain equivalents: full-width "ＡＢＣ１２" becomes "ABC12",
//     the ligature "ﬁ" becomes "fi", "²" becomes "2", "①" becomes "1" and
//     non-breaking or ideographic spaces become U+0020. It loses
//     formatting distinctions (superscripts, fractions, width), which is
//     usually what a training corpus wants for text scraped from mixed
//     sources, and occasionally not (math, chemistry formulas).
//
// Normalization uses golang.org/x/text/unicode/norm, whose Unicode version
// follows the Go release (Unicode 15.0.0 for Go before 1.27).
//
// # Clean text
//
// AppendText and Column produce the cleaned text kept in the dataset; see
// AppendText for the rules. The result is idempotent: cleaning a cleaned
// text changes nothing.
//
// # Match form
//
// AppendMatchForm and MatchFormColumn produce a lossy key for comparing
// texts, never for storing them: compatibility-decomposed, accents
// dropped, lowercased, punctuation and symbols turned into spaces, and
// whitespace collapsed. Two texts that differ only in accents, case,
// punctuation or spacing get the same match form.
//
// # Kernels
//
// All functions are pure and safe for concurrent use. The column kernels
// take an allocator and a string column and return a new column of the
// same length, with nulls kept null, that the caller releases; the input
// is left alone.
package normalize
