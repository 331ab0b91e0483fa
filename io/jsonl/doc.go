// Package jsonl reads JSON Lines into Arrow record batches and writes
// them back: it cuts the input into chunks of whole lines (ChunkReader,
// LineReader), infers a schema from the first rows (Inference), parses and
// builds each chunk's columns in parallel (Decoder, Builder), reporting a
// line it cannot take as a BadLine with its file and line for the
// quarantine, and encodes batches as JSON Lines (Encoder).
package jsonl
