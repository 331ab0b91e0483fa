// Package duckdb checks that the Parquet written by sluice is read by DuckDB
// as it is: same row count, same row order, the expected column types and
// the exact values of the source JSONL.
//
// The package has no code of its own; everything lives in its tests, which
// build the sluice binary from the repository root, convert
// testdata/source.jsonl to a dataset directory and to a single file, and
// read both back through the DuckDB database/sql driver.
//
// It is a separate Go module (github.com/sluice-data/sluice/interop/duckdb)
// because the DuckDB driver, github.com/duckdb/duckdb-go/v2, needs cgo and
// links prebuilt static DuckDB libraries pulled in through
// github.com/duckdb/duckdb-go-bindings (for linux/amd64 the module
// go.duckdb.org/libduckdb/linux-amd64, some 170 MB unpacked). Keeping it out
// of the main module means that building, vetting and testing sluice itself
// needs neither a C toolchain nor that download; sluice is built here with
// CGO_ENABLED=0 to keep it that way. The Go tool skips this directory when
// it walks the main module (./...) because it has its own go.mod.
package duckdb
