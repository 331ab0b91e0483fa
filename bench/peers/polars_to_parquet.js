// Polars peer for the benchmarks (npm nodejs-polars and its native package
// nodejs-polars-linux-x64-gnu, both pinned in bench/README.md): read an
// NDJSON file into a DataFrame, then write it as Parquet with zstd.
//
//   POLARS_MAX_THREADS=T node polars_to_parquet.js IN.jsonl OUT.parquet [eager]
//
// The JS wrapper of nodejs-polars 0.25.2 fails on readJSON(path,
// {format: "lines"}) (it calls a binding the native module does not have),
// so this calls the native JSON reader and wraps its result in a DataFrame.
// Prints one JSON line: {"peer":"polars", "mode", "threads", "rows", "read_s", "secs", "out_bytes"}.
// Needs NODE_PATH pointing at the node_modules that holds nodejs-polars.
"use strict";
const fs = require("fs");
const native = require("nodejs-polars/bin/internals/polars_internal.js").default;
const { _DataFrame: wrap } = require("nodejs-polars/bin/dataframe.js");

const [input, output, mode = "eager"] = process.argv.slice(2);
if (!input || !output || mode !== "eager") {
  console.error("usage: POLARS_MAX_THREADS=T node polars_to_parquet.js IN.jsonl OUT.parquet [eager]");
  process.exit(2);
}
const start = process.hrtime.bigint();
const since = () => Number(process.hrtime.bigint() - start) / 1e9;
const df = wrap(native.readJson(input, { format: "lines", inferSchemaLength: 100, batchSize: 10000 }));
const readSecs = since();
df.writeParquet(output, { compression: "zstd" });
console.log(JSON.stringify({
  peer: "polars", mode, threads: process.env.POLARS_MAX_THREADS || "default",
  rows: df.height, read_s: readSecs, secs: since(), out_bytes: fs.statSync(output).size,
}));
