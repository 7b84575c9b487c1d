// Text sent for some points only (a map past 20,000 points) spread to one entry a point, and what the tooltip
// writes for a point whose text was not sent.
import { test } from "node:test";
import assert from "node:assert/strict";

import { fieldValue, spreadTexts, tipTitle } from "../../app/ui/map/logic.js";

const b64 = (ints) => Buffer.from(new Int32Array(ints).buffer).toString("base64");

test("some texts are spread to their points and the others are null", () => {
  const labels = spreadTexts({ index: b64([1, 4]), text: ["b", "e"] }, 6);
  assert.deepEqual(labels, [null, "b", null, null, "e", null]);
  assert.deepEqual(spreadTexts(["a", "b"], 2), ["a", "b"]);
  assert.equal(spreadTexts(null, 3), null);
});

test("a point without text is named by its number, and a text field says it was not sent", () => {
  const frame = { labels: spreadTexts({ index: b64([2]), text: ["c"] }, 4), ids: null, rowIds: false };
  assert.equal(tipTitle(frame, 2), "c");
  assert.equal(tipTitle(frame, 0), "#0");
  const field = { name: "title", values: frame.labels };
  assert.equal(fieldValue(field, 2), "c");
  assert.equal(fieldValue(field, 1), "(not sent at this size)");
});

test("a view lacks texts when a shown point inside it has none", async () => {
  const { lacksTexts } = await import("../../app/ui/map/logic.js");
  const xs = [0, 1, 2, 3], ys = [0, 1, 2, 3], texts = ["a", null, "c", null];
  assert.equal(lacksTexts(xs, ys, null, texts, [-0.5, -0.5, 0.5, 0.5]), false);  // only point 0, which has text
  assert.equal(lacksTexts(xs, ys, null, texts, [0.5, 0.5, 1.5, 1.5]), true);  // point 1 has none
  assert.equal(lacksTexts(xs, ys, new Uint8Array([1, 0, 1, 1]), texts, [0.5, 0.5, 2.5, 2.5]), false);  // 1 hidden
  assert.equal(lacksTexts(xs, ys, null, null, [0, 0, 9, 9]), false);  // every text sent: nothing to ask
});
