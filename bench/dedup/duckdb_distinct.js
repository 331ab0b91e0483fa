// DuckDB: SELECT count(DISTINCT hash(text)) over a Parquet file, the
// baseline for sluice's exact dedup. usage: node duckdb_distinct.js FILE.parquet THREADS
// needs NODE_PATH with @duckdb/node-api (see bench/README.md)
const { DuckDBInstance } = require("@duckdb/node-api");
const [file, threads = "1"] = process.argv.slice(2);
(async () => {
  const inst = await DuckDBInstance.create(":memory:", { threads: String(threads) });
  const con = await inst.connect();
  const t0 = process.hrtime.bigint();
  const r = await con.runAndReadAll(`SELECT count(*) AS docs, count(DISTINCT hash(text)) AS distinct_texts FROM read_parquet('${file.replace(/'/g, "''")}')`);
  const row = r.getRowObjectsJson()[0];
  console.log(JSON.stringify({ peer: "duckdb", threads, ...row, secs: Number(process.hrtime.bigint() - t0) / 1e9 }));
})().catch((e) => { console.error(e); process.exit(1); });
