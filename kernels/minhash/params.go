package minhash

import (
	"errors"
	"fmt"
	"math"
)

// Params sets the size of a signature, its banding and its shingles.
// Signatures, band hashes and shingle hashes are comparable only between
// Hashers built from equal Params.
type Params struct {
	// NumPerm is the number of permutations, the length of a signature.
	NumPerm int `yaml:"num_perm" json:"num_perm" limit:"[1,8192]"`
	// Bands is the number of LSH bands; it must divide NumPerm. Each band
	// holds Rows = NumPerm/Bands signature values.
	Bands int `yaml:"bands" json:"bands" limit:"[1,8192]"`
	// NGram is the number of words in a shingle.
	NGram int `yaml:"ngram" json:"ngram" limit:"[1,1000]"`
	// Seed determines the permutations. Shingle hashes do not depend on it.
	Seed uint64 `yaml:"seed" json:"seed" limit:"any"`
}

// DefaultParams returns 128 permutations in 16 bands of 8 rows over word
// 5-grams, seed 0: a pair of texts becomes a candidate with probability
// one half at a Jaccard similarity of about 0.67.
func DefaultParams() Params {
	return Params{NumPerm: 128, Bands: 16, NGram: 5}
}

// maxNumPerm bounds NumPerm to catch a mistyped value before it costs
// gigabytes of signatures, and so that the signatures of a Parquet write
// batch (1024 rows of 4*NumPerm bytes) fit the 64 MiB page a reader accepts.
const maxNumPerm = 1 << 13

// Validate checks every field and returns all problems at once, one a
// line, each naming its key.
func (p Params) Validate() error {
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("minhash: "+format, args...))
	}
	if p.NumPerm < 1 || p.NumPerm > maxNumPerm {
		fail("num_perm %d out of range [1, %d]", p.NumPerm, maxNumPerm)
	}
	if p.Bands < 1 {
		fail("bands %d must be at least 1", p.Bands)
	} else if p.NumPerm >= 1 && p.NumPerm%p.Bands != 0 {
		fail("bands %d does not divide num_perm %d (each band needs num_perm/bands rows)", p.Bands, p.NumPerm)
	}
	if p.NGram < 1 {
		fail("ngram %d must be at least 1", p.NGram)
	}
	return errors.Join(errs...)
}

// Rows returns the number of signature values in a band, NumPerm/Bands, or
// 0 when Bands is not positive.
func (p Params) Rows() int {
	if p.Bands <= 0 {
		return 0
	}
	return p.NumPerm / p.Bands
}

// Threshold50 returns the Jaccard similarity at which a pair of texts
// becomes a candidate (shares at least one band) with probability 1/2: the
// s with Probability(s, Bands, Rows) = 0.5, that is
// (1 - 2^(-1/b))^(1/r) for b bands of r rows. The common approximation of
// the S-curve's midpoint, (1/b)^(1/r), lies a little above it: 0.707
// against 0.674 for 16 bands of 8 rows. Threshold50 returns NaN for
// Params that do not validate.
func (p Params) Threshold50() float64 {
	b, r := p.Bands, p.Rows()
	if b < 1 || r < 1 || p.NumPerm%b != 0 {
		return math.NaN()
	}
	return math.Pow(-math.Expm1(-math.Ln2/float64(b)), 1/float64(r))
}

// Probability returns the probability that two texts of Jaccard
// similarity s share at least one of bands bands of rows rows each:
// 1 - (1 - s^rows)^bands, computed without losing precision when s^rows
// is tiny.
func Probability(s float64, bands, rows int) float64 {
	sr := math.Pow(s, float64(rows))
	if sr >= 1 {
		return 1
	}
	return -math.Expm1(float64(bands) * math.Log1p(-sr))
}
