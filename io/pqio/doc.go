// Package pqio writes and reads Parquet for sluice.
//
// Writing is parallel: each worker encodes its record batch into a piece, a
// complete one-row-group Parquet file in memory (pqarrow, zstd), and a
// Stitcher appends the pieces' column chunks to the output file in batch
// order and writes one footer that lists every row group. Compression, the
// bulk of the cost of writing Parquet, so runs on every core while the
// output stays byte-for-byte the same whatever the number of workers.
// Zstd pages are written as frames without checksums unless
// Options.ZstdChecksums asks for arrow-go's own codec, which adds them.
package pqio
