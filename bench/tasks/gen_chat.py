#!/usr/bin/env python3
"""Deterministic generator of a chat fine-tuning file and its plain-text twin.

Writes N chat examples {"messages": [{"role", "content"}, ...]} to OUT.jsonl
and, line for line, the same texts as {"text": ...} to TEXT.jsonl, where an
example's text is its message contents joined by a blank line (what
`sluice tokens` counts in one call per example).

The prose is that of gen_corpus.py (Zipf-weighted words of
/usr/share/dict/words, a little non-ASCII), so the vocabulary is large and
duplicates are rare, as in real files:
  * a system prompt in 70% of the examples, drawn from a pool of 40
    (real files repeat their system prompts);
  * one user turn and one assistant answer, or 2-3 rounds in 15% of them;
  * lognormal lengths: questions ~25 words, answers ~60 words;
  * 0.5% exact copies of an earlier example (duplicate_example warnings).
Every example is valid for `sluice tasks validate` (no errors).

Usage: gen_chat.py --n 120000 --seed 7 --out chat.jsonl --text text.jsonl --tools DIR
(bench/tasks/run.sh --tools DIR uses it; without --tools, `go run ./bench/gen --chat` makes the files.)
"""
import argparse, json, math, os, random, sys

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=120000)
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--out", required=True)
ap.add_argument("--text", required=True)
ap.add_argument("--tools", required=True, help="folder of gen_corpus.py")
ap.add_argument("--dict", default="/usr/share/dict/words")
a = ap.parse_args()
sys.path.insert(0, a.tools)
from gen_corpus import Gen, NON_ASCII, load_vocab  # noqa: E402

rng = random.Random(a.seed)
gen = Gen(load_vocab(a.dict, random.Random(a.seed ^ 0x5EED)))


def sentence(k, end="."):
    ws = gen.words(rng, k)
    if rng.random() < 0.05:
        ws[rng.randrange(len(ws))] = rng.choice(NON_ASCII)
    ws[0] = ws[0][:1].upper() + ws[0][1:]
    if len(ws) > 8 and rng.random() < 0.4:
        i = rng.randrange(2, len(ws) - 2)
        ws[i] += ","
    return " ".join(ws) + end


def text(mean_words, question=False):
    target = max(4, int(rng.lognormvariate(math.log(mean_words) - 0.18, 0.6)))
    sents, n = [], 0
    while n < target:
        k = rng.randint(5, 20)
        sents.append(sentence(k))
        n += k
    if question:
        sents[-1] = sents[-1][:-1] + "?"
    out = " ".join(sents)
    if not question and n > 50 and rng.random() < 0.5:  # paragraphs in longer answers
        parts = out.split(". ")
        cut = len(parts) // 2
        out = ". ".join(parts[:cut]) + ".\n\n" + ". ".join(parts[cut:])
    return out


systems = ["You are a helpful assistant. " + sentence(rng.randint(6, 18)) for _ in range(40)]
done = []
with open(a.out, "w", encoding="utf-8") as chat, open(a.text, "w", encoding="utf-8") as plain:
    for i in range(a.n):
        if done and rng.random() < 0.005:
            msgs = rng.choice(done)
        else:
            msgs = []
            if rng.random() < 0.7:
                msgs.append({"role": "system", "content": rng.choice(systems)})
            rounds = 1 if rng.random() < 0.85 else rng.randint(2, 3)
            for _ in range(rounds):
                msgs.append({"role": "user", "content": text(18, question=True)})
                msgs.append({"role": "assistant", "content": text(55)})
            if len(done) < 1000:
                done.append(msgs)
            elif rng.random() < 0.01:
                done[rng.randrange(len(done))] = msgs
        chat.write(json.dumps({"messages": msgs}, ensure_ascii=False) + "\n")
        plain.write(json.dumps({"text": "\n\n".join(m["content"] for m in msgs)}, ensure_ascii=False) + "\n")
