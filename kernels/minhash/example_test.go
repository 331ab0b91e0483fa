package minhash_test

import (
	"fmt"

	"github.com/sluice-data/sluice/kernels/minhash"
)

func Example() {
	h, err := minhash.NewHasher(minhash.DefaultParams())
	if err != nil {
		panic(err)
	}
	a := []byte("The old mill stood at the bend of the river, where the water slowed before the weir " +
		"and spread into a wide, brown pool. For almost two hundred years the miller's family had " +
		"ground wheat there, and the stones they used still lie in the yard.")
	b := []byte("THE OLD MILL stood at the bend of the river where the water slowed before the weir " +
		"and spread into a wide brown pool; for almost two hundred years the miller's family had " +
		"ground wheat there, and the stones they once used still lie in the yard!")

	var s minhash.Scratch // one per worker
	p := h.Params()
	sa := make([]uint32, p.NumPerm)
	sb := make([]uint32, p.NumPerm)
	h.Signature(&s, a, sa)
	h.Signature(&s, b, sb)

	shared := 0
	ba, bb := h.BandHashes(sa, nil), h.BandHashes(sb, nil)
	for k := range ba {
		if ba[k] == bb[k] {
			shared++
		}
	}
	fmt.Printf("threshold %.2f\n", p.Threshold50())
	fmt.Printf("jaccard %.2f\n", minhash.Jaccard(h.Shingles(&s, a, nil), h.Shingles(&s, b, nil)))
	fmt.Printf("estimate %.2f\n", minhash.EstimateJaccard(sa, sb))
	fmt.Printf("candidates: %v\n", shared > 0)
	// Output:
	// threshold 0.67
	// jaccard 0.81
	// estimate 0.81
	// candidates: true
}

func ExampleProbability() {
	for _, s := range []float64{0.5, 0.7, 0.8, 0.9} {
		fmt.Printf("J %.1f: %.4f\n", s, minhash.Probability(s, 16, 8))
	}
	// Output:
	// J 0.5: 0.0607
	// J 0.7: 0.6133
	// J 0.8: 0.9470
	// J 0.9: 0.9999
}
