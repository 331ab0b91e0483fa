// DuckDB doing what `sluice dedup exact` does: keep the first row of every
// distinct text in input order and write the kept rows to Parquet (zstd).
// usage: node duckdb_dedup.js IN.parquet OUT.parquet THREADS
// needs NODE_PATH with @duckdb/node-api (see bench/README.md)
const { DuckDBInstance } = require("@duckdb/node-api");
const [input, output, threads = "1"] = process.argv.slice(2);
const q = (s) => "'" + s.replace(/'/g, "''") + "'";
(async () => {
  const inst = await DuckDBInstance.create(":memory:", { threads: String(threads) });
  const con = await inst.connect();
  const t0 = process.hrtime.bigint();
  await con.run(`COPY (
    SELECT * EXCLUDE (file_row_number) FROM read_parquet(${q(input)}, file_row_number = true)
    QUALIFY row_number() OVER (PARTITION BY hash(text) ORDER BY file_row_number) = 1
    ORDER BY file_row_number
  ) TO ${q(output)} (FORMAT parquet, COMPRESSION zstd)`);
  const r = await con.runAndReadAll(`SELECT count(*) AS kept FROM read_parquet(${q(output)})`);
  console.log(JSON.stringify({ peer: "duckdb", threads, ...r.getRowObjectsJson()[0], secs: Number(process.hrtime.bigint() - t0) / 1e9 }));
})().catch((e) => { console.error(e); process.exit(1); });
