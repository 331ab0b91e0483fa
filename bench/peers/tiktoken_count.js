// Reference token counter for the benchmarks: cl100k_base counts of the
// "text" field of a JSONL file with npm tiktoken (pinned in bench/README.md),
// whose Rust core runs as WASM.
//
//   node tiktoken_count.js IN.jsonl wasm [LIMIT]    count tokens (encode_ordinary)
//   node tiktoken_count.js IN.jsonl parse [LIMIT]   read and parse only: the baseline
//
// LIMIT stops after that many documents (0: all). Prints one JSON line with
// docs, tokens, text_mb, secs (the whole loop), encode_s (counting alone) and
// the speeds of each: tokens_per_s, text_MB_per_s, encode_only_tokens_per_s,
// encode_only_MB_per_s. Needs NODE_PATH pointing at the node_modules that
// holds tiktoken (not needed for parse).
"use strict";
const fs = require("fs");
const readline = require("readline");

const [input, mode = "wasm", limitArg = "0"] = process.argv.slice(2);
if (!input || (mode !== "wasm" && mode !== "parse")) {
  console.error("usage: node tiktoken_count.js IN.jsonl wasm|parse [LIMIT]");
  process.exit(2);
}
const limit = Number.parseInt(limitArg, 10) || 0;
let count = () => 0;
if (mode === "wasm") {
  const enc = require("tiktoken").get_encoding("cl100k_base");
  count = (text) => enc.encode_ordinary(text).length;
}

async function main() {
  const start = process.hrtime.bigint();
  let docs = 0, tokens = 0, bytes = 0, encodeNs = 0n;
  const lines = readline.createInterface({ input: fs.createReadStream(input), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === "") continue;
    const text = JSON.parse(line).text;
    bytes += Buffer.byteLength(text, "utf8");
    const t = process.hrtime.bigint();
    tokens += count(text);
    encodeNs += process.hrtime.bigint() - t;
    docs++;
    if (limit > 0 && docs >= limit) {
      lines.close();
      break;
    }
  }
  const secs = Number(process.hrtime.bigint() - start) / 1e9;
  const encodeSecs = Number(encodeNs) / 1e9;
  const mb = bytes / 1e6;
  const round = (x, d) => Number(x.toFixed(d));
  console.log(JSON.stringify({
    peer: mode === "wasm" ? "tiktoken-wasm" : "parse-only",
    docs, tokens, text_mb: round(mb, 1), secs: round(secs, 3), encode_s: round(encodeSecs, 3),
    tokens_per_s: Math.round(tokens / secs), text_MB_per_s: round(mb / secs, 2),
    encode_only_tokens_per_s: encodeSecs > 0 ? Math.round(tokens / encodeSecs) : null,
    encode_only_MB_per_s: encodeSecs > 0 ? round(mb / encodeSecs, 2) : null,
  }));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
