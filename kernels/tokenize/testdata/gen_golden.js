// Writes <encoding>.golden.jsonl beside this file: the token ids of every
// text of texts.jsonl, from the reference tokenizer, the npm package
// tiktoken (tiktoken's Rust core compiled to WASM), with encode_ordinary.
//
// Run from this folder:
//   mkdir -p /tmp/tk && (cd /tmp/tk && npm init -y >/dev/null && npm i -E tiktoken@1.0.22)
//   NODE_PATH=/tmp/tk/node_modules node gen_golden.js
const fs = require("fs");
const path = require("path");
const { get_encoding } = require("tiktoken");

const pkg = path.join(path.dirname(require.resolve("tiktoken")), "package.json");
const version = JSON.parse(fs.readFileSync(pkg, "utf8")).version;
if (version !== "1.0.22") throw new Error(`tiktoken ${version}, want 1.0.22`);

const texts = fs.readFileSync(path.join(__dirname, "texts.jsonl"), "utf8")
  .split("\n").filter((l) => l).map((l) => JSON.parse(l));

for (const name of ["cl100k_base", "o200k_base", "r50k_base"]) {
  const enc = get_encoding(name);
  const lines = texts.map((t) => {
    const ids = Array.from(enc.encode_ordinary(t.text));
    return JSON.stringify({ name: t.name, count: ids.length, ids });
  });
  enc.free();
  fs.writeFileSync(path.join(__dirname, `${name}.golden.jsonl`), lines.join("\n") + "\n");
  console.log(`${name}: ${texts.length} texts`);
}
