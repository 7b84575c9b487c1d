// Long arrays sent once: the store keeps what a map's data brings, names what it lacks, resolves references
// to arrays decoded once, and lets the least recently used go.
import { test } from "node:test";
import assert from "node:assert/strict";

import { BlobStore, decode } from "../../app/ui/map/logic.js";

const f32 = (xs) => Buffer.from(new Float32Array(xs).buffer).toString("base64");

test("a reference to an array sent before reads as the array, decoded once", () => {
  const store = new BlobStore();
  const first = { x: { blob: "dx", b64: f32([1, 2, 3]) }, color: { kind: "single", color: "#000" } };
  assert.deepEqual(store.take(first), []);
  const a = decode(store.resolve(first).x);
  assert.deepEqual(Array.from(a), [1, 2, 3]);
  const again = { x: { blob: "dx" }, color: { kind: "category", codes: { blob: "dc", b64: f32([0, 1, 0]) } } };
  assert.deepEqual(store.take(again), []);
  const resolved = store.resolve(again);
  assert.equal(decode(resolved.x), a, "the same array, not decoded again");
  assert.deepEqual(Array.from(decode(resolved.color.codes)), [0, 1, 0]);
  assert.equal(resolved.color.kind, "category");
  // its JSON names the digest, not the text
  assert.equal(JSON.stringify(resolved.x), '{"blob":"dx"}');
});

test("references the store does not hold are named, each once", () => {
  const store = new BlobStore();
  const missing = store.take({ x: { blob: "a" }, y: { blob: "b" }, hover: { fields: [{ codes: { blob: "a" } }] } });
  assert.deepEqual(missing, ["a", "b"]);
});

test("the least recently used go past the limits, never one the data in hand names", () => {
  const store = new BlobStore(2, 1e9);
  store.take({ x: { blob: "1", b64: f32([1]) } });
  store.take({ x: { blob: "2", b64: f32([2]) } });
  store.take({ x: { blob: "1" } });  // 1 used again: 2 is now the oldest
  store.take({ x: { blob: "3", b64: f32([3]) } });
  assert.deepEqual([...store.held.keys()].sort(), ["1", "3"]);
  const small = new BlobStore(10, 10);  // a character limit below one blob: the data in hand stays whole
  assert.deepEqual(small.take({ x: { blob: "p", b64: f32([1, 2, 3, 4]) }, y: { blob: "q", b64: f32([5, 6]) } }), []);
  assert.deepEqual([...small.held.keys()].sort(), ["p", "q"]);
  small.take({ x: { blob: "r", b64: f32([7]) } });
  assert.deepEqual([...small.held.keys()], ["r"]);
});

test("texts and plain lists pass through untouched", () => {
  const store = new BlobStore();
  const data = { labels: ["a", "b"], rings: [{ indices: [1, 2], name: "x" }], n: 2, title: "t" };
  store.take(data);
  assert.deepEqual(store.resolve(data), data);
});
