//go:build !amd64 || purego

package minhash

// asmKernels returns no kernel: minimaBlock is Go code here.
func asmKernels() map[string]func(*[blockWords]uint64, []uint64, *[blockValues]uint32) {
	return nil
}
