// DuckDB peer for the benchmarks (npm @duckdb/node-api, pinned in bench/README.md).
//
//   node duckdb_run.js parquet IN.jsonl OUT.parquet [THREADS]
//       COPY (SELECT * FROM read_json(IN, format='newline_delimited'))
//       TO OUT (FORMAT parquet, COMPRESSION zstd), then reads the row count
//       of OUT back.
//   node duckdb_run.js count IN.parquet
//       the rows, distinct ids and text bytes of a Parquet file.
//
// Prints one JSON line: {"peer":"duckdb", "task", "threads", ..., "secs"}.
// Needs NODE_PATH pointing at the node_modules that holds @duckdb/node-api.
"use strict";
const fs = require("fs");
const { DuckDBInstance } = require("@duckdb/node-api");

const [task, input, output, threads = "2"] = process.argv.slice(2);
const usage = "usage: node duckdb_run.js parquet IN.jsonl OUT.parquet [THREADS] | count IN.parquet";
if (!task || !input || (task === "parquet" && !output)) {
  console.error(usage);
  process.exit(2);
}
const lit = (s) => `'${String(s).split("'").join("''")}'`;

async function main() {
  const db = await DuckDBInstance.create(":memory:", { threads: String(threads) });
  const con = await db.connect();
  const one = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson()[0];
  const start = process.hrtime.bigint();
  const out = { peer: "duckdb", task, threads };
  switch (task) {
    case "parquet":
      await con.run(`COPY (SELECT * FROM read_json(${lit(input)}, format='newline_delimited'))
        TO ${lit(output)} (FORMAT parquet, COMPRESSION zstd)`);
      out.rows = (await one(`SELECT count(*) AS n FROM read_parquet(${lit(output)})`)).n;
      out.out_bytes = fs.statSync(output).size;
      break;
    case "count":
      Object.assign(out, await one(`SELECT count(*) AS n, count(DISTINCT id) AS ids,
        sum(strlen(text)) AS text_bytes FROM read_parquet(${lit(input)})`));
      break;
    default:
      throw new Error(`unknown task ${task}; ${usage}`);
  }
  out.secs = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(JSON.stringify(out));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
